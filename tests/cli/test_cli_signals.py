"""SIGTERM and SIGINT stop a run; they are never recorded as a sample's failed generation."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.cli_process import start_gqlbench
from tests.stub_backends import STUB_RUN


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_a_backend_call_stops_the_run_without_failing_the_sample(tmp_path: Path, signum: int, status: int) -> None:
    out, calls = tmp_path / "r", tmp_path / "calls.log"
    options = ("--limit", "2", "--batch-size", "1", "--no-exec", "--out", str(out), "--model-args", f"delay=15,guarded=1,log={calls}")
    process = start_gqlbench(*STUB_RUN, *options)
    deadline = time.monotonic() + 60  # a safety net for a broken build, not a measurement
    while not calls.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # inside the backend's guarded call
    process.send_signal(signum)
    try:
        _, stderr = process.communicate(timeout=100)
    finally:
        process.kill()
    assert process.returncode == status, stderr
    assert calls.read_text().splitlines() == ["test/0"]  # the run stopped: the next sample was never asked for
    assert not (out / "errors.jsonl").exists()  # not a failed generation
    assert not (out / "results.json").exists() and not (out / "report.md").exists()  # nothing written as if complete
    assert "Traceback" not in stderr
