"""The one place a metric is defined: name, title, what it reads, per-sample value, aggregation.

Every metric is a :class:`Metric` registered in order; the per-sample
``scores`` of ``samples.jsonl``, the keys of ``results.json``, the columns of
``report.md`` and of ``gqlbench report`` all come from this registry, in
registration order. The built-in metrics are registered by
:mod:`.scores` (the paper's four, which read the two programs' analyses),
:mod:`.traces` (Exec Success and Exec Match, which read the two execution
traces) and :mod:`.finer` (the F1s, read from the stored counts). Outside code
adds one with :func:`register_metric` in a module named by
``GQLBENCH_METRICS="module:object,..."`` (or ``file.py:object``) or by an
entry point of the group ``gqlbench.metrics``; both are loaded once, on the
first look-up, by :data:`METRICS`, a :class:`gqlbench.plugins.Registry` like
those of prompt styles, backends and world behaviours.

Per-sample values are ``int``/``float`` (or ``None`` for an optional metric
that does not apply); a ``ratio`` metric's value is ``(numerator,
denominator)``, stored as two score fields and aggregated as a ratio of sums.
A metric that ``reads="explanation"`` is derived from what a sample line
already holds (``compute(explanation, scores)``): it adds no score field and is
computed wherever samples are aggregated; the micro F1s are such
ratio metrics (:mod:`.finer`), whose per-sample counts ``(tp, fp, fn)`` say, through
``fraction``, which ratio of sums is resampled by sample and, through
``combine``, what the summed counts are worth.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

from gqlbench.errors import GqlbenchError
from gqlbench.plugins import Registry
from gqlbench.records import Explanation

__all__ = [
    "Metric",
    "Value",
    "register_metric",
    "add_metric",
    "get_metric",
    "all_metrics",
    "score_fields",
    "sample_values",
    "empty_values",
    "summary_of",
    "ENV_VAR",
    "ENTRY_POINT_GROUP",
    "METRICS",
]

ENV_VAR = "GQLBENCH_METRICS"
ENTRY_POINT_GROUP = "gqlbench.metrics"

Reads = Literal["analyses", "traces", "explanation"]
Aggregation = Literal["mean", "ratio"]
Value = int | float | tuple[int | float, ...] | None
"""A per-sample value: a number, counts for a ratio metric (``(numerator, denominator)`` by default), or None (not applicable)."""

_SUMMARY_KEYS = {"n_samples"}
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class Metric:
    """One metric, from its per-sample value to its split-level aggregate.

    ``compute(gold, predicted)`` gets the two programs'
    :class:`~gqlbench.metrics.calls.ProgramAnalysis` (``reads="analyses"``) or
    the two :class:`~gqlbench.records.Trace` (``reads="traces"``), or a
    sample line's :class:`~gqlbench.records.Explanation` and ``scores`` (``reads="explanation"``,
    optional, no score field of its own). It is not
    trusted with a prediction that was not scored (no prediction, a parse
    error, too large to analyse, not run): the value is then 0, a ratio's
    numerator 0 (its denominator kept), and None stays None.
    An ``optional`` metric may be None for a sample: it is averaged over the
    samples that have it, with their count as ``n_<name>``, and shows up only
    when some sample has it. Execution metrics are optional (they exist only
    when programs ran).
    """

    name: str
    title: str
    reads: Reads
    compute: Callable[[Any, Any], Value]
    aggregation: Aggregation = "mean"
    table2: bool = False  # one of the paper's Table 2 columns
    optional: bool = False
    fields: tuple[str, str] | None = None  # ratio: the per-sample numerator and denominator fields
    finer: bool = False  # a finer score: shown in its own table, not as a column of the main one
    fraction: Callable[..., tuple[float, float]] | None = None  # ratio: per-sample counts -> (numerator, denominator)
    combine: Callable[..., float] | None = None  # ratio: the counts summed over samples -> the value
    short: str = ""  # the viewer's pass/fail badge of a sample (default: the title)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name) or self.name in _SUMMARY_KEYS:
            raise GqlbenchError(f"metric name {self.name!r}: use lower_case letters, digits and _ (not n_samples)")
        if self.reads not in ("analyses", "traces", "explanation"):
            raise GqlbenchError(f"metric {self.name!r}: reads must be 'analyses', 'traces' or 'explanation', not {self.reads!r}")
        if self.aggregation not in ("mean", "ratio"):
            raise GqlbenchError(f"metric {self.name!r}: aggregation must be 'mean' or 'ratio', not {self.aggregation!r}")
        if self.reads != "analyses" and not self.optional:
            raise GqlbenchError(
                f"metric {self.name!r}: a metric that reads {self.reads} must be optional=True (runs may skip execution, "
                "old sample lines may lack the explanation)"
            )
        if (self.fields, self.fraction, self.combine) != (None, None, None) and self.aggregation != "ratio":
            raise GqlbenchError(f"metric {self.name!r}: fields, fraction and combine are only for aggregation='ratio'")
        if self.fields is not None and self.reads == "explanation":
            raise GqlbenchError(f"metric {self.name!r}: a metric that reads the explanation has no score fields")

    @property
    def label(self) -> str:
        """The metric's name on a sample's badge: ``short``, else the title."""
        return self.short or self.title

    @property
    def score_fields(self) -> tuple[str, ...]:
        """The keys this metric adds to a sample's ``scores`` (none when it reads the explanation)."""
        if self.reads == "explanation":
            return ()
        if self.aggregation == "mean":
            return (self.name,)
        return self.fields or (f"{self.name}_numerator", f"{self.name}_denominator")

    def stored(self, scores: Mapping[str, Any], explanation: Explanation | None = None) -> Value:
        """This metric's per-sample value as a sample line holds it; None when the line lacks it."""
        if self.reads == "explanation":
            return None if explanation is None else self.compute(explanation, scores)
        if self.aggregation == "mean":
            value: Value = scores.get(self.name)
            return value
        parts = tuple(scores.get(f) for f in self.score_fields)
        return None if any(p is None for p in parts) else parts  # type: ignore[return-value]

    def ratio_of(self, counts: tuple[int | float, ...]) -> tuple[float, float]:
        """A ratio metric's per-sample ``(numerator, denominator)``, the unit a bootstrap resamples."""
        if self.fraction is not None:
            return self.fraction(*counts)
        numerator, denominator = counts
        return numerator, denominator

    def combined(self, totals: Sequence[int | float]) -> float:
        """A ratio metric's value from its counts summed over samples (0.0 without a denominator)."""
        if self.combine is not None:
            return self.combine(*totals)
        numerator, denominator = totals
        return numerator / denominator if denominator else 0.0

    def values(self, value: Value) -> dict[str, Any]:
        """A per-sample value as this metric's score fields."""
        if self.aggregation == "mean":
            if isinstance(value, tuple):
                raise GqlbenchError(f"metric {self.name!r}: a mean metric returns a number, got {value!r}")
            return {self.name: int(value) if isinstance(value, bool) else value}
        if value is None:
            return dict.fromkeys(self.score_fields)
        if not isinstance(value, tuple) or len(value) != len(self.score_fields):
            raise GqlbenchError(f"metric {self.name!r}: a ratio metric returns (numerator, denominator), got {value!r}")
        return dict(zip(self.score_fields, value, strict=True))

    def zeroed(self, value: Value) -> Value:
        """The value of a prediction that was not scored: 0, a ratio 0 of its denominator; None stays None."""
        if value is None:
            return None
        return (0, value[1]) if isinstance(value, tuple) else 0


METRICS: Registry[Metric] = Registry("metric", ENTRY_POINT_GROUP, ENV_VAR, what="a Metric", module_prefix="gqlbench_metrics_")
"""Every metric, in registration order; add one with :func:`add_metric` (which checks its score fields), not ``register``."""
_loaded = False


def add_metric(metric: Metric) -> Metric:
    """Register ``metric`` (after those already registered); the same object twice is a no-op."""
    registered = METRICS.registered()
    existing = registered.get(metric.name)
    if existing is metric:
        return metric
    if existing is not None:
        raise GqlbenchError(f"metric {metric.name!r} is already registered ({existing.title}); choose another name")
    taken = {f: m.name for m in registered.values() for f in m.score_fields}
    for field in metric.score_fields:
        if field in taken or f"n_{field}" in taken:
            raise GqlbenchError(f"metric {metric.name!r}: score field {field!r} clashes with metric {taken.get(field)!r}")
    return METRICS.register(metric.name, metric)


def register_metric(
    name: str,
    *,
    title: str,
    reads: Reads,
    aggregation: Aggregation = "mean",
    table2: bool = False,
    optional: bool = False,
    fields: tuple[str, str] | None = None,
    finer: bool = False,
    fraction: Callable[..., tuple[float, float]] | None = None,
    combine: Callable[..., float] | None = None,
    short: str = "",
) -> Callable[[Callable[[Any, Any], Value]], Metric]:
    """Decorator: register ``compute(gold, predicted)`` as a metric; the name is bound to the :class:`Metric`."""

    def decorate(compute: Callable[[Any, Any], Value]) -> Metric:
        metric = Metric(name, title, reads, compute, aggregation, table2, optional, fields, finer, fraction, combine, short)
        return add_metric(metric)

    return decorate


def _builtins() -> None:
    # imported for their registrations: the paper's four first, then execution
    importlib.import_module("gqlbench.metrics.scores")
    importlib.import_module("gqlbench.metrics.traces")
    importlib.import_module("gqlbench.metrics.finer")


def _register_loaded(obj: object, source: str) -> None:
    """Register what a spec or entry point named: a Metric, a list of them, or a module that registers its own."""
    if isinstance(obj, ModuleType):
        return  # its @register_metric definitions ran on import
    items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    metrics = [m for m in items if isinstance(m, Metric)]
    if not items or len(metrics) != len(items):
        raise GqlbenchError(f"{source}: is a {type(obj).__name__}, not a Metric (define it with @register_metric)")
    for metric in metrics:
        try:
            add_metric(metric)
        except GqlbenchError as exc:
            raise GqlbenchError(f"{source}: {exc}") from None


def _load_plugins() -> None:
    for spec in filter(None, (s.strip() for s in os.environ.get(ENV_VAR, "").split(","))):
        _register_loaded(METRICS.load(spec, f"{ENV_VAR} entry", module_alone=True), f"{ENV_VAR} entry {spec}")
    for point, loaded in METRICS.load_entry_points():
        _register_loaded(loaded, f"entry point {point.name!r} ({point.value}) of group {ENTRY_POINT_GROUP}")


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True  # before loading: a plugin importing gqlbench.metrics must not recurse
        _builtins()
        _load_plugins()


def all_metrics() -> Iterator[Metric]:
    """Every registered metric, built-ins first, in registration order."""
    _ensure_loaded()
    return iter(list(METRICS.registered().values()))


def metric_titles() -> dict[str, str]:
    """``{name: title}`` of every registered metric, for tables and pages."""
    return {m.name: m.title for m in all_metrics()}


def get_metric(name: str) -> Metric:
    _ensure_loaded()
    registered = METRICS.registered()
    if name not in registered:
        raise GqlbenchError(f"unknown metric {name!r}; registered: {', '.join(registered)}")
    return registered[name]


def score_fields() -> list[str]:
    """The keys of a sample's ``scores``, in order."""
    return [field for m in all_metrics() for field in m.score_fields]


def sample_values(reads: Reads, gold: Any, predicted: Any, *, scored: bool = True) -> dict[str, Any]:
    """The score fields of every metric reading ``reads``; ``scored=False`` zeroes them (see :class:`Metric`)."""
    values: dict[str, Any] = {}
    for metric in all_metrics():
        if metric.reads == reads:
            value = metric.compute(gold, predicted)
            values |= metric.values(value if scored else metric.zeroed(value))
    return values


def empty_values() -> dict[str, Any]:
    """The scores of a sample that is not scored at all (invalid gold): 0, or None when optional."""
    return {field: (None if m.optional else 0) for m in all_metrics() for field in m.score_fields}


def summary_of(rows: Sequence[Mapping[str, Any]], explanations: Sequence[Explanation] | None = None) -> dict[str, Any]:
    """One group's aggregate from its samples' scores (see :func:`gqlbench.metrics.aggregate`).

    Metrics that read the explanation are aggregated only when ``explanations``
    (aligned with ``rows``) are given; they add no ``n_`` count.
    """
    n = len(rows)
    summary: dict[str, Any] = {}
    counts: dict[str, Any] = {"n_samples": n}
    optional: dict[str, Any] = {}
    lines: Sequence[Explanation | None] = explanations if explanations is not None else [None] * n
    for metric in all_metrics():
        if metric.reads == "explanation" and explanations is None:
            continue
        values = [metric.stored(r, e) for r, e in zip(rows, lines, strict=True)]
        present = [v for v in values if v is not None] if metric.optional else values
        if metric.optional and not present:
            continue  # no sample has it: left out
        if metric.aggregation == "mean":
            total = sum(v or 0 for v in present)  # type: ignore[misc]
            value = total / len(present) if present else 0.0
        else:
            width = len(metric.score_fields) or len(next((v for v in present if v is not None), ()))  # type: ignore[arg-type]
            parts = [v if v is not None else (0,) * width for v in present]
            totals = [sum(column) for column in zip(*parts, strict=True)] if parts else [0] * width
            value = metric.combined(totals)
            if not metric.optional:
                counts[f"n_{metric.score_fields[1]}"] = totals[1]
        if not metric.optional:
            summary[metric.name] = value
        else:
            optional[metric.name] = value
            if metric.reads != "explanation":
                optional[f"n_{metric.name}"] = len(present)
    return summary | counts | optional
