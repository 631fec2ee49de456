"""`run --samples K`: K completions per sample, resume per completion, pass@k, cost and latency, --bootstrap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.results.files import read_samples
from gqlbench.run.runner import RunOptions, RunSettings, run
from gqlbench.run.usage import Prices
from tests.stub_backends import STUB

WRONG = "test/0@1+test/1@1+test/1@2"  # test/0: completions 0, 2 right; test/1: only completion 0 right


def _settings(**changes: object) -> RunSettings:
    base = {
        "model": "stub-model",
        "backend": STUB,
        "split": "test",
        "limit": 2,
        "samples": 3,
        "temperature": 0.7,
        "execute": False,
        "model_args": {"wrong": WRONG},
    }
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def _lines(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def _check_pass_at_k(results: dict) -> None:
    overall = results["metrics"]["overall"]
    arg_at, arg_hat = overall["pass_at_k"]["arg_match_full"], overall["pass_hat_k"]["arg_match_full"]
    assert arg_at["1"] == pytest.approx((2 / 3 + 1 / 3) / 2) == arg_hat["1"]
    assert arg_at["2"] == pytest.approx((1 + 2 / 3) / 2) and arg_at["3"] == 1.0
    assert arg_hat["2"] == pytest.approx((1 / 3 + 0) / 2) and arg_hat["3"] == 0.0
    assert overall["arg_match_full"] == 1.0  # Table 2 scores completion 0, right for both samples
    assert results["meta"]["samples"] == 3


@pytest.mark.parametrize("n", ["", "yes"])
def test_k_completions_per_sample_each_labelled_and_pass_at_k_reported(tmp_path: Path, n: str) -> None:
    log = tmp_path / "calls.log"
    outcome = run(_settings(model_args={"wrong": WRONG, "log": str(log), "n": n}), RunOptions(out=tmp_path / "run", quiet=True))
    lines = _lines(outcome.run_dir)
    assert sorted((line["id"], line["completion"]) for line in lines) == [(i, c) for i in ("test/0", "test/1") for c in range(3)]
    assert [r.id for r in outcome.results] == ["test/0", "test/1"] and outcome.missing == []
    calls = log.read_text().splitlines()
    if n:  # the backend draws all three in one request per sample
        assert calls == ["test/0 test/1 seed=0 n=3"]
    else:  # otherwise one call per completion index, seeded seed + index
        assert calls == [f"test/0 test/1 seed={i} n=1" for i in range(3)]
    results = json.loads((outcome.run_dir / "results.json").read_text())
    _check_pass_at_k(results)
    assert json.loads((outcome.run_dir / "config.json").read_text())["settings"]["samples"] == 3
    report = (outcome.run_dir / "report.md").read_text()
    assert "pass@3" in report and "completion 0" in report


def test_a_stopped_run_regenerates_only_the_missing_completions(tmp_path: Path) -> None:
    out, log = tmp_path / "run", tmp_path / "calls.log"
    settings = _settings(model_args={"wrong": WRONG, "log": str(log)})
    run(settings, RunOptions(out=out, quiet=True))
    kept = [
        line
        for line in (out / "samples.jsonl").read_text().splitlines()
        if not (json.loads(line)["id"] == "test/1" and json.loads(line)["completion"] > 0)
    ]
    (out / "samples.jsonl").write_text("\n".join(kept) + "\n")  # as if stopped after 1 of 3 completions of test/1
    log.unlink()
    outcome = run(settings, RunOptions(out=out, quiet=True))
    assert outcome.resumed_from == 1 and not outcome.already_complete
    assert log.read_text().splitlines() == ["test/1 seed=1 n=1", "test/1 seed=2 n=1"]
    assert len(_lines(out)) == 6 and len(read_samples(out / "samples.jsonl", every=True)) == 6
    _check_pass_at_k(json.loads((out / "results.json").read_text()))
    again = run(settings, RunOptions(out=out, quiet=True))
    assert again.already_complete


def test_failed_completions_are_retried_and_missing_until_then(tmp_path: Path) -> None:
    out, flag = tmp_path / "run", tmp_path / "fail"
    settings = _settings(model_args={"fail_while": str(flag)})
    flag.touch()  # every generation fails while the file exists
    outcome = run(settings, RunOptions(out=out, quiet=True))
    assert outcome.missing == ["test/0", "test/1"] and not (out / "samples.jsonl").exists()
    errors = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert [(e["id"], e["completion_index"]) for e in errors] == [(i, c) for c in range(3) for i in ("test/0", "test/1")]
    flag.unlink()
    outcome = run(settings, RunOptions(out=out, quiet=True))
    assert outcome.missing == [] and outcome.resumed_from == 0 and len(_lines(out)) == 6


def test_more_than_one_sample_needs_a_temperature() -> None:
    with pytest.raises(GqlbenchError, match=r"--samples 3: .*--temperature > 0"):
        _settings(temperature=0.0)


def test_one_sample_keeps_todays_files(tmp_path: Path) -> None:
    outcome = run(_settings(samples=1, temperature=0.0, model_args={}), RunOptions(out=tmp_path / "run", quiet=True))
    assert all("completion" not in line for line in _lines(outcome.run_dir))
    assert "samples" not in json.loads((outcome.run_dir / "config.json").read_text())["settings"]
    results = json.loads((outcome.run_dir / "results.json").read_text())
    assert "pass_at_k" not in results["metrics"]["overall"] and "samples" not in results["meta"]


def test_cost_latency_and_bootstrap_are_options_not_settings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    settings = _settings(samples=1, temperature=0.0, model_args={"delay": "0.01"})
    run(settings, RunOptions(out=out, quiet=True, bootstrap=200, prices=Prices(1.0, 2.0)))
    results = json.loads((out / "results.json").read_text())
    lines = _lines(out)
    tokens_in, tokens_out = sum(line["tokens_in"] for line in lines), sum(line["tokens_out"] for line in lines)
    cost, latency = results["cost"], results["latency"]
    assert (cost["prompt_tokens"], cost["completion_tokens"]) == (tokens_in, tokens_out)
    assert cost["usd"] == pytest.approx((tokens_in * 1.0 + tokens_out * 2.0) / 1e6)
    wall = json.loads((out / "config.json").read_text())["generation_wall_s"]
    assert wall >= 0.02 and latency["wall_s"] == wall and latency["per_completion_s"]["p50"] == pytest.approx(0.01)
    assert latency["samples_per_s"] == pytest.approx(2 / wall) and latency["attribution"] == "backend"
    assert results["meta"]["bootstrap"] == 200 and "Cost and latency" in (out / "report.md").read_text()
    # other prices on the same folder: resumed (already complete), never refused as other settings
    outcome = run(settings, RunOptions(out=out, quiet=True, prices=Prices(gpu_hour=36.0)))
    assert outcome.already_complete
    cost = json.loads((out / "results.json").read_text())["cost"]
    assert cost["usd"] == pytest.approx(36.0 * wall / 3600) and cost["usd_by_tokens"] is None


def test_react_draws_k_independent_trajectories(tmp_path: Path) -> None:
    outcome = run(_settings(prompt="react", samples=2, model_args={"wrong": "@1"}), RunOptions(out=tmp_path / "run", quiet=True))
    lines = {(line["id"], line["completion"]): line for line in _lines(outcome.run_dir)}
    assert sorted(lines) == [(i, c) for i in ("test/0", "test/1") for c in range(2)]
    assert all(lines[(i, 0)]["steps"] and lines[(i, 0)]["scores"]["arg_match_full"] == 1 for i in ("test/0", "test/1"))
    assert all(lines[(i, 1)]["finish_reason"] == "no_action" and lines[(i, 1)]["code"] == "" for i in ("test/0", "test/1"))
    at = json.loads((outcome.run_dir / "results.json").read_text())["metrics"]["overall"]["pass_at_k"]["arg_match_full"]
    assert at == {"1": 0.5, "2": 1.0}
