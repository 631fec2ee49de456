"""`gqlbench run --samples 3` end to end on the stub backend, then `gqlbench report` with prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from tests.stub_backends import STUB_RUN


def test_run_with_three_samples_then_report_with_prices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(
        [
            *STUB_RUN,
            "--limit",
            "3",
            "--samples",
            "3",
            "--temperature",
            "0.7",
            "--model-args",
            "wrong=@2",
            "--out",
            str(out),
            "--bootstrap",
            "300",
            "--price-in",
            "1",
            "--price-out",
            "4",
            "--quiet",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "pass@3" in printed and "Cost and latency" in printed and "completion 0" in printed
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert sorted((line["id"], line["completion"]) for line in lines) == [(f"test/{i}", c) for i in range(3) for c in range(3)]
    results = json.loads((out / "results.json").read_text())
    overall = results["metrics"]["overall"]
    assert overall["arg_match_full"] == 1.0  # completion 0 (seed 0) is right everywhere
    assert overall["pass_at_k"]["arg_match_full"] == pytest.approx({"1": 2 / 3, "2": 1.0, "3": 1.0})
    assert overall["pass_hat_k"]["arg_match_full"] == pytest.approx({"1": 2 / 3, "2": 1 / 3, "3": 0.0})
    assert "exec_match" in overall["pass_at_k"] and results["meta"]["bootstrap"] == 300
    tokens_in, tokens_out = results["cost"]["prompt_tokens"], results["cost"]["completion_tokens"]
    assert results["cost"]["usd"] == pytest.approx((tokens_in + 4 * tokens_out) / 1e6)

    assert main(["report", str(out), "--price-in", "2", "--json", str(tmp_path / "r.json")]) == 0
    printed = capsys.readouterr().out
    assert "Cost and latency" in printed and "Out tok/s" in printed
    usage = json.loads((tmp_path / "r.json").read_text())["usage"][0]
    assert usage["cost"]["usd"] == pytest.approx(2 * tokens_in / 1e6)  # the report's prices, not the run's


def test_samples_without_temperature_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*STUB_RUN, "--limit", "1", "--samples", "2", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--temperature > 0" in err
