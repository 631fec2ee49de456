"""Run folders read back for reports: labels from config.json or the folder name, and the table across runs."""

from __future__ import annotations

import json
from pathlib import Path

from gqlbench.records import SampleResult, Scores
from gqlbench.results.files import write_run
from gqlbench.results.summary import load_run, render_comparison, setting_columns

RESULTS = [
    SampleResult(
        id="test/0", domain="spotify", scores=Scores(arg_match_full=1, matched_calls=2, gold_calls=2, seq_match_full=1, seq_match_conn=1)
    ),
    SampleResult(id="test/1", domain="tmdb", scores=Scores(matched_calls=1, gold_calls=3)),
]


def test_runs_are_labelled_by_config_or_folder_name(tmp_path: Path) -> None:
    labelled, bare = tmp_path / "a", tmp_path / "b"
    write_run(labelled, RESULTS)
    write_run(bare, RESULTS, meta={"splits": ["test"]})
    (labelled / "config.json").write_text(json.dumps({"model": "SmolLM2-135M", "prompt": "cot", "split": "test"}))
    runs = [load_run(labelled), load_run(bare)]
    assert [(r.model, r.prompt, r.split) for r in runs] == [("SmolLM2-135M", "cot", "test"), ("b", "-", "test")]
    table = render_comparison(runs).splitlines()
    assert [c.strip() for c in table[2].strip("|").split("|")][:4] == ["SmolLM2-135M", "cot", "test", "overall"]
    assert [c.strip() for c in table[3].strip("|").split("|")][:4] == ["", "", "", "spotify"]
    assert len(table) == 2 + 3 + 3


def test_an_evaluate_folder_is_named_after_the_predictions_it_scored(tmp_path: Path) -> None:
    from gqlbench.cli import main

    predictions = tmp_path / "smollm2-cot.jsonl"
    predictions.write_text(json.dumps({"id": "test/8", "prediction": "GET_me()"}) + "\n")
    assert main(["evaluate", str(predictions), "--no-exec", "--bootstrap", "0", "--out", str(tmp_path / "results")]) == 0
    assert load_run(tmp_path / "results").model == "smollm2-cot.jsonl"  # not "results", the folder


def test_a_setting_column_appears_only_when_some_run_changed_it(tmp_path: Path) -> None:
    paper, changed = tmp_path / "a", tmp_path / "b"
    for folder, settings in ((paper, {}), (changed, {"obfuscate": "names"})):
        write_run(folder, RESULTS)
        (folder / "config.json").write_text(json.dumps({"model": "m", "prompt": "cot", "split": "test", "settings": settings}))
    assert setting_columns([load_run(paper)]) == []
    runs = [load_run(paper), load_run(changed)]
    assert setting_columns(runs) == ["obfuscate"]
    header = [c.strip() for c in render_comparison(runs).splitlines()[0].strip("|").split("|")]
    assert header[:5] == ["Model", "Prompt", "Split", "Obfuscate", "Domain"]
