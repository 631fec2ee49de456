"""Joining the two scoring branches: static metrics and sandboxed execution.

``gqlbench.metrics`` scores a program by reading it; ``gqlbench.mocks`` runs
it. Neither knows the other, so the two places that want both
(:mod:`gqlbench.scoring.evaluation` for ``evaluate``, :mod:`gqlbench.run.runner` for
``run``) call :func:`add_exec_scores` on the metric results: the mocks run
the programs, :mod:`gqlbench.metrics.traces` scores the traces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from gqlbench.errors import GqlbenchError
from gqlbench.records import Sample, SampleResult, Scores

if TYPE_CHECKING:
    from gqlbench.mocks.sandbox.pool import SandboxPool

__all__ = ["add_exec_scores", "require_known_domains", "not_run_domains"]


def not_run_domains(results: Iterable[SampleResult]) -> list[str]:
    """The domains of results that have no execution scores because the catalog has no mock world for them."""
    return sorted({r.domain for r in results if r.explanation.exec is not None and r.explanation.exec.not_run})


def require_known_domains(domains: Iterable[str]) -> None:
    """Raise for a domain the catalog lacks: its programs cannot be executed, and a typo should not pass as static scores."""
    from gqlbench.specs import list_domains
    from gqlbench.specs.catalog import unknown_domain

    known = set(list_domains())
    for domain in sorted(set(domains) - known):
        error = unknown_domain(domain)
        raise GqlbenchError(f"the samples' {error}; or pass --no-exec to score without execution")


def add_exec_scores(
    results: Sequence[SampleResult],
    samples: Mapping[str, Sample],
    codes: Mapping[str, str | None],
    *,
    seed: int = 0,
    pool: SandboxPool | None = None,
) -> list[SampleResult]:
    """Return ``results`` with the scores of every metric that reads traces set, and the traces explained.

    ``codes`` maps a sample id to the extracted program, or ``None`` when the
    sample has no prediction. A blank program counts as no prediction (running
    nothing is not a successful call chain), and so does one the metrics found
    too large to analyse (``explanation.too_large``: it is not run either).
    Such a sample scores 0 (its gold still runs, so
    ``exec_match`` stays ``None`` exactly when the gold program cannot run and
    every run averages Exec Match over the same samples). Skipped samples
    (invalid gold) are left as they are, and so are samples of a domain the
    catalog does not define (there is nothing to run them against): their
    explanation says so.
    """
    from gqlbench.metrics.diagnose import with_exec_errors
    from gqlbench.metrics.traces import trace_scores
    from gqlbench.mocks.execution import execute_samples
    from gqlbench.specs import list_domains

    known = set(list_domains())
    too_large = {r.id for r in results if r.explanation.too_large}
    codes = {sample_id: (code if code and code.strip() and sample_id not in too_large else None) for sample_id, code in codes.items()}
    scored = [r for r in results if r.skipped is None and r.id in codes and r.domain in known]
    traces = execute_samples(
        [samples[r.id] for r in scored],
        {r.id: codes[r.id] or "" for r in scored},
        seed=seed,
        pool=pool,
    )
    updated = []
    for result in results:
        pair = traces.get(result.id)
        if pair is None:
            if result.skipped is None and result.domain not in known:
                reason = f"domain {result.domain!r} is not in the catalog: no mock world to run it against"
                result = result.model_copy(update={"explanation": result.explanation.with_parts({"exec": {"not_run": reason}})})
            updated.append(result)
            continue
        ran = codes[result.id] is not None  # nothing was predicted, or nothing that may run: nothing ran
        values, details = trace_scores(pair.gold, pair.pred, ran=ran)
        if not ran:
            details["pred_not_run"] = "too large to analyse" if result.id in too_large else "no program"
        scores = Scores.model_validate(result.scores.model_dump() | values)
        explanation = with_exec_errors(result.explanation.with_parts({"exec": details}), pair.pred if ran else None, pair.gold)
        updated.append(result.model_copy(update={"scores": scores, "explanation": explanation}))
    return updated
