"""Metrics by difficulty: a generated set's results grouped by its samples' ``synthetic`` labels.

Samples made by ``gqlbench samples generate`` record how they were made
(shape, number of calls, ...); grouping their results by shape and by number
of calls shows where a model fails. Results without labels (the paper's
data) have no breakdown, so their ``results.json`` and ``report.md`` keep
the Table 2 layout unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from gqlbench.metrics import aggregate
from gqlbench.records import SampleResult

__all__ = ["BREAKDOWN_LABELS", "difficulty_breakdown", "difficulty_section"]

BREAKDOWN_LABELS = ("shape", "calls")
"""The labels results are grouped by, in report order."""


def _labels(result: SampleResult) -> Mapping[str, Any] | None:
    labels = (result.model_extra or {}).get("synthetic")
    return labels if isinstance(labels, Mapping) else None


def difficulty_breakdown(results: Sequence[SampleResult]) -> dict[str, dict[str, dict[str, Any]]] | None:
    """``{label: {value: overall metrics of the scored samples with that value}}``; None when no sample is labelled."""
    labelled = [(r, labels) for r in results if r.skipped is None and (labels := _labels(r)) is not None]
    if not labelled:
        return None
    breakdown: dict[str, dict[str, dict[str, Any]]] = {}
    for label in BREAKDOWN_LABELS:
        groups: dict[str, list[SampleResult]] = defaultdict(list)
        for result, labels in labelled:
            groups[str(labels.get(label, "?"))].append(result)
        order = sorted(groups, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v))
        breakdown[label] = {value: aggregate(groups[value])["overall"] for value in order}
    return breakdown


def difficulty_section(breakdown: Mapping[str, Mapping[str, Mapping[str, object]]] | None, fmt: str = "github") -> list[str]:
    """``report.md`` lines: one small table of the headline metrics per label (none without labels)."""
    if not breakdown:
        return []
    from gqlbench.results.files import render_table

    lines = [
        "",
        "## By difficulty (synthetic labels)",
        "",
        "The overall metrics of the samples grouped by how they were generated; "
        "a group holds fewer samples than the run, so its numbers are less certain.",
    ]
    for label, groups in breakdown.items():
        rows = {f"{value} (n={group.get('n_samples', 0)})": group for value, group in groups.items()}
        lines += ["", render_table(rows, fmt, first=label.capitalize())]
    return lines
