"""The finer scores next to Table 2's, as registered metrics: dataflow, function and argument F1.

They read the per-sample counts that :mod:`.diagnose` stores
(``Explanation.f1_counts``, ``reads="explanation"``), so results.json,
report.md, ``gqlbench report``, the viewer and the intervals all find them in
the registry, and a run saved before the counts existed simply lacks them.
Each is a ratio of sums resampled by sample (clustered): precision
``tp / (tp + fp)``, recall ``tp / (tp + fn)``, F1 ``2tp / (2tp + fp + fn)``;
the value of the split's summed counts is :func:`.f1.prf`'s (so nothing
predicted and nothing expected is perfect). Imported by the registry after
the paper's metrics and the execution ones, so they come last.
"""

from __future__ import annotations

from collections.abc import Callable

from gqlbench.metrics.f1 import prf, stored_counts
from gqlbench.metrics.registry import Metric, add_metric

__all__ = ["FINER_METRICS"]

_PARTS: dict[str, tuple[Callable[[int, int, int], tuple[int, int]], int]] = {
    # score -> (its per-sample ratio of counts, its place in prf's result)
    "precision": (lambda tp, fp, fn: (tp, tp + fp), 0),
    "recall": (lambda tp, fp, fn: (tp, tp + fn), 1),
    "f1": (lambda tp, fp, fn: (2 * tp, 2 * tp + fp + fn), 2),
}


def _finer(kind: str, part: str, title: str) -> Metric:
    fraction, index = _PARTS[part]
    return add_metric(
        Metric(
            f"{kind}_{part}",
            title,
            "explanation",
            lambda explanation, scores: stored_counts(explanation, kind),
            aggregation="ratio",
            optional=True,
            finer=True,
            fraction=fraction,
            combine=lambda tp, fp, fn: prf(tp, fp, fn)[index],
        )
    )


FINER_METRICS: tuple[Metric, ...] = (
    _finer("dataflow", "f1", "Dataflow F1"),
    _finer("dataflow", "precision", "Dataflow precision"),
    _finer("dataflow", "recall", "Dataflow recall"),
    _finer("function", "f1", "Function F1"),
    _finer("argument", "f1", "Argument F1"),
)
