"""One sample's diagnosis, as stored in ``samples.jsonl``: its errors and its F1 counts.

``Explanation.errors`` lists every :class:`~.errors.ErrorRecord` (static,
then the sandbox's when the program ran); ``Explanation.f1_counts`` holds
``{"dataflow"|"function"|"argument": [tp, fp, fn]}`` so a split's F1 is a
ratio of sums and can be resampled by sample.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from gqlbench.metrics.calls import ProgramAnalysis
from gqlbench.metrics.errors import classify, exec_errors, mark_exec_consequences
from gqlbench.metrics.f1 import sample_counts
from gqlbench.metrics.fields import load_catalog
from gqlbench.records import Explanation, FunctionSpec, Trace

__all__ = ["diagnose", "with_exec_errors"]


def diagnose(
    domain: str,
    gold: ProgramAnalysis,
    predicted: ProgramAnalysis | None,
    functions: Mapping[str, FunctionSpec],
    offered: Collection[str] | None = None,
) -> dict[str, Any]:
    """``{"errors": [...], "f1_counts": {...}}`` of one prediction (None: no prediction, every gold call missing).

    ``offered``: the functions a prompt setting offered (see :func:`.errors.classify`).
    """
    catalog = load_catalog(domain, functions)
    errors = classify(gold, predicted if predicted is not None else ProgramAnalysis(code=""), catalog, offered=offered)
    counts = sample_counts(gold, predicted)
    return {"errors": [e.to_json() for e in errors], "f1_counts": {k: list(v) for k, v in counts.items()}}


def with_exec_errors(explanation: Explanation, trace: Trace | None, gold_trace: Trace | None = None) -> Explanation:
    """``explanation`` with the sandbox run's error appended to its errors (when it has any).

    An error the gold program's own run has too (same kind and message) is the
    dataset's defect, not the prediction's, and is left out; one whose defect a
    static record already names is kept as its consequence (not counted).
    """
    gold_error = gold_trace.error if gold_trace is not None else None
    new = [
        e
        for e in exec_errors(trace)
        if gold_error is None or (gold_error.kind, gold_error.message) != (e.kind, trace.error.message)  # type: ignore[union-attr]
    ]
    if not new or explanation.errors is None:  # a line without the taxonomy (an older run's) gets none
        return explanation
    found = [e.to_json() for e in mark_exec_consequences(explanation.errors, new)]
    return explanation.with_parts({"errors": [*explanation.errors, *found]})
