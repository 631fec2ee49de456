"""Paired comparison of scored runs: is a difference real, or within noise?

Runs are paired on the sample ids they share (the ids only one run has are
named, never silently dropped). For every metric the comparison gives run B
minus run A, a paired bootstrap 95% interval, and an exact p-value
(:func:`gqlbench.statistics.compare_paired`). Runs of one configuration that
differ only in seed are summarised as mean ± standard deviation instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from gqlbench.records import SampleResult
from gqlbench.statistics import DEFAULT_RESAMPLES, compare_paired, minimal_detectable_difference, seed_spread
from gqlbench.uncertainty import sample_values

__all__ = ["compare_runs", "render_pair", "seed_groups", "render_seed_spread", "power_table", "render_power"]

ALPHA = 0.05


def compare_runs(a: Sequence[SampleResult], b: Sequence[SampleResult], resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """JSON-ready: shared and unshared ids, then per metric a, b, difference, ci, p_value, test, verdict."""
    ids_a = {r.id for r in a if r.skipped is None}
    ids_b = {r.id for r in b if r.skipped is None}
    values_a, values_b = sample_values(a), sample_values(b)
    metrics: dict[str, Any] = {}
    for name, by_id_a in values_a.items():
        by_id_b = values_b.get(name, {})
        shared = sorted(set(by_id_a) & set(by_id_b))
        if len(shared) < 2:
            continue
        x = [by_id_a[i] for i in shared]
        y = [by_id_b[i] for i in shared]
        ratio = x[0][1] is not None
        result = compare_paired(
            [v[0] for v in x], [v[0] for v in y],
            [v[1] for v in x] if ratio else None, [v[1] for v in y] if ratio else None,  # type: ignore[misc]
            resamples=resamples, seed=seed,
        )
        metrics[name] = {
            "n": len(shared),
            "a": result.a,
            "b": result.b,
            "difference": result.difference,
            "ci": list(result.ci) if result.ci is not None else None,
            "p_value": result.p_value,
            "test": result.test,
            "within_noise": result.within_noise,
        }
    return {
        "shared": len(ids_a & ids_b),
        "only_a": sorted(ids_a - ids_b),
        "only_b": sorted(ids_b - ids_a),
        "resamples": resamples,
        "metrics": metrics,
    }


def _verdict(entry: Mapping[str, Any]) -> str:
    if entry["difference"] == 0 and entry["p_value"] == 1.0:
        return "no difference"
    if entry["within_noise"]:
        return f"within noise (p >= {ALPHA})"
    return "B higher" if entry["difference"] > 0 else "A higher"


def render_pair(label_a: str, label_b: str, comparison: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """The comparison as a table with one line per metric and a sentence on unshared ids."""
    rows = []
    order = {name: i for i, name in enumerate(titles)}
    for name, entry in sorted(comparison["metrics"].items(), key=lambda item: order.get(item[0], len(order))):
        ci = entry["ci"]
        rows.append([
            titles.get(name, name),
            f"{entry['a']:.4f}",
            f"{entry['b']:.4f}",
            f"{entry['difference']:+.4f}",
            f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "-",
            f"{entry['p_value']:.3g}",
            "McNemar exact" if entry["test"] == "mcnemar_exact" else "paired permutation",
            _verdict(entry),
        ])
    lines = [f"A = {label_a}", f"B = {label_b}", f"{comparison['shared']} shared samples."]
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if comparison[key]:
            ids = comparison[key]
            lines.append(f"Only in {side} (not compared): {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''} ({len(ids)})")
    headers = ["Metric", "A", "B", "B - A", "95% CI (paired)", "p", "test", "verdict"]
    lines += ["", tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)]
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


def power_table(n: int, rates: Sequence[float] = (0.3, 0.5, 0.7), correlations: Sequence[float] = (0.0, 0.5)) -> list[dict[str, float]]:
    """Minimal detectable differences of a 0/1 metric on ``n`` paired samples at 80% power."""
    return [
        {"n": n, "rate": p, "correlation": rho, "difference": minimal_detectable_difference(n, p, rho)}
        for p in rates
        for rho in correlations
    ]


def render_power(rows: Sequence[Mapping[str, float]]) -> str:
    """The power note: how large a difference in a 0/1 metric (Arg Match (full)) n samples can detect."""
    n = int(rows[0]["n"])
    table = tabulate(
        [[f"{r['rate']:.2f}", f"{r['correlation']:.1f}", f"{r['difference']:.3f}", f"{r['difference'] * n:.1f}"] for r in rows],
        headers=["metric rate", "correlation of A and B", "detectable difference", "= samples"],
        tablefmt="github",
        disable_numparse=True,
    )
    return (
        f"Minimal detectable difference of a 0/1 metric (e.g. Arg Match (full)) on {n} paired samples, "
        f"two-sided alpha {ALPHA}, 80% power (normal approximation):\n\n{table}\n\n"
        "A smaller difference between two runs can be real, but these samples cannot show it."
    )
