"""Repeated sampling (``gqlbench run --samples K``): which completion a line is, pass@k and pass^k.

With K > 1 a run's ``samples.jsonl`` holds K lines per sample, each with a
``completion`` index 0..K-1 (a K = 1 run writes no such field, so its file is
unchanged). Table 2 (and every other per-sample reader: ``evaluate``,
``report``, the viewer) reads completion 0, which is exactly the K = 1 run at
that temperature; the repeated-sampling estimators read all K:

- pass@k, the unbiased estimator of Chen et al. (2021): the chance that at
  least one of k completions drawn without replacement from the n is correct,
  ``1 - C(n-c, k) / C(n, k)``;
- pass^k (tau-bench): the chance that all k drawn completions are correct,
  ``C(c, k) / C(n, k)``.

Both are averaged over samples; pass@1 = pass^1 is the mean over all
completions. A completion that failed to generate counts as incorrect (n is
always K), as a missing prediction scores 0 in Table 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import comb, fsum
from typing import Any

from tabulate import tabulate

from gqlbench.records import Sample, SampleResult

__all__ = [
    "COMPLETION_FIELD",
    "REPEATED_METRICS",
    "completion_index",
    "with_completion",
    "pass_at_k",
    "pass_hat_k",
    "repeated_metrics",
    "repeated_section",
]

COMPLETION_FIELD = "completion"
REPEATED_METRICS: tuple[str, ...] = ("arg_match_full", "exec_match")  # 0/1 per completion


def completion_index(result: SampleResult) -> int:
    """Which of its sample's K completions a ``samples.jsonl`` line holds (no field: 0, as in a K = 1 run)."""
    value = (result.model_extra or {}).get(COMPLETION_FIELD, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def with_completion(result: SampleResult, index: int) -> SampleResult:
    """``result`` labelled as completion ``index`` (the field goes last on the line)."""
    return SampleResult.model_validate({**result.model_dump(mode="json"), COMPLETION_FIELD: index})


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: 1 - C(n-c, k) / C(n, k) (exact integer binomials, then one division)."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: C(c, k) / C(n, k), the chance that k completions drawn without replacement all pass."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _correct_counts(samples: Sequence[Sample], completions: Iterable[SampleResult], metric: str) -> dict[str, tuple[str, int]]:
    """Per scorable sample: its domain and how many completions score 1 (a sample whose metric is None is left out)."""
    lines: dict[str, list[SampleResult]] = {}
    for line in completions:
        lines.setdefault(line.id, []).append(line)
    counts: dict[str, tuple[str, int]] = {}
    for sample in samples:
        own = lines.get(sample.id, [])
        if any(line.skipped is not None for line in own):
            continue  # invalid gold: excluded from every metric
        values = [getattr(line.scores, metric, None) for line in own]
        if own and all(v is None for v in values):
            continue  # e.g. Exec Match of a gold program that cannot run
        if not own and metric != "arg_match_full":
            continue  # nothing generated: whether the metric applies is unknown
        counts[sample.id] = (sample.domain, sum(1 for v in values if v == 1))
    return counts


def repeated_metrics(samples: Sequence[Sample], completions: Sequence[SampleResult], k_max: int) -> dict[str, dict[str, Any]]:
    """``{group: {"pass_at_k": {metric: {"1": v, ...}}, "pass_hat_k": {...}}}`` for overall and each domain."""
    result: dict[str, dict[str, Any]] = {}
    for metric in REPEATED_METRICS:
        counts = _correct_counts(samples, completions, metric)
        groups: dict[str, list[int]] = {"overall": []}
        for domain, c in counts.values():
            groups["overall"].append(c)
            groups.setdefault(domain, []).append(c)
        for group, correct in groups.items():
            if not correct:
                continue
            entry = result.setdefault(group, {"pass_at_k": {}, "pass_hat_k": {}})
            ks = range(1, k_max + 1)
            entry["pass_at_k"][metric] = {str(k): fsum(pass_at_k(k_max, c, k) for c in correct) / len(correct) for k in ks}
            entry["pass_hat_k"][metric] = {str(k): fsum(pass_hat_k(k_max, c, k) for c in correct) / len(correct) for k in ks}
    return result


def repeated_section(metrics: Mapping[str, Mapping[str, Any]], k_max: int, titles: Mapping[str, str]) -> list[str]:
    """report.md lines: pass@k and pass^k per group and metric (none for a K = 1 run)."""
    rows = []
    for group, values in metrics.items():
        for metric in REPEATED_METRICS:
            at, hat = values.get("pass_at_k", {}).get(metric), values.get("pass_hat_k", {}).get(metric)
            if at is None or hat is None:
                continue
            ks = [str(k) for k in range(1, k_max + 1)]
            rows.append([group, titles.get(metric, metric), *(f"{at[k]:.4f}" for k in ks), *(f"{hat[k]:.4f}" for k in ks[1:])])
    if not rows:
        return []
    headers = ["Domain", "Metric", *(f"pass@{k}" for k in range(1, k_max + 1)), *(f"pass^{k}" for k in range(2, k_max + 1))]
    return [
        "",
        "## Repeated sampling",
        "",
        f"{k_max} completions per sample. The table above scores completion 0 of each sample; "
        "pass@1 (= pass^1) is the mean over all completions, pass@k the chance that one of k completions passes, "
        "pass^k that all k do.",
        "",
        tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True),
    ]
