"""Execution metrics: does the predicted program run, and does it do what the gold one does?

* **Exec Success** (1/0): the program passed the static check and ran to the
  end without an error.
* **Exec Match** (1/0): gold and prediction, each run on a fresh world from
  the same seed, made the same multiset of calls (function and concrete
  argument values) and left the world in the same final state. It is ``None``
  when the gold program itself does not run (nothing to compare against);
  the reason is in the details.

The details also give the first call where the prediction's trace diverges
from the gold trace (position by position), so a failure can be read.
Every program, gold included, runs through the sandbox
(:mod:`gqlbench.mocks.sandbox`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gqlbench.records import Sample, Trace, TraceCall

__all__ = ["ExecOutcome", "call_key", "first_divergence", "exec_scores", "execute_samples"]


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


def exec_scores(gold: Trace, pred: Trace) -> tuple[int, int | None, dict[str, Any]]:
    """``(exec_success, exec_match, details)`` of a prediction against its gold run."""
    success = int(pred.error is None)
    details: dict[str, Any] = {"divergence": first_divergence(gold, pred)}
    if pred.error is not None:
        details["error"] = pred.error.model_dump()
    if gold.error is not None:
        details["gold_error"] = gold.error.model_dump()
        return success, None, details
    same_calls = Counter(map(call_key, gold.calls)) == Counter(map(call_key, pred.calls))
    same_state = gold.world_digest is not None and gold.world_digest == pred.world_digest
    details["same_calls"] = same_calls
    details["same_final_state"] = same_state
    return success, int(success and same_calls and same_state), details


@dataclass(frozen=True)
class ExecOutcome:
    """One sample's execution scores and the two traces they come from."""

    exec_success: int
    exec_match: int | None
    details: dict[str, Any]
    gold: Trace
    pred: Trace

    def scores(self) -> dict[str, int | None]:
        """The :class:`~gqlbench.records.Scores` fields this outcome sets."""
        return {"exec_success": self.exec_success, "exec_match": self.exec_match}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: scores, details and both traces (for ``samples.jsonl``)."""
        return {**self.scores(), **self.details, "gold_trace": self.gold.model_dump(), "pred_trace": self.pred.model_dump()}


def execute_samples(
    samples: Iterable[Sample],
    predictions_code: Mapping[str, str],
    seed: int = 0,
    pool: Any = None,
) -> dict[str, ExecOutcome]:
    """Run gold and predicted programs of many samples through one sandbox pool.

    ``predictions_code`` maps a sample id to the predicted program; samples
    without a prediction are skipped. A pool is created (and closed) when
    none is given.
    """
    from gqlbench.mocks.sandbox import Job, SandboxPool

    chosen = [s for s in samples if s.id in predictions_code]
    jobs = []
    for sample in chosen:
        jobs.append(Job(code=sample.gold_code, domain=sample.domain, seed=seed, sample_id=sample.id))
        jobs.append(Job(code=predictions_code[sample.id], domain=sample.domain, seed=seed, sample_id=sample.id))
    own_pool = pool is None
    pool = SandboxPool() if own_pool else pool
    try:
        traces = pool.run_many(jobs)
    finally:
        if own_pool:
            pool.close()
    outcomes = {}
    for i, sample in enumerate(chosen):
        gold, pred = traces[2 * i], traces[2 * i + 1]
        success, match, details = exec_scores(gold, pred)
        outcomes[sample.id] = ExecOutcome(success, match, details, gold, pred)
    return outcomes
