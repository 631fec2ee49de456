"""``gqlbench samples generate`` writes a split that ``gqlbench evaluate`` reads, and its gold scores 1.0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gqlbench.cli import cli, main
from gqlbench.dataset import load_split


def test_generate_writes_a_split_whose_gold_scores_one_when_evaluated(tmp_path: Path) -> None:
    out = tmp_path / "data" / "test.jsonl"
    out.parent.mkdir()
    result = CliRunner().invoke(cli, ["samples", "generate", "tmdb", "--n", "6", "--seed", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "tmdb: 6 verified samples" in result.output
    samples = load_split("test", out.parent)  # the "synthetic" labels do not stop the loader
    assert len(samples) == 6 and all(s.function_specs for s in samples)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": s.id, "prediction": s.gold_code}) + "\n" for s in samples))
    scored = CliRunner().invoke(
        cli, ["evaluate", str(predictions), "--data", str(out.parent), "--bootstrap", "0", "--out", str(tmp_path / "scored")]
    )  # with execution: gold runs as predictions
    assert scored.exit_code == 0, scored.output
    overall = json.loads((tmp_path / "scored" / "results.json").read_text())["metrics"]["overall"]
    assert (overall["arg_match_full"], overall["seq_match_full"], overall["exec_success"], overall["exec_match"]) == (1.0, 1.0, 1.0, 1.0)


def test_generate_does_not_overwrite_a_file_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "test.jsonl"
    out.write_text("mine\n")
    assert main(["samples", "generate", "tmdb", "--n", "1", "--out", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == "mine\n"


def test_an_unknown_shape_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples", "generate", "tmdb", "--n", "1", "--shapes", "loop", "--out", str(tmp_path / "t.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "unknown shape(s) loop" in err and "Traceback" not in err


def test_an_unknown_domain_or_no_samples_asked_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples", "generate", "nosuch", "--n", "1", "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "unknown domain 'nosuch'" in capsys.readouterr().err
    assert main(["samples", "generate", "tmdb", "--n", "0", "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "--n must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "t.jsonl").exists()
