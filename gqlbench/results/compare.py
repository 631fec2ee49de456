"""Paired comparison of scored runs: is a difference real, or within noise?

Two runs are paired only when they ran on the same data (the same
``data_hash`` in results.json): a sample id such as ``test/3`` names another
sample in another benchmark, so runs on different data are shown side by
side, never tested (:func:`pairing_problem` says why). Paired runs are
matched on the sample ids they share (the ids only one run has are named,
never silently dropped, and a warning says when the runs share fewer than
all their samples). For every metric the comparison gives run B minus run A,
its 95% interval, one test's p-value and the verdict
(:func:`gqlbench.results.statistics.compare_paired` says which interval and
test; when samples share a cluster, a generated set's program skeleton,
:func:`~gqlbench.results.statistics.compare_paired_clusters` takes whole
clusters as the unit of both). A report runs many tests (every metric of
every pair), so the verdict uses Holm-adjusted p-values across all of them (:func:`adjust_family`); the
unadjusted p-value is shown beside it. Runs of one configuration that differ
only in seed are summarised as mean ± standard deviation instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from gqlbench.errors import GqlbenchError
from gqlbench.records import SampleResult
from gqlbench.results.power import mcnemar_power, minimal_detectable_difference
from gqlbench.results.statistics import (
    ALPHA,
    DEFAULT_RESAMPLES,
    cluster_sizes,
    compare_paired_clusters,
    design_effect,
    holm_adjust,
    intraclass_correlation,
    mean_cluster_size,
    seed_spread,
    verdict,
)
from gqlbench.results.uncertainty import sample_values

__all__ = [
    "HEADERS",
    "pairing_problem",
    "compare_runs",
    "unpaired",
    "adjust_family",
    "compare_with_first",
    "comparison_cells",
    "render_pair",
    "shared_warning",
    "seed_groups",
    "render_seed_spread",
    "Clustering",
    "run_clustering",
    "file_clusters",
    "power_table",
    "render_power",
]


def compare_runs(a: Sequence[SampleResult], b: Sequence[SampleResult], resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """JSON-ready: shared and unshared ids, then per metric a, b, difference, ci (and how), p_value, test (and how), verdict.

    The caller pairs only runs on the same data (:func:`pairing_problem`). Alone,
    the comparison is its own family (``p_adjusted``: Holm over its metrics);
    :func:`compare_with_first` adjusts the comparisons of a report together.
    """
    ids_a = {r.id for r in a if r.skipped is None}
    ids_b = {r.id for r in b if r.skipped is None}
    values_a, values_b = sample_values(a), sample_values(b)
    cluster_of = {r.id: r.cluster for r in b} | {r.id: r.cluster for r in a if r.cluster is not None}  # same data: same clusters
    metrics: dict[str, Any] = {}
    for name, by_id_a in values_a.items():
        by_id_b = values_b.get(name, {})
        shared = sorted(set(by_id_a) & set(by_id_b))
        if len(shared) < 2:
            continue
        x = [by_id_a[i] for i in shared]
        y = [by_id_b[i] for i in shared]
        ratio = x[0][1] is not None
        result = compare_paired_clusters(
            [v[0] for v in x],
            [v[0] for v in y],
            [v[1] for v in x] if ratio else None,  # type: ignore[misc]
            [v[1] for v in y] if ratio else None,  # type: ignore[misc]
            [cluster_of.get(i) for i in shared],
            resamples=resamples,
            seed=seed,
        )
        metrics[name] = {
            "n": len(shared),
            "a": result.a,
            "b": result.b,
            "difference": result.difference,
            "ci": list(result.ci) if result.ci is not None else None,
            "ci_method": result.ci_method,
            "p_value": result.p_value,
            "test": result.test,
            "p_method": result.p_method,
            "identical": result.identical,
            "within_noise": result.within_noise,
            "verdict": result.verdict,
            "interval_disagrees": result.interval_disagrees,
        }
    comparison = {
        "paired": True,
        "shared": len(ids_a & ids_b),
        "n_a": len(ids_a),
        "n_b": len(ids_b),
        "only_a": sorted(ids_a - ids_b),
        "only_b": sorted(ids_b - ids_a),
        "resamples": resamples,
        "metrics": metrics,
    }
    clusters = [cluster_of.get(i) for i in sorted(ids_a & ids_b)]
    if any(c is not None for c in clusters):
        comparison["clusters"] = len(cluster_sizes(clusters))
    adjust_family([comparison])
    return comparison


def pairing_problem(data_a: str | None, data_b: str | None) -> str | None:
    """Why runs with these data hashes cannot be paired sample by sample (None: they can).

    A sample id is a line of a split file: ``test/3`` of one benchmark is
    another sample than ``test/3`` of another, so only runs on the same data
    (``meta.data_hash``, over every split file and the errata) are paired.
    """
    if data_a is None or data_b is None:
        which = "A" if data_a is None else "B"
        return f"not paired: {which} does not record which data it ran on (no data_hash in its results.json), so no sample can be matched"
    if data_a != data_b:
        return (
            f"not paired: A ran on data {data_a} and B on {data_b} (different benchmark files), "
            "so the same sample id names different samples; compare their tables side by side"
        )
    return None


def unpaired(reason: str) -> dict[str, Any]:
    """The comparison entry of two runs that are not paired: no tests, and why."""
    return {"paired": False, "reason": reason, "metrics": {}}


def adjust_family(comparisons: Sequence[dict[str, Any]], alpha: float = ALPHA) -> int:
    """Holm-adjust every test of ``comparisons`` as one family; each entry's verdict then uses its adjusted p-value.

    The family is every metric of every paired comparison in one report, minus
    the metrics where no shared sample differs (no test can reject there: their
    p-value is 1 whatever the runs, and they are ``no difference``). Returns
    the number of tests adjusted.
    """
    every = [e for c in comparisons for e in c.get("metrics", {}).values()]
    tested = [e for e in every if not e.get("identical")]
    adjusted = dict(zip(map(id, tested), holm_adjust([e["p_value"] for e in tested]), strict=True))
    for entry in every:
        entry["p_adjusted"] = adjusted.get(id(entry), entry["p_value"])
        entry["within_noise"] = entry["p_adjusted"] >= alpha
        entry["verdict"] = verdict(entry["difference"], entry["p_adjusted"], bool(entry.get("identical")))
    for comparison in comparisons:
        if comparison.get("paired", True):
            comparison["adjustment"] = {"method": "holm", "tests": len(tested)}
    return len(tested)


def compare_with_first(
    samples: Sequence[Sequence[SampleResult]], data: Sequence[str | None], resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> list[dict[str, Any]]:
    """Each run after the first against the first (runs on other data unpaired), Holm-adjusted as one family."""
    comparisons = []
    for index in range(1, len(samples)):
        problem = pairing_problem(data[0], data[index])
        comparisons.append(unpaired(problem) if problem else compare_runs(samples[0], samples[index], resamples, seed))
    adjust_family(comparisons)
    return comparisons


TESTS = {"mcnemar_exact": "McNemar exact", "paired_permutation": "paired permutation", "cluster_permutation": "cluster permutation"}
INTERVALS = {
    "tango_score": "Tango score",
    "exact_conditional": "exact, given the discordant pairs",  # results written before Tango's interval
    "bca_bootstrap": "paired BCa bootstrap",
    "percentile_bootstrap": "paired percentile bootstrap",
    "cluster_bca_bootstrap": "paired BCa bootstrap over clusters",
    "cluster_percentile_bootstrap": "paired percentile bootstrap over clusters",
    "cluster_tango_score": "Tango score, clusters as samples",
    "none": "none",
}
VERDICT_NOTE = (
    f"The verdict uses the Holm-adjusted p-value (p (Holm)), adjusted across every test of this report, every metric of "
    f"every pair: A or B higher when it is below {ALPHA:.2f}, else within noise; no difference: no shared sample differs. "
    "p is each test alone. The interval (Tango's score interval for 0/1 metrics, a paired bootstrap for the others; "
    "over whole clusters when samples share one) "
    "describes the size of the difference, unadjusted; * marks where it disagrees with the unadjusted test."
)


def shared_warning(comparison: Mapping[str, Any]) -> str | None:
    """A loud sentence when the runs share fewer than all their samples (None when each has exactly the shared ones)."""
    shared, n_a, n_b = comparison["shared"], comparison.get("n_a", comparison["shared"]), comparison.get("n_b", comparison["shared"])
    if shared == n_a == n_b:
        return None
    return (
        f"WARNING: the runs share only {shared} samples (A has {n_a}, B has {n_b}); "
        f"every difference below is over those {shared} samples only."
    )


HEADERS = ["Metric", "A", "B", "B - A", "95% CI", "interval", "p", "p (Holm)", "test", "verdict"]


def comparison_cells(title: str, entry: Mapping[str, Any], digits: int = 2) -> list[str]:
    """One metric's row of a comparison (see :data:`HEADERS`); * marks an interval that disagrees with the test."""
    ci = entry["ci"]
    mark = "*" if entry.get("interval_disagrees") else ""
    test = TESTS.get(entry["test"], entry["test"])
    if entry["test"] in ("paired_permutation", "cluster_permutation") and entry.get("p_method"):
        test += f" ({entry['p_method']})"
    return [
        title,
        f"{entry['a']:.4f}",
        f"{entry['b']:.4f}",
        f"{entry['difference']:+.4f}",
        f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]{mark}" if ci else "-",
        INTERVALS.get(entry.get("ci_method", ""), "paired bootstrap"),
        f"{entry['p_value']:.3g}",
        f"{entry.get('p_adjusted', entry['p_value']):.3g}",
        test,
        entry.get("verdict", "within noise" if entry.get("within_noise") else "-"),
    ]


def render_pair(label_a: str, label_b: str, comparison: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """The comparison as a table with one line per metric and a sentence on unshared ids; unpaired runs: why, in one line."""
    if not comparison.get("paired", True):
        return "\n".join([f"A = {label_a}", f"B = {label_b}", f"{comparison['reason']}."])
    rows = []
    order = {name: i for i, name in enumerate(titles)}
    for name, entry in sorted(comparison["metrics"].items(), key=lambda item: order.get(item[0], len(order))):
        rows.append(comparison_cells(titles.get(name, name), entry))
    lines = [f"A = {label_a}", f"B = {label_b}", f"{comparison['shared']} shared samples."]
    warning = shared_warning(comparison)
    if warning:
        lines.append(warning)
    clusters = comparison.get("clusters")
    if isinstance(clusters, int) and clusters < comparison["shared"]:
        lines.append(
            f"The {comparison['shared']} samples come in {clusters} clusters (shared program skeletons), which are "
            "not independent: the tests below swap A and B in whole clusters and the intervals resample whole clusters "
            "(docs/statistics.md, Clustered samples)."
        )
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if comparison[key]:
            ids = comparison[key]
            lines.append(f"Only in {side} (not compared): {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''} ({len(ids)})")
    tests = comparison.get("adjustment", {}).get("tests")
    if tests is not None:
        lines.append(f"p (Holm): adjusted across the {tests} tests of this report.")
    lines += ["", tabulate(rows, headers=HEADERS, tablefmt="github", disable_numparse=True), "", VERDICT_NOTE]
    return "\n".join(lines)


def seed_groups(labels: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], list[int]]:
    """Indices of runs that share a label (same model, prompt and split): repeated runs, e.g. by seed."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, label in enumerate(labels):
        groups.setdefault(label, []).append(index)
    return {label: members for label, members in groups.items() if len(members) > 1}


def render_seed_spread(label: str, metrics: Sequence[Mapping[str, Any]], titles: Mapping[str, str]) -> str:
    """Mean ± standard deviation across repeated runs of one configuration (overall group)."""
    rows = []
    for name, title in titles.items():
        values = [m.get("overall", {}).get(name) for m in metrics]
        if values and all(isinstance(v, (int, float)) for v in values):
            mean, std = seed_spread(values)
            rows.append([title, f"{mean:.4f} ± {std:.4f}" if std is not None else f"{mean:.4f}"])
    return f"{label}: {len(metrics)} runs\n\n" + tabulate(rows, headers=["Metric", "mean ± sd"], tablefmt="github", disable_numparse=True)


@dataclass(frozen=True)
class Clustering:
    """How the samples of a power note come in clusters: the mean cluster size m and the intraclass correlation.

    ``icc_source`` says where the ICC came from: ``"stated"`` (``--icc``),
    ``"estimated"`` (from a run's per-sample outcomes) or ``"assumed"`` (1, the
    worst case, when the data cannot say).
    """

    mean_size: float = 1.0
    icc: float = 0.0
    icc_source: str = "stated"

    @property
    def design_effect(self) -> float:
        return design_effect(self.mean_size, self.icc)


def run_clustering(results: Sequence[SampleResult], icc: float | None = None, metric: str = "arg_match_full") -> Clustering:
    """The clustering of a run's scored samples (their ``cluster``); the ICC of ``metric`` unless ``icc`` states it.

    A run whose samples carry no cluster has independent samples (design effect 1).
    """
    scored = [r for r in results if r.skipped is None]
    clusters = [r.cluster for r in scored]
    if not scored or all(c is None for c in clusters):
        return Clustering()
    size = mean_cluster_size(cluster_sizes(clusters))
    if icc is not None:
        return Clustering(size, icc, "stated")
    values = sample_values(scored).get(metric, {})
    by_id = {r.id: r.cluster for r in scored}
    estimated = intraclass_correlation([v for v, _ in values.values()], [by_id[i] for i in values]) if values else None
    return Clustering(size, estimated, "estimated") if estimated is not None else Clustering(size, 1.0, "assumed")


def file_clusters(path: Path) -> tuple[int, float]:
    """n and the mean cluster size m of a samples file (one sample per line), clustered as scoring clusters them.

    The cluster of a line is :func:`gqlbench.metrics.scores.cluster_key` (its program skeleton for a generated
    sample, none for a human one), so the power of a set can be stated before any run on it.
    """
    from gqlbench.dataset import load_split
    from gqlbench.metrics.scores import cluster_key

    samples = load_split(path.stem, path.parent)
    if not samples:
        raise GqlbenchError(f"{path}: no samples; --power-clusters needs the samples file a run would read")
    return len(samples), mean_cluster_size(cluster_sizes([cluster_key(s) for s in samples]))


def power_table(
    n: int,
    rates: Sequence[float] = (0.3, 0.5, 0.7),
    correlations: Sequence[float] = (0.0, 0.5),
    clustering: Clustering | None = None,
) -> list[dict[str, float | None]]:
    """Minimal detectable differences of a 0/1 metric on ``n`` paired samples at 80% power of McNemar's exact test.

    Samples in clusters (``clustering``) weigh as ``n / design effect``
    independent ones (rounded down): the test is run at that effective size.
    ``half_power``: the power at half that difference (a smaller difference is
    detected less often, not never).
    """
    effect = clustering.design_effect if clustering is not None else 1.0
    effective = max(1, int(n / effect + 1e-9))
    rows: list[dict[str, float | None]] = []
    for p in rates:
        for rho in correlations:
            difference = minimal_detectable_difference(effective, p, rho)
            half = mcnemar_power(effective, p, difference / 2, rho) if difference is not None else None
            rows.append(
                {
                    "n": n,
                    "effective_n": effective,
                    "design_effect": effect,
                    "rate": p,
                    "correlation": rho,
                    "difference": difference,
                    "half_power": half,
                }
            )
    return rows


def _difference_cells(row: Mapping[str, float | None], n: int) -> list[str]:
    difference, half = row["difference"], row.get("half_power")
    if difference is None:
        return ["none reaches 80%", "-", "-"]
    return [f"{difference:.3f}", f"{difference * n:.1f}", f"{half:.0%}" if half is not None else "-"]


def render_power(rows: Sequence[Mapping[str, float | None]], clustering: Clustering | None = None) -> str:
    """The power note: how large a difference in a 0/1 metric (Arg Match (full)) n samples can detect."""
    n = int(rows[0]["n"] or 0)
    effective = int(rows[0].get("effective_n") or n)
    table = tabulate(
        [[f"{r['rate']:.2f}", f"{r['correlation']:.1f}", *_difference_cells(r, n)] for r in rows],
        headers=["metric rate", "correlation of A and B", "detectable difference", "= samples", "power at half of it"],
        tablefmt="github",
        disable_numparse=True,
    )
    clustered = ""
    if clustering is not None and clustering.mean_size > 1:
        clustered = (
            f"The samples come in clusters (shared program skeletons) of mean size {clustering.mean_size:.2f} "
            f"(sum of squared sizes / n) with intraclass correlation {clustering.icc:.2f} ({clustering.icc_source}): "
            f"design effect 1 + (m - 1) * ICC = {clustering.design_effect:.2f}, so the {n} samples weigh as {effective} "
            "independent ones and the test below is powered at that size (an approximation of the power of the cluster "
            "permutation test that `gqlbench report A B` runs on such samples).\n\n"
        )
    return (
        f"{clustered}Minimal detectable difference of a 0/1 metric (e.g. Arg Match (full)) on {n} paired samples, "
        f"80% power of McNemar's exact test at two-sided alpha {ALPHA:.2f} (computed exactly, by enumeration; "
        "run A at rate - d/2, run B at rate + d/2):\n\n"
        f"{table}\n\nA smaller difference is detected less often (the last column), not never; an observed difference "
        "of five samples or fewer never reaches p < 0.05. These are the powers of one test: a report's verdicts use "
        "p-values Holm-adjusted across all its tests, so with more than one test they detect less."
    )
