"""Options several commands share are declared once: the same bounds, default and help everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from gqlbench.cli import main
from gqlbench.cli.evaluate import evaluate
from gqlbench.cli.run import run
from tests.stub_backends import STUB_RUN


def _option(command: click.Command, name: str) -> click.Option:
    return next(p for p in command.params if isinstance(p, click.Option) and name in p.opts)


def test_run_and_evaluate_take_the_same_bootstrap_option() -> None:
    """It was declared twice: run refused 0 (no intervals), which evaluate accepted."""
    ours, theirs = _option(run, "--bootstrap"), _option(evaluate, "--bootstrap")
    assert (ours.type, ours.default, ours.help) == (theirs.type, theirs.default, theirs.help)


def test_a_run_with_bootstrap_0_has_no_intervals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = [*STUB_RUN, "--ids", "test/2,test/20", "--no-exec", "--quiet", "--out", str(out)]
    assert main([*args, "--bootstrap", "0"]) == 0, capsys.readouterr().err
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert document["meta"]["bootstrap"] == 0 and "ci" not in document["metrics"]["overall"]
