"""`gqlbench run`'s progress bar moves inside a batch: requests finished in the engine, before any sample is written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.cli import main
from tests.stub_backends import STUB_RUN


def test_the_bar_shows_requests_finished_inside_a_batch(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    args = [*STUB_RUN, "--limit", "16", "--batch-size", "16", "--no-exec", "--out", str(tmp_path / "r")]
    code = main([*args, "--model-args", "engine=1"])  # the stub finishes a batch whole, as vLLM does, telling each request
    err = capfd.readouterr().err
    assert code == 0, err
    states = re.split(r"[\r\n]", err)
    inside = [s for s in states if "| 0/16 [" in s and "batch=3/16 requests" in s]
    assert inside, err  # 3 of the batch's 16 requests done while no sample was written yet
    assert "tok/s=" in inside[0]
    assert [s for s in states if "| 16/16 [" in s and "batch=16/16 requests, generated=16/16" in s]  # the end of the run


def test_quiet_shows_no_bar(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    args = [*STUB_RUN, "--limit", "2", "--no-exec", "--quiet", "--out", str(tmp_path / "r")]
    assert main([*args, "--model-args", "engine=1"]) == 0
    assert "requests" not in capfd.readouterr().err
