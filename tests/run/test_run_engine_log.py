"""A run's console: one summary line, the progress bar, the table; engine chatter in engine.log."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from gqlbench.run.engine_log import ENGINE_LOG, summary_line
from tests.cli_process import run_gqlbench, start_gqlbench
from tests.stub_backends import STUB, STUB_RUN

CHATTER = ("STUB-ENGINE stdout chatter", "STUB-ENGINE python warning", "STUB-ENGINE child stderr")


def gqlbench_run(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_gqlbench(*STUB_RUN, "--ids", "test/0", "--no-exec", "--out", str(out), *extra, timeout_s=120)


def test_engine_chatter_goes_to_the_log_not_the_console(tmp_path: Path) -> None:
    run = gqlbench_run(tmp_path / "r", "--model-args", "noise=1")
    assert run.returncode == 0, run.stderr
    console = run.stdout + run.stderr
    assert not [line for line in CHATTER if line in console], console
    log = (tmp_path / "r" / ENGINE_LOG).read_text()
    assert all(line in log for line in CHATTER), log
    summary = [line for line in run.stderr.splitlines() if line.startswith("gqlbench: ")]
    assert summary == ["gqlbench: stub engine, model stub"]
    assert "gqlbench run" in run.stderr and "| overall" in run.stdout  # progress bar, then the table


@pytest.mark.parametrize("grid", [(), ("--matrix", "prompt=cot,react")], ids=["run", "matrix"])
def test_closing_the_engine_chatters_into_the_log_too(tmp_path: Path, grid: tuple[str, ...]) -> None:
    run = gqlbench_run(tmp_path / "r", "--model-args", "noisy_close=1", *grid)
    assert run.returncode == 0, run.stderr
    assert "STUB-ENGINE shutdown" not in run.stdout + run.stderr
    logs = [path.read_text() for path in (tmp_path / "r").rglob(ENGINE_LOG)]
    assert len(logs) == (2 if grid else 1)  # a grid's engine is closed once, in the last cell that used it
    closing = [log for log in logs if "STUB-ENGINE shutdown warning" in log and "STUB-ENGINE shutdown stderr" in log]
    assert len(closing) == 1, logs
    if grid:
        assert "STUB-ENGINE shutdown" in (tmp_path / "r" / "prompt-react" / ENGINE_LOG).read_text()


def test_verbose_shows_the_chatter_live(tmp_path: Path) -> None:
    run = gqlbench_run(tmp_path / "r", "--model-args", "noise=1", "--verbose")
    assert run.returncode == 0, run.stderr
    assert all(line in run.stdout + run.stderr for line in CHATTER)


def test_an_engine_error_is_shown_with_the_log_path(tmp_path: Path) -> None:
    run = gqlbench_run(tmp_path / "r", "--model-args", "broken=1")
    assert run.returncode == 2
    assert f"stub engine failed to start (engine log: {tmp_path / 'r' / ENGINE_LOG})" in run.stderr


def test_summary_names_engine_model_dtype_device_and_why() -> None:
    vllm = {
        "backend": "vllm",
        "model_path": "/m/smollm2",
        "device": "cpu",
        "engine": {"dtype": "float32"},
        "dtype_choice": {"dtype": "float32", "reason": "CPU has avx2 but no avx512_bf16"},
    }
    assert summary_line(vllm) == "gqlbench: vllm engine, model /m/smollm2, float32 on cpu (CPU has avx2 but no avx512_bf16)"
    hf = {"backend": "hf", "model_path": "/m", "device": "cpu", "dtype": "bfloat16"}
    assert summary_line(hf) == "gqlbench: hf engine, model /m, bfloat16 on cpu"


def test_sigterm_closes_the_engine_and_keeps_finished_samples(tmp_path: Path) -> None:
    """A killed run must not leave the engine's processes running (vLLM's outlive their parent) nor lose samples."""
    out = tmp_path / "r"
    options = ("--limit", "6", "--batch-size", "1", "--no-exec", "--out", str(out), "--model-args", "delay=0.5,noisy_close=1")
    process = start_gqlbench(*STUB_RUN, *options)
    samples = out / "samples.jsonl"
    deadline = time.monotonic() + 60
    while not (samples.exists() and samples.read_text().count("\n") >= 1) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143 and "terminated (finished samples are kept" in stderr, stderr
    assert "STUB-ENGINE shutdown warning" in (out / ENGINE_LOG).read_text()  # close() ran
    lines = samples.read_text().splitlines()
    assert 1 <= len(lines) < 6 and all(json.loads(line)["id"] for line in lines)


def test_an_error_before_the_engine_said_anything_does_not_point_to_its_empty_log(tmp_path: Path) -> None:
    run = gqlbench_run(tmp_path / "r", "--backend", f"{STUB.partition(':')[0]}:NoSuchBackend")
    assert run.returncode == 2
    assert "has no 'NoSuchBackend'" in run.stderr and "engine log" not in run.stderr, run.stderr
