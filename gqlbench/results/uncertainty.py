"""results.json's error counts and uncertainty, from the sample results.

Next to each group's registered metrics (``metrics.<group>`` from
:func:`gqlbench.metrics.aggregate`, the finer F1 scores among them) this adds
``errors`` (``{kind: count}`` of root causes), ``stderr.<metric>``,
``ci.<metric> = [lo, hi]`` and ``ci_method.<metric>`` (which interval:
:mod:`gqlbench.results.statistics`), and renders them in report.md. Each metric is defined per sample as a
numerator and, for ratios of sums, a denominator (:func:`sample_values`), so
intervals and paired comparisons resample whole samples; when results carry a
``cluster`` (a generated set's program skeleton, set when scoring), a run's
intervals resample whole clusters instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tabulate import tabulate

from gqlbench.metrics.errors import count_kinds
from gqlbench.metrics.registry import all_metrics
from gqlbench.records import SampleResult
from gqlbench.results.statistics import (
    DEFAULT_RESAMPLES,
    Estimate,
    cluster_estimate,
    mean_estimate,
    ratio_estimate,
)

__all__ = ["sample_values", "add_uncertainty", "uncertainty_section", "with_ci"]


def sample_values(results: Sequence[SampleResult]) -> dict[str, dict[str, tuple[float, float | None]]]:
    """``{metric: {sample id: (value or numerator, denominator or None)}}`` for the scored samples.

    The registry says how each metric aggregates: a mean of values, or a ratio
    of sums whose per-sample ``(numerator, denominator)`` is resampled together.
    """
    values: dict[str, dict[str, tuple[float, float | None]]] = {}
    metrics = list(all_metrics())
    for result in results:
        if result.skipped is not None:
            continue
        scores = result.scores.model_dump()
        for metric in metrics:
            value = metric.stored(scores, result.explanation)
            if value is None:
                continue
            if isinstance(value, tuple):
                numerator, denominator = metric.ratio_of(value)
                values.setdefault(metric.name, {})[result.id] = (float(numerator), float(denominator))
            else:
                values.setdefault(metric.name, {})[result.id] = (float(value), None)
    return values


def _estimate(by_id: Mapping[str, tuple[float, float | None]], clusters: Mapping[str, str], resamples: int, seed: int) -> Estimate:
    """Resampled by sample, or by cluster when some samples share one (:func:`cluster_estimate`)."""
    pairs = list(by_id.values())
    ratio = bool(pairs) and pairs[0][1] is not None
    values, denominators = [p[0] for p in pairs], ([p[1] or 0.0 for p in pairs] if ratio else None)
    if clusters:
        return cluster_estimate(values, denominators, [clusters.get(i) for i in by_id], resamples, seed)
    if denominators is not None:
        return ratio_estimate(values, denominators, resamples, seed)
    return mean_estimate(values, resamples, seed)


def _group_extras(results: Sequence[SampleResult], resamples: int, seed: int) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    extras["errors"] = count_kinds([e for r in results for e in r.explanation.error_list()])
    if not resamples:
        return extras
    stderr, ci, method = {}, {}, {}
    clusters = {r.id: r.cluster for r in results if r.cluster is not None}
    for name, by_id in sample_values(results).items():
        estimate = _estimate(by_id, clusters, resamples, seed)
        stderr[name] = estimate.stderr
        ci[name] = list(estimate.ci) if estimate.ci is not None else None
        method[name] = estimate.method
    extras["stderr"], extras["ci"], extras["ci_method"] = stderr, ci, method
    return extras


def add_uncertainty(
    metrics: Mapping[str, Mapping[str, Any]], results: Sequence[SampleResult], resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """``metrics`` (from :func:`gqlbench.metrics.aggregate`) with error counts, stderr and ci per group.

    ``resamples=0`` adds the error counts only.
    """
    scored = [r for r in results if r.skipped is None]
    out: dict[str, dict[str, Any]] = {}
    for group, summary in metrics.items():
        members = scored if group == "overall" else [r for r in scored if r.domain == group]
        out[group] = {**summary, **_group_extras(members, resamples, seed)}
    return out


def with_ci(value: object, interval: object) -> str:
    """``0.7188 [0.55, 0.84]`` (23 of 32), or the value alone without an interval, ``-`` without a value."""
    if not isinstance(value, (int, float)):
        return "-"
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        return f"{value:.4f} [{interval[0]:.2f}, {interval[1]:.2f}]"
    return f"{value:.4f}"


NO_INTERVAL_NOTE = (
    "(n=1): the value is a mean over one sample of the group, so it has no interval (a bootstrap of one value "
    "is that value); Exec Match counts only the samples whose gold program runs in the mock world."
)


def _without_interval(group: Mapping[str, Any], metric: str) -> bool:
    """A value with no interval because its metric had fewer than two samples (e.g. one gold program that runs)."""
    n = group.get(f"n_{metric}", group.get("n_samples"))  # optional metrics count their own samples
    return isinstance(group.get(metric), (int, float)) and group.get("ci", {}).get(metric) is None and n == 1


def _cell(group: Mapping[str, Any], metric: str) -> str:
    text = with_ci(group.get(metric), group.get("ci", {}).get(metric))
    return f"{text} (n=1)" if _without_interval(group, metric) else text


METHODS = {
    "wilson": "Wilson score interval (0/1 per sample)",
    "bca_bootstrap": "BCa bootstrap over samples (ratios of sums resampled by sample)",
    "percentile_bootstrap": "percentile bootstrap over samples (BCa undefined)",
    "wilson_samples": "Wilson over samples (every sample has the same value, 0 or 1; a bootstrap would have zero width)",
    "cluster_bca_bootstrap": "BCa bootstrap over clusters (samples sharing a program skeleton resampled together)",
    "cluster_percentile_bootstrap": "percentile bootstrap over clusters (BCa undefined)",
    "wilson_clusters": "Wilson over clusters (every cluster has the same value, 0 or 1)",
    "none": "no interval",
}


METHODS_INTRO = "Intervals by metric (a metric can have another method in a group where all its samples are equal):"


def _methods_line(groups: Iterable[Mapping[str, Any]], titles: Mapping[str, str]) -> list[str]:
    """Which interval each metric has (``ci_method``): one line per method, naming its metrics."""
    used: dict[str, list[str]] = {}
    for group in groups:
        for metric, method in (group.get("ci_method") or {}).items():
            if metric not in used.setdefault(method, []):
                used[method].append(metric)
    if not used:  # a results.json written before ci_method
        return ["Bootstrap over samples (percentile; ratios of sums resampled by sample)."]
    return [f"- {METHODS.get(m, m)}: {', '.join(titles.get(x, x) for x in names)}" for m, names in used.items() if m != "none"]


def uncertainty_section(metrics: Mapping[str, Mapping[str, Any]], titles: Mapping[str, str]) -> list[str]:
    """report.md lines: every metric with its 95% interval, then the error counts per domain."""
    groups = {name: group for name, group in metrics.items() if "ci" in group}
    if not groups:
        return []
    names = [m for m in titles if any(m in g.get("ci", {}) or m in g for g in groups.values() if g.get(m) is not None)]
    rows = [[titles.get(m, m), *(_cell(g, m) for g in groups.values())] for m in names]
    lines = ["", "## With 95% intervals", "", METHODS_INTRO, "", *_methods_line(groups.values(), titles), ""]
    lines.append(tabulate(rows, headers=["Metric", *groups], tablefmt="github", disable_numparse=True))
    if any(_without_interval(g, m) for g in groups.values() for m in names):
        lines += ["", NO_INTERVAL_NOTE]
    kinds = list(dict.fromkeys(k for g in groups.values() for k in g.get("errors", {})))
    lines += ["", "## Errors by kind", ""]
    if not kinds:
        return [*lines, "No errors."]
    rows = [[k, *(g.get("errors", {}).get(k, 0) for g in groups.values())] for k in kinds]
    lines.append(tabulate(rows, headers=["Kind", *groups], tablefmt="github"))
    lines += ["", "Kinds are defined in docs/errors.md; each sample's errors are in samples.jsonl (explanation.errors)."]
    return lines
