"""Scoring a predictions file as a library call: nothing written, nothing printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.dataset import default_data_dir, load_split
from gqlbench.errors import GqlbenchError
from gqlbench.scoring.evaluation import Prediction, choose_splits, evaluate_predictions, read_predictions, score_predictions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "predictions_example.jsonl"


def test_evaluating_a_file_returns_every_sample_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    evaluation = evaluate_predictions(EXAMPLE, execute=False)
    assert evaluation.splits == ["test"] and evaluation.data_dir == default_data_dir()
    assert [r.id for r in evaluation.results] == [s.id for s in load_split("test")] == list(evaluation.samples)
    predicted = {p.id for p in evaluation.predictions}
    assert set(evaluation.missing) == set(evaluation.samples) - predicted
    assert evaluation.ids_with("parse_error") and set(evaluation.ids_with("parse_error")) <= predicted
    assert evaluation.ids_with("too_large") == [] and evaluation.domains_not_run == []
    assert all(r.scores.exec_success is None for r in evaluation.results)
    assert list(tmp_path.iterdir()) == [] and capsys.readouterr() == ("", "")


def test_splits_come_from_the_ids_or_the_option(tmp_path: Path) -> None:
    data = default_data_dir()
    rows = [Prediction("test/1", "", {}, 1), Prediction("valid/2", "", {}, 2)]
    assert choose_splits(rows, tmp_path / "p.jsonl", data) == ["valid", "test"]
    assert choose_splits([], tmp_path / "p.jsonl", data) == ["test"]
    assert choose_splits(rows[:1], tmp_path / "p.jsonl", data, ["test", "valid"]) == ["test", "valid"]
    with pytest.raises(GqlbenchError, match=r"p.jsonl:2: 'valid/2' is not in --split test"):
        choose_splits(rows, tmp_path / "p.jsonl", data, ["test"])


def test_other_fields_are_carried_and_renamed_on_a_clash(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "test/8", "prediction": "GET_me()", "model": "m", "scores": 3}) + "\n")
    (prediction,) = read_predictions(path)
    assert prediction == Prediction("test/8", "GET_me()", {"model": "m", "scores": 3}, 1)
    sample = load_split("test")[8]
    results, missing = score_predictions([prediction], {sample.id: sample})
    assert missing == [] and results[0].model_extra == {"prediction": "GET_me()", "model": "m", "input_scores": 3}


def test_execution_is_wired_to_the_sandbox() -> None:
    sample = load_split("test")[12]
    samples = {sample.id: sample}
    (ran,), _ = score_predictions([Prediction(sample.id, sample.gold_code, {}, 1)], samples, execute=True)
    assert (ran.scores.exec_success, ran.scores.exec_match) == (1, 1)
    (absent,), missing = score_predictions([], samples, execute=True)
    assert missing == [sample.id] and (absent.scores.exec_success, absent.scores.exec_match) == (0, 0)
