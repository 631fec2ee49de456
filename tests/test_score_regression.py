"""Every existing score is unchanged: saved runs re-scored by today's code give the same files.

The runs in ``tests/data/regression`` were written by the code before the
metric registry (see its README). Re-scoring their predictions must give the
same per-sample lines (scores, skipped, explanations, traces; only timings
differ), the same results.json (keys in the same order, values equal to the
last bit) and the same report.md table. What later issues added (the error
taxonomy and F1 counts per sample, the F1s, error counts, intervals and
their method (ci_method) per group, the report's interval section) comes
after the saved keys and is named here; a metric registered since (a new
built-in) adds its own score fields, keys and column, which leave every saved
one as it was; nothing else may appear. The
execution traces themselves (ids, world digests) depend on the mock worlds,
which are now built from data, so execution is compared through its scores,
not trace by trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gqlbench.cli import main
from gqlbench.metrics import all_metrics

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "regression"
ADDED_EXPLANATION = {"errors", "f1_counts"}
ADDED_METRICS = {
    "dataflow_f1",
    "dataflow_precision",
    "dataflow_recall",
    "function_f1",
    "argument_f1",
    "errors",
    "stderr",
    "ci",
    "ci_method",
}

RUNS = {
    "test-exec": ["evaluate", str(FIXTURE / "predictions.jsonl")],
    "test-noexec": ["evaluate", str(FIXTURE / "predictions.jsonl"), "--no-exec"],
    "library-exec": ["evaluate", str(FIXTURE / "library_predictions.jsonl"), "--data", str(ROOT / "data" / "library")],
}


def _untimed(value: Any) -> Any:
    """``value`` without its wall-clock timings, the one thing two runs may not share."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "elapsed_s"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _lines(path: Path) -> list[dict[str, Any]]:
    return [_untimed(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _timed_out(samples: Path) -> list[str]:
    """Samples where the sandbox stopped a program for its wall clock (a loaded machine, not a score change)."""
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        line["id"]
        for line in lines
        for trace in ("gold_trace", "pred_trace")
        if ((line["explanation"].get("exec", {}).get(trace) or {}).get("error") or {}).get("kind") == "timeout"
    ]


def _table(report: str) -> tuple[dict[str, list[str]], str]:
    """report.md's table as ``{column: cells}``, and its text up to the run metadata (a timestamp and the command's paths)."""
    text = report.split("\nRun:\n")[0].split("\n## With 95% intervals")[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("|")]
    columns = {title: [row[i] for row in rows[2:]] for i, title in enumerate(rows[0])}
    return columns, "\n".join(line for line in text.splitlines() if not line.startswith("|"))


def _registered_since(saved: set[str]) -> set[str]:
    """What the metrics registered after a saved run add to its files: score fields, results.json keys, titles."""
    added = set()
    for metric in all_metrics():
        if metric.name not in saved and not set(metric.score_fields) & saved:
            added |= {metric.name, f"n_{metric.name}", metric.title, *metric.score_fields}
            added |= {f"n_{field}" for field in metric.score_fields}
    return added


@pytest.mark.parametrize("name", list(RUNS))
def test_rescoring_a_saved_run_gives_identical_files(name: str, tmp_path: Path) -> None:
    saved = FIXTURE / name
    out = tmp_path / name
    for _ in range(2):  # once more when the machine was too loaded for the sandbox's wall clock
        assert main([*RUNS[name], "--out", str(out), "--overwrite"]) == 0
        if not _timed_out(out / "samples.jsonl"):
            break
    else:
        pytest.fail(f"programs hit the sandbox's wall clock in two runs ({_timed_out(out / 'samples.jsonl')}); rerun on a quieter machine")

    before, after = _lines(saved / "samples.jsonl"), _lines(out / "samples.jsonl")
    assert [r["id"] for r in after] == [r["id"] for r in before]
    new_metrics = _registered_since({k for line in before for k in line["scores"]})
    for old, new in zip(before, after, strict=True):
        assert [(k, v) for k, v in new["scores"].items() if k in old["scores"]] == list(old["scores"].items()), old["id"]
        assert set(new["scores"]) - set(old["scores"]) <= new_metrics, old["id"]
        new["scores"] = {k: v for k, v in new["scores"].items() if k in old["scores"]}
        added = set(new["explanation"]) - set(old["explanation"])
        assert added <= ADDED_EXPLANATION, (old["id"], added)
        new["explanation"] = {k: v for k, v in new["explanation"].items() if k not in added and k != "exec"}
        old["explanation"] = {k: v for k, v in old["explanation"].items() if k != "exec"}
        assert new == old, old["id"]

    old_doc = json.loads((saved / "results.json").read_text(encoding="utf-8"))
    new_doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert list(new_doc) == list(old_doc)
    for group, metrics in old_doc["metrics"].items():
        kept = [(k, v) for k, v in new_doc["metrics"][group].items() if k in metrics]
        assert kept == list(metrics.items()), group  # every saved key, in its order, with its value
        added = [k for k in new_doc["metrics"][group] if k not in metrics]
        assert set(added) <= ADDED_METRICS | new_metrics, group
    assert list(new_doc["metrics"]) == list(old_doc["metrics"])
    assert new_doc["skipped"] == old_doc["skipped"] and new_doc["missing"] == old_doc["missing"]
    assert [k for k in new_doc["meta"] if k != "bootstrap"] == list(old_doc["meta"])  # + the intervals' resamples

    new_columns, new_text = _table((out / "report.md").read_text(encoding="utf-8"))
    old_columns, old_text = _table((saved / "report.md").read_text(encoding="utf-8"))
    assert new_text == old_text
    assert {title: new_columns.get(title) for title in old_columns} == old_columns
    assert [t for t in new_columns if t in old_columns] == list(old_columns)  # in the same order
    assert set(new_columns) - set(old_columns) <= new_metrics


@pytest.mark.parametrize("split", ["train", "test"])
def test_library_gold_scores_one_on_every_table2_metric(split: str) -> None:
    """The bundled graphqlrestbench splits are checked in tests/metrics; the library domain here."""
    from gqlbench.dataset import load_split
    from gqlbench.metrics import aggregate, score_sample

    results = [score_sample(s, s.gold_code) for s in load_split(split, ROOT / "data" / "library")]
    for group in aggregate(results).values():
        assert [group[m] for m in ("arg_match_full", "arg_match_functions", "seq_match_full", "seq_match_conn")] == [1.0] * 4
