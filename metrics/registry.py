"""The one place a metric is defined: name, title, what it reads, per-sample value, aggregation.

Every metric is a :class:`Metric` registered in order; the per-sample
``scores`` of ``samples.jsonl``, the keys of ``results.json``, the columns of
``report.md`` and of ``gqlbench report`` all come from this registry, in
registration order. The built-in metrics are registered by
:mod:`.scores` (the paper's four, which read the two programs' analyses) and
:mod:`.traces` (Exec Success and Exec Match, which read the two execution
traces). Outside code adds one with :func:`register_metric` in a module named
by ``GQLBENCH_METRICS="module:object,..."`` or by an entry point of the group
``gqlbench.metrics``; both are loaded once, on the first look-up.

Per-sample values are ``int``/``float`` (or ``None`` for an optional metric
that does not apply); a ``ratio`` metric's value is ``(numerator,
denominator)``, stored as two score fields and aggregated as a ratio of sums.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, Literal

from gqlbench.errors import GqlbenchError
from gqlbench.plugins import load_object

__all__ = [
    "Metric",
    "Value",
    "register_metric",
    "add_metric",
    "get_metric",
    "all_metrics",
    "metric_names",
    "score_fields",
    "sample_values",
    "empty_values",
    "summary_of",
    "ENV_VAR",
    "ENTRY_POINT_GROUP",
]

ENV_VAR = "GQLBENCH_METRICS"
ENTRY_POINT_GROUP = "gqlbench.metrics"

Reads = Literal["analyses", "traces"]
Aggregation = Literal["mean", "ratio"]
Value = int | float | tuple[int | float, int | float] | None
"""A per-sample value: a number, ``(numerator, denominator)`` for a ratio metric, or None (not applicable)."""

_SUMMARY_KEYS = {"n_samples"}
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class Metric:
    """One metric, from its per-sample value to its split-level aggregate.

    ``compute(gold, predicted)`` gets the two programs'
    :class:`~gqlbench.metrics.calls.ProgramAnalysis` (``reads="analyses"``) or
    the two :class:`~gqlbench.records.Trace` (``reads="traces"``). It is not
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
    higher_is_better: bool = True
    table2: bool = False  # one of the paper's Table 2 columns
    optional: bool = False
    fields: tuple[str, str] | None = None  # ratio: the per-sample numerator and denominator fields

    def __post_init__(self) -> None:
        if not _NAME.match(self.name) or self.name in _SUMMARY_KEYS:
            raise GqlbenchError(f"metric name {self.name!r}: use lower_case letters, digits and _ (not n_samples)")
        if self.reads not in ("analyses", "traces"):
            raise GqlbenchError(f"metric {self.name!r}: reads must be 'analyses' or 'traces', not {self.reads!r}")
        if self.aggregation not in ("mean", "ratio"):
            raise GqlbenchError(f"metric {self.name!r}: aggregation must be 'mean' or 'ratio', not {self.aggregation!r}")
        if self.reads == "traces" and not self.optional:
            raise GqlbenchError(f"metric {self.name!r}: a metric that reads traces must be optional=True (runs may skip execution)")
        if self.fields is not None and self.aggregation != "ratio":
            raise GqlbenchError(f"metric {self.name!r}: fields are only for aggregation='ratio'")

    @property
    def score_fields(self) -> tuple[str, ...]:
        """The keys this metric adds to a sample's ``scores``."""
        if self.aggregation == "mean":
            return (self.name,)
        return self.fields or (f"{self.name}_numerator", f"{self.name}_denominator")

    def values(self, value: Value) -> dict[str, Any]:
        """A per-sample value as this metric's score fields."""
        if self.aggregation == "mean":
            if isinstance(value, tuple):
                raise GqlbenchError(f"metric {self.name!r}: a mean metric returns a number, got {value!r}")
            return {self.name: int(value) if isinstance(value, bool) else value}
        if value is None:
            return dict.fromkeys(self.score_fields)
        if not isinstance(value, tuple) or len(value) != 2:
            raise GqlbenchError(f"metric {self.name!r}: a ratio metric returns (numerator, denominator), got {value!r}")
        return dict(zip(self.score_fields, value, strict=True))

    def zeroed(self, value: Value) -> Value:
        """The value of a prediction that was not scored: 0, a ratio 0 of its denominator; None stays None."""
        if value is None:
            return None
        return (0, value[1]) if isinstance(value, tuple) else 0


_REGISTRY: dict[str, Metric] = {}
_loaded = False


def add_metric(metric: Metric) -> Metric:
    """Register ``metric`` (after those already registered); the same object twice is a no-op."""
    existing = _REGISTRY.get(metric.name)
    if existing is metric:
        return metric
    if existing is not None:
        raise GqlbenchError(f"metric {metric.name!r} is already registered ({existing.title}); choose another name")
    taken = {f: m.name for m in _REGISTRY.values() for f in m.score_fields}
    for field in metric.score_fields:
        if field in taken or f"n_{field}" in taken:
            raise GqlbenchError(f"metric {metric.name!r}: score field {field!r} clashes with metric {taken.get(field)!r}")
    _REGISTRY[metric.name] = metric
    return metric


def register_metric(
    name: str,
    *,
    title: str,
    reads: Reads,
    aggregation: Aggregation = "mean",
    higher_is_better: bool = True,
    table2: bool = False,
    optional: bool = False,
    fields: tuple[str, str] | None = None,
) -> Callable[[Callable[[Any, Any], Value]], Metric]:
    """Decorator: register ``compute(gold, predicted)`` as a metric; the name is bound to the :class:`Metric`."""

    def decorate(compute: Callable[[Any, Any], Value]) -> Metric:
        metric = Metric(name, title, reads, compute, aggregation, higher_is_better, table2, optional, fields)
        return add_metric(metric)

    return decorate


def _builtins() -> None:
    # imported for their registrations: the paper's four first, then execution
    importlib.import_module("gqlbench.metrics.scores")
    importlib.import_module("gqlbench.metrics.traces")


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


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


def _load_spec(spec: str) -> None:
    loaded = load_object(spec, f"{ENV_VAR} entry", module_prefix="gqlbench_metrics_", what="a Metric", module_alone=True)
    _register_loaded(loaded, f"{ENV_VAR} entry {spec}")


def _load_plugins() -> None:
    for spec in filter(None, (s.strip() for s in os.environ.get(ENV_VAR, "").split(","))):
        _load_spec(spec)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {point.name!r} ({point.value}) of group {ENTRY_POINT_GROUP}"
        try:
            loaded = point.load()
        except Exception as exc:
            raise GqlbenchError(f"{source}: cannot load it ({_one_line(exc)}); fix or uninstall its package") from None
        _register_loaded(loaded, source)


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True  # before loading: a plugin importing gqlbench.metrics must not recurse
        _builtins()
        _load_plugins()


def all_metrics() -> Iterator[Metric]:
    """Every registered metric, built-ins first, in registration order."""
    _ensure_loaded()
    return iter(list(_REGISTRY.values()))


def metric_names() -> list[str]:
    return [m.name for m in all_metrics()]


def metric_titles() -> dict[str, str]:
    """``{name: title}`` of every registered metric, for tables and pages."""
    return {m.name: m.title for m in all_metrics()}


def get_metric(name: str) -> Metric:
    _ensure_loaded()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise GqlbenchError(f"unknown metric {name!r}; registered: {', '.join(_REGISTRY)}") from None


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


def summary_of(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One group's aggregate from its samples' scores (see :func:`gqlbench.metrics.aggregate`)."""
    n = len(rows)
    summary: dict[str, Any] = {}
    counts: dict[str, Any] = {"n_samples": n}
    optional: dict[str, Any] = {}
    for metric in all_metrics():
        present = [r for r in rows if r.get(metric.score_fields[0]) is not None] if metric.optional else rows
        if metric.aggregation == "mean":
            total = sum(r.get(metric.name) or 0 for r in present)
            value = total / len(present) if present else 0.0
        else:
            num, den = metric.score_fields
            denominator = sum(r.get(den) or 0 for r in present)
            value = sum(r.get(num) or 0 for r in present) / denominator if denominator else 0.0
            if not metric.optional:
                counts[f"n_{den}"] = denominator
        if not metric.optional:
            summary[metric.name] = value
        elif present:
            optional |= {metric.name: value, f"n_{metric.name}": len(present)}
    return summary | counts | optional
