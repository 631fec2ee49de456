"""Run folders for the viewer's tests: the shipped example, evaluated, and a run full of awkward cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.dataset import load_split
from gqlbench.metrics import score_sample
from gqlbench.records import SampleResult
from gqlbench.results import CONFIG_FILE, RESULTS_FILE, read_results, write_results, write_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "predictions_example.jsonl"


def evaluate(out: Path, predictions: Path = EXAMPLE, *extra: str) -> Path:
    assert main(["evaluate", str(predictions), "--out", str(out), *extra]) == 0
    return out


@pytest.fixture(scope="session")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example predictions scored statically (fast; no execution traces)."""
    return evaluate(tmp_path_factory.mktemp("example") / "run", EXAMPLE, "--no-exec")


@pytest.fixture(scope="session")
def gold_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test sample predicted by its own gold program: everything matches."""
    rows = [{"id": s.id, "prediction": f"```python\n{s.gold_code}```"} for s in load_split("test")]
    path = tmp_path_factory.mktemp("gold") / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return evaluate(path.parent / "run", path, "--no-exec")


HOSTILE = "print('\x1b[31m<script>alert(1)</script>\x00\ud800')"


@pytest.fixture(scope="session")
def awkward_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Parse errors, an empty output, ReAct steps, no exec traces, control characters and
    lone surrogates, listed errors, intervals and error counts in results.json, a config.json."""
    samples = load_split("test")[:6]
    out = tmp_path_factory.mktemp("awkward") / "run"
    results = [
        score_sample(samples[0], "```python\nthis is not python(\n```"),
        score_sample(samples[1], ""),
        score_sample(samples[2], f"```python\n{samples[2].gold_code}\n{HOSTILE}\n```"),
        score_sample(samples[3], f"```python\n{samples[3].gold_code}```"),
        score_sample(samples[4], "<b>no code at all</b>"),
        score_sample(samples[5], f"```python\n{samples[5].gold_code}```"),
    ]
    steps = [
        {"thought": "search first", "action": "GET_search(q='x')", "finished": False, "raw": "...", "observation": "{'items': [1, 2]}\x07"},
        {"thought": "done", "action": None, "finished": True, "raw": "Final Answer"},
    ]
    extra = {
        "raw_output": "Thought: search first\x1b[0m",
        "tokens_in": 120,
        "tokens_out": 40,
        "latency_s": 1.5,
        "finish_reason": "stop",
        "steps": steps,
    }
    errors = [{"kind": "wrong_value", "call": "GET_search#1", "argument": "q", "expected": "'a'", "got": "'<b>'", "detail": "differs"}]
    results[3] = SampleResult.model_validate({**results[3].model_dump(mode="json"), **extra})
    results[5] = SampleResult.model_validate(
        {**results[5].model_dump(mode="json"), "explanation": {**results[5].explanation, "errors": errors}}
    )
    write_run(out, results, meta={"command": "test"})
    document = read_results(out / RESULTS_FILE)
    for group in document.metrics.values():
        group["ci"] = {"arg_match_full": [0.1, 0.9]}
        group["errors"] = {"parse_error": 1, "wrong_value": 1}
        group["cost_usd"] = 0.25
    write_results(out / RESULTS_FILE, document)
    config = {
        "model": "tiny/model",
        "prompt": "react",
        "split": "test",
        "settings": {"seed": 0},
        "backend": {"name": "stub"},
        "git": {"commit": "abc123"},
        "data_hash": "d41d8",
    }
    (out / CONFIG_FILE).write_text(json.dumps(config), encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def executed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example predictions with execution: traces, divergences, execution errors."""
    return evaluate(tmp_path_factory.mktemp("executed") / "run", EXAMPLE)
