"""Running gold and predicted programs, sample by sample, through one sandbox pool.

Every program, gold included, runs through the sandbox
(:mod:`gqlbench.mocks.sandbox.pool`) on a fresh world from the same seed; what
comes back is the pair of :class:`~gqlbench.records.Trace`. Scoring the pair
(Exec Success, Exec Match, and any other metric that reads traces) is
:mod:`gqlbench.metrics.traces`' job, not this module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from gqlbench.records import Sample, Trace

__all__ = ["TracePair", "execute_samples"]


class TracePair(NamedTuple):
    """The traces of one sample's gold and predicted programs, run on worlds from the same seed."""

    gold: Trace
    pred: Trace


def execute_samples(
    samples: Iterable[Sample],
    predictions_code: Mapping[str, str],
    seed: int = 0,
    pool: Any = None,
) -> dict[str, TracePair]:
    """Run gold and predicted programs of many samples through one sandbox pool.

    ``predictions_code`` maps a sample id to the predicted program; samples
    without a prediction are skipped. A pool is created (and closed) when
    none is given.
    """
    from gqlbench.mocks.sandbox.pool import Job, SandboxPool

    chosen = [s for s in samples if s.id in predictions_code]
    jobs = []
    for sample in chosen:
        for code in (sample.gold_code, predictions_code[sample.id]):
            jobs.append(Job(code=code, domain=sample.domain, seed=seed, sample_id=sample.id, request=sample.utterance))
    own_pool = pool is None
    pool = SandboxPool() if own_pool else pool
    try:
        traces = pool.run_many(jobs)
    finally:
        if own_pool:
            pool.close()
    return {sample.id: TracePair(traces[2 * i], traces[2 * i + 1]) for i, sample in enumerate(chosen)}
