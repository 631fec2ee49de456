"""Run folders for the viewer's tests: the shipped example, evaluated, and a run full of awkward cases."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gqlbench.cli import main
from gqlbench.dataset import data_hash, load_split
from gqlbench.metrics import score_sample
from gqlbench.records import SampleResult
from gqlbench.results.files import CONFIG_FILE, RESULTS_FILE, SAMPLES_FILE, read_results, write_results, write_run

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
        {**results[5].model_dump(mode="json"), "explanation": {**results[5].explanation.to_json(), "errors": errors}}
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
        "data_hash": data_hash(),  # the bundled data its samples come from: it pairs with runs on them
    }
    (out / CONFIG_FILE).write_text(json.dumps(config), encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def executed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example predictions with execution: traces, divergences, execution errors.

    Scored as a reader would, inside a folder of their own (``gqlbench evaluate predictions.jsonl
    --out results``), so the recorded command names no machine's folders: docs/img's screenshots of
    its report are made from it (tests/viewer/test_viewer_browser.py)."""
    base = tmp_path_factory.mktemp("executed")
    shutil.copy(EXAMPLE, base / "predictions.jsonl")
    with contextlib.chdir(base):
        evaluate(Path("results"), Path("predictions.jsonl"))
    return base / "results"


# -- run folders edited by hand, or by someone hostile --------------------------------------------------------------

XSS = "\"'><img src=x onerror=\"document.title='pwned';window.pwned=1\">"  # markup that runs if it reaches the page raw
BAD_ID = 't"><img src=x onerror="document.title=\'pwned\';window.pwned=1">/1'  # a sample id the id parser accepts
PERCENT_ID = "t%zz/2"  # a link to it is no valid percent-encoding
BIG = '"@BIG@"'  # replaced by a 5,000-digit number once written (json.dumps cannot write one)


def edited_copy(source: Path, dest: Path, *, results: Any = None, samples: Any = None, config: Any = None) -> Path:
    """``source`` copied to ``dest`` with its results.json, samples.jsonl lines or config.json changed in place by the callables."""
    shutil.copytree(source, dest)
    for name, edit in ((RESULTS_FILE, results), (CONFIG_FILE, config)):
        path = dest / name
        if edit is not None:
            data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            edit(data)
            path.write_text(json.dumps(data).replace(BIG, "9" * 5000), encoding="utf-8")
    if samples is not None:
        path = dest / SAMPLES_FILE
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        samples(lines)
        path.write_text("".join(json.dumps(line).replace(BIG, "9" * 5000) + "\n" for line in lines), encoding="utf-8")
    return dest


def _hostile_results(doc: dict[str, Any]) -> None:
    doc["metrics"]["overall"]["arg_match_full"] = XSS
    doc["metrics"]["overall"]["errors"] = {XSS: 1, "parse_error": 2}
    doc["metrics"][XSS] = {"arg_match_full": 0.5, "n_samples": 1}
    doc["meta"]["command"] = XSS
    doc["missing"] = [XSS]
    doc["skipped"] = [{"id": XSS, "reason": XSS}]


def _hostile_samples(lines: list[dict[str, Any]]) -> None:
    traced = next(line for line in lines if isinstance(line["explanation"].get("exec", {}).get("pred_trace"), dict))
    trace = traced["explanation"]["exec"]["pred_trace"]
    trace["calls"] = [{"function": XSS, "arguments": {XSS: XSS}, "response_ids": [XSS], "error": XSS}, *trace["calls"]]
    trace["stdout"] = XSS
    trace["error"] = {"kind": XSS, "message": XSS}
    traced["explanation"]["exec"]["error"] = {"kind": XSS, "message": XSS, "line": 1}
    traced["explanation"]["errors"] = [{"kind": XSS, "call": XSS, "argument": XSS, "expected": XSS, "got": XSS, "detail": XSS}]
    traced["explanation"]["parse_error"] = XSS
    traced |= {"raw_output": XSS, "finish_reason": XSS, "error": XSS, "steps": [{"thought": XSS, "action": XSS, "observation": XSS}]}
    gold = load_split("test")[0]
    first = lines[0]
    first["id"] = BAD_ID  # not in the benchmark: its programs come from the explanation
    first["domain"] = XSS
    first["explanation"] |= {"gold_code": gold.gold_code, "code": gold.gold_code}
    lines[1]["id"] = PERCENT_ID


def hostile_copy(source: Path, dest: Path) -> Path:
    """A run folder with markup in every value a person could edit: metrics, ids, names, messages, traces, config."""
    config = {
        "model": XSS,
        "prompt": XSS,
        "split": XSS,
        "settings": {XSS: XSS},
        "backend": {"name": XSS},
        "git": {"commit": XSS},
        "data_hash": XSS,
        "created": XSS,
        "versions": XSS,
    }
    return edited_copy(source, dest, results=_hostile_results, samples=_hostile_samples, config=lambda c: c.update(config))


@pytest.fixture(scope="session")
def hostile() -> SimpleNamespace:
    """The hostile values and folder editors for tests: ``xss``, ``bad_id``, ``percent_id``, ``big``,
    ``edit`` (:func:`edited_copy`) and ``copy`` (:func:`hostile_copy`)."""
    return SimpleNamespace(xss=XSS, bad_id=BAD_ID, percent_id=PERCENT_ID, big=BIG, edit=edited_copy, copy=hostile_copy)


@pytest.fixture(scope="session")
def hostile_run(executed_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The executed example with markup in every value of its run folder (see :func:`hostile_copy`)."""
    return hostile_copy(executed_run, tmp_path_factory.mktemp("hostile") / XSS.replace("/", "_")[:40])
