"""`gqlbench report`: one table across run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "predictions_example.jsonl"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    example, empty = root / "example-run", root / "empty-run"
    (root / "empty.jsonl").write_text("")
    assert main(["evaluate", str(EXAMPLE), "--out", str(example)]) == 0
    assert main(["evaluate", str(root / "empty.jsonl"), "--out", str(empty)]) == 0
    (example / "config.json").write_text(json.dumps({"model": "hand-written", "prompt": "cot", "split": "test"}))
    return example, empty


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_one_table_across_runs(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", *map(str, runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[0])[:5] == ["Model", "Prompt", "Split", "Domain", "Arg Match (full)"]
    assert cells(lines[2])[:4] == ["hand-written", "cot", "test", "overall"]
    assert cells(lines[5])[:4] == ["empty-run", "-", "test", "overall"]  # no config.json: folder name
    assert cells(lines[5])[4:] == ["0.0000"] * 6  # four paper metrics, Exec Success, Exec Match
    assert len(lines) == 2 + 3 + 3


def test_table2_keeps_the_papers_columns_only(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", "--table2", *map(str, runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[0])[4:] == ["Arg Match (full)", "Arg Match (functions)", "Seq Match (full)", "Seq Match (connected subsequences)"]
    assert cells(lines[5])[4:] == ["0.0000"] * 4


def test_latex_format(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", "--format", "latex_booktabs", str(runs[0])]) == 0
    assert "\\toprule" in capsys.readouterr().out


def test_folder_without_results_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "results.json: no such file" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err


def test_needs_at_least_one_run() -> None:
    assert main(["report"]) == 2


def test_lone_surrogate_escapes_in_run_files_are_printed_replaced(runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "odd-run"
    run.mkdir()
    document = json.loads((runs[1] / "results.json").read_text())
    document["metrics"]["sp\ud800tify"] = document["metrics"].pop("spotify")
    (run / "results.json").write_text(json.dumps(document), encoding="ascii")  # written as "\ud800" escapes
    (run / "config.json").write_bytes(b'\xef\xbb\xbf{"model": "m\\udc00", "prompt": "cot"}')
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert cells(lines[2])[:4] == ["m\ufffd", "cot", "test", "overall"]
    assert [cells(line)[3] for line in lines[3:]] == ["tmdb", "sp\ufffdtify"]
