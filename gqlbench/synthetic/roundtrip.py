"""The round trip: a second model writes a program from a generated request alone, and it must execute like the gold.

The verifier (``samples generate --verify-model``) is prompted exactly as
``gqlbench run`` prompts a model under the default settings (CoT, the
default few-shot examples of the bundled benchmark, the gold's functions and
their response schema; :class:`gqlbench.run.generate.Generator` builds it),
so the request is judged by what a model being evaluated would read. Its
program and the gold each run on a fresh world from the same seed, with the
request as the user's words, and the request passes when Exec Match is 1: the
same calls with the same values and the same final state
(:func:`gqlbench.metrics.traces.exec_match`, as a run scores it).

The rule a set made this way must keep: the verifier is never the model the
set evaluates (a request that one model reads back right says nothing of how
that model reads others'), so each sample records it (``synthetic.paraphrase.verify_model``).
The verifier may be the paraphrase model.
"""

from __future__ import annotations

from gqlbench.dataset import fill_from_catalog
from gqlbench.generators.backends.backend import Backend
from gqlbench.metrics import extract_code
from gqlbench.metrics.traces import exec_match
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Sample
from gqlbench.synthetic.paraphrase import RoundTrip

__all__ = ["backend_round_trip"]


def backend_round_trip(backend: Backend, model: str, seed: int = 0) -> RoundTrip:
    """A :data:`~gqlbench.synthetic.paraphrase.RoundTrip` asking ``backend`` (greedy, ``seed``) as a default run would."""
    from gqlbench.run.config import RunSettings
    from gqlbench.run.generate import Generator

    generator: Generator | None = None
    asked = 0

    def round_trip(domain: str, code: str, request: str, pool: SandboxPool, world_seed: int) -> str | None:
        nonlocal generator, asked
        if generator is None:  # built on first use, with the pool of the generation it verifies
            generator = Generator(RunSettings(model=model, seed=seed, execute=False), backend, None, lambda: pool)
        asked += 1  # the run's presenter keeps each sample it showed by id: every request is a sample of its own
        sample = Sample(
            id=f"test/{asked}",
            split="test",
            index=asked,
            benchmark="synthetic",
            domain=domain,
            utterance=request,
            gold_code=code,  # picks the functions the prompt offers (--functions gold); never shown
            function_specs=[],
            graphql_schema="",
        )
        sample = fill_from_catalog(sample)
        completions = list(generator.style.generate([(sample, generator.prompt(sample))], backend, generator.config))
        if not completions or completions[0].error is not None:
            return "verifier_error"
        answer = generator.style.answer(completions[0])
        program = answer.code if answer.code is not None else extract_code(answer.prediction)
        if not program.strip():
            return "verifier_no_program"
        gold, pred = pool.run_many([Job(code=c, domain=domain, seed=world_seed, request=request) for c in (code, program)])
        if gold.error is not None:
            return "gold_fails_with_it"
        if pred.error is not None:
            return f"verifier_failed:{pred.error.kind}"
        return None if exec_match.compute(gold, pred) == 1 else "verifier_differs"

    return round_trip
