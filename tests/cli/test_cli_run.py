"""`gqlbench run` from the command line, including a resume after SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from gqlbench.cli import main
from tests.cli_process import run_gqlbench, start_gqlbench
from tests.stub_backends import STUB_RUN


def _ids(run_dir: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def test_run_prints_the_report_and_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main([*STUB_RUN, "--ids", "test/0,test/20", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| overall" in out and "Arg Match (full)" in out
    assert "\ntime: " in out and "generation (" in out and " total " in out  # where the wall time went (stages under 0.05 s are left out)
    run_dir = Path(out.split("run folder: ")[1].strip())
    assert run_dir.parts[:2] == ("runs", "stub") and _ids(run_dir) == ["test/0", "test/20"]


def test_failed_generations_exit_nonzero_with_a_retry_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            *STUB_RUN,
            "--limit",
            "2",
            "--out",
            str(tmp_path / "r"),
            "--model-args",
            "fail=test/1",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "1 of 2 samples failed to generate" in err and "re-run the same command" in err


def test_split_all_runs_every_human_sample_but_the_shots_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "all"
    assert main([*STUB_RUN, "--split", "all", "--limit", "3", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "- split: `all`" in printed and "Not evaluated: the 6 few-shot examples (`--split all` leaves them out)" in printed
    ids = _ids(out)
    assert len(ids) == 3 and not set(ids) & set(json.loads((out / "config.json").read_text())["excluded_shots"])
    kept = (out / "samples.jsonl").read_text()
    assert main([*STUB_RUN, "--split", "all", "--limit", "3", "--out", str(out), "--quiet"]) == 0
    assert "already complete" in capsys.readouterr().err and (out / "samples.jsonl").read_text() == kept


def test_bad_options_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*STUB_RUN, "--split", "train", "--out", str(tmp_path / "r")]) == 2
    assert "--shots 0" in capsys.readouterr().err
    assert main(["run", "--model", "stub", "--backend", "nope_module:X", "--out", str(tmp_path / "r2"), "--limit", "1"]) == 2
    assert "cannot import" in capsys.readouterr().err


def test_shots_asked_for_with_tools_are_refused_not_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "run",
        "--model",
        "m",
        "--prompt",
        "tools",
        "--backend",
        "hf",
        "--model-args",
        "tool_parser=hermes",
        "--out",
        str(tmp_path / "r"),
        "--dry-run",
    ]
    assert main([*args, "--shots", "2"]) == 2
    err = capsys.readouterr().err
    assert "--shots 2 with --prompt tools: tool-calling examples (gold trajectories) are not built" in err and "--shots 0" in err
    assert len(err.strip().splitlines()) == 1


def test_a_killed_run_resumes_without_lost_or_duplicated_samples(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = (*STUB_RUN, "--limit", "12", "--batch-size", "2", "--model-args", "delay=0.25", "--out", str(out), "--quiet")
    process = start_gqlbench(*command)
    deadline = time.monotonic() + 60
    samples = out / "samples.jsonl"
    while time.monotonic() < deadline and (not samples.exists() or samples.read_text().count("\n") < 3):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    killed_with = _ids(out)
    assert 3 <= len(killed_with) < 12, "the run must be killed mid-way"

    resumed = run_gqlbench(*command, timeout_s=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(killed_with)} of 12 samples done" in resumed.stderr
    ids = _ids(out)
    assert ids[: len(killed_with)] == killed_with
    assert sorted(ids, key=lambda i: int(i.split("/")[1])) == [f"test/{i}" for i in range(12)]
    assert len(ids) == len(set(ids))
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"]["overall"]["n_samples"] == 12 and results["missing"] == []


def test_exec_scores_are_reported_and_no_exec_leaves_them_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = [*STUB_RUN, "--ids", "test/0,test/2", "--quiet"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert "Exec Success" in capsys.readouterr().out
    line = json.loads((tmp_path / "a" / "samples.jsonl").read_text().splitlines()[0])
    assert (line["scores"]["exec_success"], line["scores"]["exec_match"]) == (1, 1)
    assert line["explanation"]["exec"]["pred_trace"]["calls"][0]["function"] == "GET_search"
    assert main([*base, "--out", str(tmp_path / "b"), "--no-exec"]) == 0
    assert "Exec" not in capsys.readouterr().out
    metrics = json.loads((tmp_path / "b" / "results.json").read_text())["metrics"]["overall"]
    assert "exec_success" not in metrics and json.loads((tmp_path / "b" / "config.json").read_text())["settings"]["execute"] is False
