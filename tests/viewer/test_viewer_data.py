"""Reading run folders for the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.results.files import SAMPLES_FILE
from gqlbench.viewer.data import error_counts, error_kinds, load_run_view, passes, shared_ids


def test_an_evaluate_folder_reads_with_its_benchmark_samples(example_run: Path) -> None:
    run = load_run_view(example_run)
    assert run.label == "run"  # no config.json: the folder name
    assert len(run.results) == 32 and set(run.samples) == {r.id for r in run.results}
    assert run.samples["test/14"].utterance
    assert run.metrics["overall"]["n_samples"] == 32


def test_config_labels_the_run_and_stored_error_counts_win(awkward_run: Path) -> None:
    run = load_run_view(awkward_run)
    assert run.label == "tiny/model · react"
    assert error_counts(run)["overall"] == {"parse_error": 1, "wrong_value": 1}


def test_error_kinds_and_passes_of_awkward_samples(awkward_run: Path) -> None:
    run = load_run_view(awkward_run)
    kinds = {r.id: error_kinds(r) for r in run.results}
    assert kinds["test/0"] == ["parse_error"]
    assert kinds["test/5"] == ["wrong_value"]
    assert passes(run.results[3])["arg_match_full"] == 1
    assert passes(run.results[3])["exec_success"] is None  # not executed


def test_counted_errors_when_results_json_has_none(example_run: Path) -> None:
    counts = error_counts(load_run_view(example_run))
    assert counts["tmdb"]["parse_error"] == 2
    assert sum(counts["spotify"].values()) >= 1


def test_shared_ids_keep_the_first_runs_order(example_run: Path, awkward_run: Path) -> None:
    runs = [load_run_view(example_run), load_run_view(awkward_run)]
    assert shared_ids(runs) == [f"test/{i}" for i in range(6)]


def test_samples_are_shown_in_id_order_whatever_order_they_finished_in(example_run: Path, tmp_path: Path) -> None:
    from tests.viewer.conftest import edited_copy

    shuffled = edited_copy(example_run, tmp_path / "shuffled", samples=lambda lines: lines.reverse())
    ids = [r.id for r in load_run_view(shuffled).results]
    assert ids == [r.id for r in load_run_view(example_run).results] == sorted(ids, key=lambda i: int(i.split("/")[1]))


def test_unknown_benchmark_samples_are_shown_without_them(example_run: Path, tmp_path: Path) -> None:
    run = load_run_view(example_run, data_dir=tmp_path)  # a folder without test.jsonl
    assert run.samples == {} and len(run.results) == 32


def test_folders_that_are_not_runs_fail_with_one_line(tmp_path: Path, example_run: Path) -> None:
    with pytest.raises(GqlbenchError, match="no such run folder"):
        load_run_view(tmp_path / "nope")
    with pytest.raises(GqlbenchError, match="results.json: no such file"):
        load_run_view(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_bytes((example_run / "results.json").read_bytes())
    with pytest.raises(GqlbenchError, match="samples.jsonl: no such file"):
        load_run_view(broken)
    (broken / SAMPLES_FILE).write_text('{"id": "x", "domain": "d", "scores": {}}\n')
    with pytest.raises(GqlbenchError, match="not of the form"):
        load_run_view(broken)
