"""`gqlbench view`: run folders in, one HTML file (and chart files) out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main
from gqlbench.dataset import load_split
from tests.stub_backends import STUB_RUN

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "predictions_example.jsonl"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("view") / "run"
    assert main(["evaluate", str(EXAMPLE), "--out", str(out), "--no-exec"]) == 0
    return out


def test_writes_one_report_for_several_runs(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sub" / "report.html"
    assert main(["view", str(run_dir), str(run_dir), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and 'id="compare"' in html
    assert f"wrote {out}" in capsys.readouterr().out


def test_a_folder_that_is_not_a_run_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(tmp_path), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "results.json: no such file" in err
    assert not (tmp_path / "r.html").exists()


def test_plots_are_written_as_svg_and_png(run_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="--plots needs the optional 'plots' extra (matplotlib)")
    assert main(["view", str(run_dir), "--out", str(tmp_path / "r.html"), "--plots", str(tmp_path / "plots")]) == 0
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == ["errors-0.png", "errors-0.svg", "metrics.png", "metrics.svg"]
    assert (tmp_path / "plots" / "metrics.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (tmp_path / "plots" / "metrics.svg").read_text(encoding="utf-8")


def test_the_test_split_of_one_run_stays_under_5_mb(tmp_path: Path) -> None:
    rows = [{"id": s.id, "prediction": f"```python\n{s.gold_code}```"} for s in load_split("test")]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["evaluate", str(predictions), "--out", str(tmp_path / "run"), "--no-exec"]) == 0
    assert main(["view", str(tmp_path / "run"), "--out", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").stat().st_size < 5_000_000


def test_run_html_writes_the_report_into_the_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main([*STUB_RUN, "--ids", "test/0,test/20", "--no-exec", "--out", str(out), "--quiet", "--html"]) == 0
    assert f"html report: {out / 'report.html'}" in capsys.readouterr().out
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="r0/test/0"' in html and 'id="r0/test/20"' in html and "stub" in html
