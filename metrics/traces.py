"""Execution metrics, read from the two traces: does the prediction run, and does it do what the gold does?

* **Exec Success** (1/0): the program passed the static check and ran to the
  end without an error.
* **Exec Match** (1/0): gold and prediction, each run on a fresh world from
  the same seed, made the same multiset of calls (function and concrete
  argument values) and left the world in the same final state. It is ``None``
  when the gold program itself does not run (nothing to compare against);
  the reason is in the details.

Both are registered :class:`~.registry.Metric` (``reads="traces"``); the
programs are run elsewhere (:mod:`gqlbench.mocks.execution`, in the sandbox)
and only their :class:`~gqlbench.records.Trace` come here. The details give
the first call where the prediction's trace diverges from the gold trace
(position by position), so a failure can be read.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from gqlbench.metrics.registry import register_metric, sample_values
from gqlbench.records import Trace, TraceCall

__all__ = ["call_key", "first_divergence", "same_calls", "same_final_state", "exec_details", "trace_scores"]


def call_key(call: TraceCall) -> str:
    """A call as one canonical string: function and argument values (order-free)."""
    return json.dumps([call.function, call.arguments], sort_keys=True, separators=(",", ":"), default=str)


def first_divergence(gold: Trace, pred: Trace) -> dict[str, Any] | None:
    """The first position where the traces' calls differ (None if they agree)."""
    for index in range(max(len(gold.calls), len(pred.calls))):
        g = gold.calls[index] if index < len(gold.calls) else None
        p = pred.calls[index] if index < len(pred.calls) else None
        if g is None or p is None or call_key(g) != call_key(p) or p.error:
            return {"index": index, "gold": g.model_dump() if g else None, "pred": p.model_dump() if p else None}
    if pred.error is not None and gold.error is None:
        return {"index": len(pred.calls), "gold": None, "pred": None, "error": pred.error.model_dump()}
    return None


def same_calls(gold: Trace, pred: Trace) -> bool:
    """The same multiset of calls, order aside (never when a trace left calls out: they cannot be compared)."""
    if gold.calls_left_out or pred.calls_left_out:
        return False
    return Counter(map(call_key, gold.calls)) == Counter(map(call_key, pred.calls))


def same_final_state(gold: Trace, pred: Trace) -> bool:
    return gold.world_digest is not None and gold.world_digest == pred.world_digest


@register_metric("exec_success", title="Exec Success", reads="traces", optional=True, short="ExecOK")
def exec_success(gold: Trace, pred: Trace) -> int:
    """1 when the predicted program ran to the end without an error."""
    return int(pred.error is None)


@register_metric("exec_match", title="Exec Match", reads="traces", optional=True, short="ExecMatch")
def exec_match(gold: Trace, pred: Trace) -> int | None:
    """1 when the prediction ran and made the gold's calls with the gold's final state; None when the gold fails."""
    if gold.error is not None:
        return None
    return int(pred.error is None and same_calls(gold, pred) and same_final_state(gold, pred))


def exec_details(gold: Trace, pred: Trace) -> dict[str, Any]:
    """Why the execution scores are what they are: divergence, errors, and the two comparisons.

    The divergence is stored as its ``index`` only: the two calls there are in
    the traces, which the details hold in full (storing them again doubled a
    large trace in ``samples.jsonl``; older run folders have them, readers use
    only the index).
    """
    divergence = first_divergence(gold, pred)
    details: dict[str, Any] = {"divergence": None if divergence is None else {"index": divergence["index"]}}
    if pred.error is not None:
        details["error"] = pred.error.model_dump()
    if gold.error is not None:
        details["gold_error"] = gold.error.model_dump()
        return details
    details["same_calls"] = same_calls(gold, pred)
    details["same_final_state"] = same_final_state(gold, pred)
    return details


def trace_scores(gold: Trace, pred: Trace, *, ran: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(scores, details)`` of a prediction's trace against its gold's, over every metric that reads traces.

    ``ran=False``: the prediction was not allowed to run (no program, too
    large), so each value is zeroed (see :class:`~.registry.Metric`).
    The details are JSON-ready, with both traces, for ``samples.jsonl``.
    """
    scores = sample_values("traces", gold, pred, scored=ran)
    details = {**scores, **exec_details(gold, pred), "gold_trace": gold.model_dump(), "pred_trace": pred.model_dump()}
    return scores, details
