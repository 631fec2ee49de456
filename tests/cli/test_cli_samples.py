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


def test_measure_prints_a_table_or_json_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"domain": "tmdb", "utterance": "Get the cast and crew of the first of the movies.", "output": "GET_movie_popular()"},
        {"domain": "tmdb", "utterance": "Who is popular?", "output": "GET_person_popular()"},
    ]
    samples_file = tmp_path / "s.jsonl"
    samples_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["samples", "measure", str(samples_file), "--human", str(samples_file), "--json"]) == 0
    (measured,) = json.loads(capsys.readouterr().out)
    assert (measured["items"], measured["mechanical"], measured["skeletons"], measured["missing_functions"]) == (2, 0.5, 2, [])
    assert main(["samples", "measure", str(samples_file)]) == 0  # against the bundled human test split
    table = capsys.readouterr().out
    assert "| mechanical phrasing" in table and "| 50%" in table and "human test functions never called" in table
    samples_file.write_text("not json\n")
    assert main(["samples", "measure", str(samples_file)]) == 2
    assert f"{samples_file}:1: not valid JSON" in capsys.readouterr().err
