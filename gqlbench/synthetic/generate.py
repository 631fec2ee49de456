"""Generate verified samples: draw, phrase, verify, keep or drop by reason.

A sample is kept only when its gold program runs to the end on the domain's
world (the fixed world seed, the utterance as the request), every call
answered; it scores 1.0 against itself (Arg Match full and Seq Match full);
its utterance states every literal; and neither its utterance nor its program
repeats a human sample's or an earlier kept one's. The rest are counted in
:attr:`Generation.drops` by reason, with the steps the world refused while
sampling in :attr:`Generation.rejected_steps`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.metrics import score_sample
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Sample
from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.human import human_utterances, normalize
from gqlbench.synthetic.paraphrase import Rewriter, Task, rewrite
from gqlbench.synthetic.sampler import SHAPES, Draft, Dropped, Sampler
from gqlbench.synthetic.utterances import utterance

__all__ = ["ATTEMPTS_PER_SAMPLE", "Generation", "generate_samples", "missing_literals", "verify"]

ATTEMPTS_PER_SAMPLE = 20
"""Drafts tried per requested sample before giving up on a domain that cannot make more."""
SHAPE_PATIENCE = 60
"""Failed drafts in a row after which a shape counts as exhausted (a small domain has few distinct singles)."""


@dataclass
class Generation:
    """What one ``generate_samples`` call made, and what it threw away."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    drops: Counter[str] = field(default_factory=Counter)
    rejected_steps: Counter[str] = field(default_factory=Counter)
    runs: int = 0  # sandbox runs, sampling and verification
    paraphrases: Counter[str] = field(default_factory=Counter)  # "kept", and rejected ones by reason


def _states(text: str, value: str | int) -> bool:
    """Whether ``text`` states ``value``: a number as a whole number (5 is not in 50), a name exactly as written,
    a lowercase code word (``track``, ``day``) in any case."""
    if isinstance(value, int):
        return re.search(rf"(?<![\d.]){value}(?![\d]|\.\d)", text) is not None
    if value.isidentifier() and value == value.lower():
        return value in text.lower()
    return value in text


def missing_literals(code_literals: Sequence[str | int], text: str) -> list[str | int]:
    """The literals a program passes that its utterance does not state."""
    return [v for v in code_literals if not _states(text, v)]


def verify(domain: str, code: str, text: str, pool: SandboxPool, world_seed: int) -> str | None:
    """Why the gold ``code`` is not a verified sample for ``text`` (None when it is)."""
    trace = pool.run(Job(code=code, domain=domain, seed=world_seed, request=text))
    if trace.error is not None:
        return f"gold_failed:{trace.error.kind}"
    if any(call.error for call in trace.calls):
        return "gold_call_error"
    sample = Sample(
        id="test/0",
        split="test",
        index=0,
        benchmark="synthetic",
        domain=domain,
        utterance=text,
        gold_code=code,
        function_specs=[],
        graphql_schema="",
    )
    scores = score_sample(sample, code).scores
    if scores.arg_match_full != 1 or scores.seq_match_full != 1:
        return "not_self_consistent"
    return None


def _labels(draft: Draft, seed: int, world_seed: int, paraphrased: bool) -> dict[str, Any]:
    return {
        "shape": draft.shape,
        "calls": len(draft.calls),
        "edges": draft.edges(),
        "depth": draft.depth(),
        "seed": seed,
        "world_seed": world_seed,
        "paraphrased": paraphrased,
    }


def generate_samples(
    domain: str,
    n: int,
    seed: int,
    shapes: Sequence[str] = SHAPES,
    world_seed: int = 0,
    pool: SandboxPool | None = None,
    paraphrase: Rewriter | None = None,
) -> Generation:
    """``n`` verified samples of ``domain`` in the dataset's line format, shapes taken in turn.

    Deterministic for a given seed, catalog and world. Stops early (fewer
    rows) after ``ATTEMPTS_PER_SAMPLE * n`` drafts (plus ``SHAPE_PATIENCE``
    per shape), or when every shape failed ``SHAPE_PATIENCE`` drafts in a
    row; a shape the graph has no start for is given up at once. With ``paraphrase``, each kept
    sample's utterance is replaced by its paraphrase when every literal
    survives (``paraphrased`` in its labels; counts in ``paraphrases``).
    """
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown or not shapes:
        raise GqlbenchError(f"unknown shape(s) {', '.join(unknown) or '(none given)'}; shapes are {', '.join(SHAPES)}")
    if n < 1:
        raise GqlbenchError(f"--n must be at least 1, got {n}")
    graph = build_graph(domain)
    rng = random.Random(seed)
    own = pool is None
    pool = pool or SandboxPool(workers=1, max_result_chars=2_000_000)
    result = Generation()
    human = human_utterances()
    seen_text: set[str] = set()
    seen_code: set[str] = set()
    try:
        sampler = Sampler(graph, pool, rng, world_seed)
        made = dict.fromkeys(shapes, 0)
        failures = dict.fromkeys(shapes, 0)
        for _ in range(ATTEMPTS_PER_SAMPLE * n + SHAPE_PATIENCE * len(shapes)):  # a shape the graph lacks costs patience once
            open_shapes = [s for s in shapes if failures[s] < SHAPE_PATIENCE]
            if len(result.rows) == n or not open_shapes:
                break
            shape = min(open_shapes, key=lambda s: made[s])  # balanced: the shape with the fewest samples so far
            failures[shape] += 1
            try:
                draft = sampler.draw(shape)
            except Dropped as dropped:
                result.drops[dropped.reason] += 1
                if dropped.reason.startswith("no_start_for_"):  # the graph has no way to this shape: stop asking
                    failures[shape] = SHAPE_PATIENCE
                continue
            text, code = utterance(graph, draft, rng), draft.code()
            reason = (
                "unfaithful"
                if missing_literals(draft.literals(), text)
                else "copies_human"
                if normalize(text) in human
                else "duplicate"
                if normalize(text) in seen_text or code in seen_code
                else None
            )
            if reason is None:
                result.runs += 1
                reason = verify(domain, code, text, pool, world_seed)
            if reason is not None:
                result.drops[reason] += 1
                continue
            outcome = rewrite(paraphrase, Task(domain, code, tuple(draft.literals())), pool, world_seed, seen_text) if paraphrase else None
            if outcome is not None:
                result.runs += outcome.runs
                result.paraphrases[outcome.verdict] += 1
                if outcome.dropped:  # the round trip failed: the sample goes, and its program is not drawn again
                    result.drops[f"paraphrase_{outcome.verdict}"] += 1
                    seen_code.add(code)
                    continue
            new = outcome.text if outcome is not None else None
            made[shape] += 1
            failures[shape] = 0
            seen_text.add(normalize(text))
            if new is not None:
                seen_text.add(normalize(new))
                text = new
            seen_code.add(code)
            labels = _labels(draft, seed, world_seed, new is not None)
            if outcome is not None:
                labels["paraphrase"] = outcome.record()
            result.rows.append({"domain": domain, "utterance": text, "output": code, "synthetic": labels})
        result.rejected_steps = sampler.rejected
        result.runs += sampler.runs
    finally:
        if own:
            pool.close()
    return result
