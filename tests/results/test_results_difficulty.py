"""Metrics by difficulty: only results of labelled (generated) samples get a breakdown, by shape and by calls."""

from __future__ import annotations

import json
from pathlib import Path

from gqlbench.dataset import default_data_dir
from gqlbench.results.difficulty import difficulty_breakdown
from gqlbench.results.files import render_report, results_document, write_run
from gqlbench.scoring.evaluation import evaluate_predictions

LINES = [
    ('GET_search(q="Adele", type="artist")', {"shape": "single", "calls": 1}),
    ('r = GET_search(q="Adele", type="artist")\nGET_artists__id_(id=r.artists.items[0].id)', {"shape": "chain", "calls": 2}),
    ('r = GET_search(q="Muse", type="artist")\nGET_artists__id_(id=r.artists.items[0].id)', {"shape": "chain", "calls": 2}),
    ("GET_search(q=", {"shape": "chain", "calls": 2}),  # a gold that does not parse: skipped, in no group
]


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "made"
    folder.mkdir()
    rows = [
        {"domain": "spotify", "utterance": f"u{i}", "output": code, "synthetic": {**labels, "edges": 0, "depth": 1, "seed": 0}}
        for i, (code, labels) in enumerate(LINES)
    ]
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def _predictions(tmp_path: Path, answers: dict[str, str]) -> Path:
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps({"id": i, "prediction": text}) + "\n" for i, text in answers.items()))
    return path


def test_labelled_results_are_grouped_by_shape_and_calls_without_the_skipped(tmp_path: Path) -> None:
    answers = {"test/0": LINES[0][0], "test/1": LINES[1][0], "test/2": "print('no calls')"}
    evaluation = evaluate_predictions(_predictions(tmp_path, answers), _folder(tmp_path), execute=False)
    breakdown = difficulty_breakdown(evaluation.results)
    assert breakdown is not None and list(breakdown) == ["shape", "calls"]
    assert {k: g["n_samples"] for k, g in breakdown["shape"].items()} == {"chain": 2, "single": 1}
    assert list(breakdown["calls"]) == ["1", "2"]
    assert breakdown["shape"]["single"]["arg_match_full"] == 1.0 and breakdown["shape"]["chain"]["arg_match_full"] == 0.5
    assert breakdown["calls"]["2"] == breakdown["shape"]["chain"]


def test_the_labels_reach_samples_json_results_json_and_the_report(tmp_path: Path) -> None:
    evaluation = evaluate_predictions(_predictions(tmp_path, {"test/0": LINES[0][0]}), _folder(tmp_path), execute=False)
    document = write_run(tmp_path / "run", evaluation.results, evaluation.missing)
    first = json.loads((tmp_path / "run" / "samples.jsonl").read_text().splitlines()[0])
    assert first["synthetic"]["shape"] == "single"
    assert json.loads((tmp_path / "run" / "results.json").read_text())["difficulty"]["shape"]["single"]["n_samples"] == 1
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## By difficulty" in report and "| single (n=1)" in report and "| 2 (n=2)" in report
    assert document.difficulty is not None


def test_the_papers_data_has_no_breakdown_and_its_files_keep_their_keys(tmp_path: Path) -> None:
    evaluation = evaluate_predictions(_predictions(tmp_path, {"test/0": "x = 1"}), default_data_dir(), execute=False)
    assert "synthetic" not in evaluation.results[0].model_dump()
    document = results_document(evaluation.results, evaluation.missing)
    assert document.difficulty is None and "difficulty" not in document.model_dump()
    assert "By difficulty" not in render_report(document)
