"""results.json's finer scores, error counts and uncertainty, from the sample results.

Next to each group's Table 2 metrics (``metrics.<group>``, unchanged) this adds
the micro F1s (:mod:`gqlbench.metrics.f1`), ``errors`` (``{kind: count}``),
``stderr.<metric>`` and ``ci.<metric> = [lo, hi]`` (:mod:`gqlbench.statistics`),
and renders them in report.md. Each metric is defined per sample as a
numerator and, for ratios of sums, a denominator (:func:`sample_values`), so
intervals and paired comparisons resample whole samples.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabulate import tabulate

from gqlbench.metrics.errors import count_kinds
from gqlbench.metrics.f1 import f1_scores
from gqlbench.metrics.registry import all_metrics
from gqlbench.records import SampleResult
from gqlbench.statistics import (
    DEFAULT_RESAMPLES,
    Estimate,
    mean_estimate,
    ratio_estimate,
)

__all__ = ["F1_RATIOS", "F1_TITLES", "sample_values", "add_uncertainty", "uncertainty_section", "with_ci"]

Fraction = Callable[[SampleResult], "tuple[float, float] | None"]


def _counts(result: SampleResult, kind: str) -> tuple[int, int, int] | None:
    counts = (result.explanation.get("f1_counts") or {}).get(kind)
    return tuple(counts) if counts is not None else None


def _f1_part(kind: str, part: str) -> Fraction:
    def fraction(result: SampleResult) -> tuple[float, float] | None:
        counts = _counts(result, kind)
        if counts is None:
            return None
        tp, fp, fn = counts
        if part == "precision":
            return tp, tp + fp
        if part == "recall":
            return tp, tp + fn
        return 2 * tp, 2 * tp + fp + fn

    return fraction


F1_RATIOS: dict[str, Fraction] = {
    "dataflow_f1": _f1_part("dataflow", "f1"),
    "dataflow_precision": _f1_part("dataflow", "precision"),
    "dataflow_recall": _f1_part("dataflow", "recall"),
    "function_f1": _f1_part("function", "f1"),
    "argument_f1": _f1_part("argument", "f1"),
}
"""The micro F1s as ratios of sums: per sample a (numerator, denominator); the split's value is sum / sum."""


F1_TITLES: dict[str, str] = {
    "dataflow_f1": "Dataflow F1",
    "dataflow_precision": "Dataflow precision",
    "dataflow_recall": "Dataflow recall",
    "function_f1": "Function F1",
    "argument_f1": "Argument F1",
}


def sample_values(results: Sequence[SampleResult]) -> dict[str, dict[str, tuple[float, float | None]]]:
    """``{metric: {sample id: (value or numerator, denominator or None)}}`` for the scored samples."""
    values: dict[str, dict[str, tuple[float, float | None]]] = {}
    metrics = list(all_metrics())
    for result in results:
        if result.skipped is not None:
            continue
        scores = result.scores.model_dump()
        for metric in metrics:  # the registry says how each metric aggregates: a mean, or a ratio of two fields
            if metric.aggregation == "mean":
                value = scores.get(metric.name)
                if value is not None:
                    values.setdefault(metric.name, {})[result.id] = (float(value), None)
            else:
                numerator, denominator = (scores.get(f) for f in metric.score_fields)
                if numerator is not None and denominator is not None:
                    values.setdefault(metric.name, {})[result.id] = (float(numerator), float(denominator))
        for name, fraction in F1_RATIOS.items():
            part = fraction(result)
            if part is not None:
                values.setdefault(name, {})[result.id] = (float(part[0]), float(part[1]))
    return values


def _estimate(pairs: Sequence[tuple[float, float | None]], resamples: int, seed: int) -> Estimate:
    if pairs and pairs[0][1] is not None:
        return ratio_estimate([p[0] for p in pairs], [p[1] for p in pairs], resamples, seed)  # type: ignore[misc]
    return mean_estimate([p[0] for p in pairs], resamples, seed)


def _group_extras(results: Sequence[SampleResult], resamples: int, seed: int) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    with_counts = [r.explanation["f1_counts"] for r in results if r.explanation.get("f1_counts")]
    if with_counts:
        extras.update(f1_scores(with_counts))
    extras["errors"] = count_kinds([e for r in results for e in r.explanation.get("errors") or ()])
    if not resamples:
        return extras
    stderr, ci = {}, {}
    for name, by_id in sample_values(results).items():
        estimate = _estimate(list(by_id.values()), resamples, seed)
        stderr[name] = estimate.stderr
        ci[name] = list(estimate.ci) if estimate.ci is not None else None
    extras["stderr"], extras["ci"] = stderr, ci
    return extras


def add_uncertainty(
    metrics: Mapping[str, Mapping[str, Any]], results: Sequence[SampleResult], resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """``metrics`` (from :func:`gqlbench.metrics.aggregate`) with F1s, error counts, stderr and ci per group.

    ``resamples=0`` adds the F1s and error counts only.
    """
    scored = [r for r in results if r.skipped is None]
    out: dict[str, dict[str, Any]] = {}
    for group, summary in metrics.items():
        members = scored if group == "overall" else [r for r in scored if r.domain == group]
        out[group] = {**summary, **_group_extras(members, resamples, seed)}
    return out


def with_ci(value: object, interval: object) -> str:
    """``0.7188 [0.55, 0.86]``, or the value alone without an interval, ``-`` without a value."""
    if not isinstance(value, (int, float)):
        return "-"
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        return f"{value:.4f} [{interval[0]:.2f}, {interval[1]:.2f}]"
    return f"{value:.4f}"


def uncertainty_section(metrics: Mapping[str, Mapping[str, Any]], titles: Mapping[str, str]) -> list[str]:
    """report.md lines: every metric with its 95% interval, then the error counts per domain."""
    groups = {name: group for name, group in metrics.items() if "ci" in group}
    if not groups:
        return []
    titles = {**titles, **F1_TITLES}
    names = [m for m in titles if any(m in g.get("ci", {}) or m in g for g in groups.values() if g.get(m) is not None)]
    rows = [[titles.get(m, m), *(with_ci(g.get(m), g.get("ci", {}).get(m)) for g in groups.values())] for m in names]
    lines = ["", "## With 95% intervals", "", "Bootstrap over samples (percentile; ratios of sums resampled by sample).", ""]
    lines.append(tabulate(rows, headers=["Metric", *groups], tablefmt="github", disable_numparse=True))
    kinds = list(dict.fromkeys(k for g in groups.values() for k in g.get("errors", {})))
    lines += ["", "## Errors by kind", ""]
    if not kinds:
        return [*lines, "No errors."]
    rows = [[k, *(g.get("errors", {}).get(k, 0) for g in groups.values())] for k in kinds]
    lines.append(tabulate(rows, headers=["Kind", *groups], tablefmt="github"))
    lines += ["", "Kinds are defined in docs/errors.md; each sample's errors are in samples.jsonl (explanation.errors)."]
    return lines
