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
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.metrics import score_sample
from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.records import Sample
from gqlbench.synthetic.by_intent import (
    INTENT_SHAPES,
    PER_SKELETON,
    draw,
    fresh,
    one_right_program,
    program_labels,
    repeated_call,
    shape_order,
    skeleton,
)
from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.human import human_utterances, normalize
from gqlbench.synthetic.intents import Lexicon, literals
from gqlbench.synthetic.lexicons import lexicon_for
from gqlbench.synthetic.paraphrase import Rewriter, Task, rewrite
from gqlbench.synthetic.sampler import SHAPES, Draft, Dropped, Sampler
from gqlbench.synthetic.utterances import utterance

__all__ = ["ATTEMPTS_PER_SAMPLE", "Generation", "generate_by_intent", "generate_samples", "missing_literals", "verify"]

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


@dataclass
class _Keeper:
    """What both routes check before and record after keeping a sample: repeats, the skeleton cap, the paraphrase."""

    domain: str
    pool: SandboxPool
    world_seed: int
    result: Generation
    paraphrase: Rewriter | None
    avoid_skeletons: Collection[str]
    human: frozenset[str] = field(default_factory=human_utterances)
    seen_text: set[str] = field(default_factory=set)
    seen_code: set[str] = field(default_factory=set)
    skeletons: Counter[str] = field(default_factory=Counter)

    def refuse(self, text: str, code: str, literals: Sequence[str | int]) -> str | None:
        """Why the draft is not kept before running it (None when it may be verified)."""
        if missing_literals(literals, text):
            return "unfaithful"
        key = skeleton(code)
        return fresh(text, code, self.human, self.seen_text, self.seen_code) or (
            "skeleton_full" if self.skeletons[key] >= PER_SKELETON or key in self.avoid_skeletons else None
        )

    def keep(self, text: str, code: str, literals: Sequence[str | int], labels: dict[str, Any]) -> bool:
        """Record a verified sample (True), its request rewritten when a rewriter is given; False when the round trip drops it."""
        task = Task(self.domain, code, tuple(literals))
        outcome = rewrite(self.paraphrase, task, self.pool, self.world_seed, self.seen_text) if self.paraphrase else None
        if outcome is not None:
            self.result.runs += outcome.runs
            self.result.paraphrases[outcome.verdict] += 1
            if outcome.dropped:  # the round trip failed: the sample goes, and its program is not drawn again
                self.result.drops[f"paraphrase_{outcome.verdict}"] += 1
                self.seen_code.add(code)
                return False
        new = outcome.text if outcome is not None else None
        self.skeletons[skeleton(code)] += 1
        self.seen_text.add(normalize(text))
        self.seen_code.add(code)
        if new is not None:
            self.seen_text.add(normalize(new))
        labels["paraphrased"] = new is not None
        if outcome is not None:
            labels["paraphrase"] = outcome.record()
        self.result.rows.append({"domain": self.domain, "utterance": new or text, "output": code, "synthetic": labels})
        return True


def generate_samples(
    domain: str,
    n: int,
    seed: int,
    shapes: Sequence[str] | None = None,
    world_seed: int = 0,
    pool: SandboxPool | None = None,
    paraphrase: Rewriter | None = None,
    avoid_skeletons: Collection[str] = (),
) -> Generation:
    """``n`` verified samples of ``domain`` in the dataset's line format, shapes taken in turn.

    A domain with a lexicon (:mod:`.lexicons`: spotify, tmdb) is phrased by
    intent (:func:`generate_by_intent`, shapes :data:`.by_intent.INTENT_SHAPES`);
    any other walks its dataflow graph (shapes :data:`.sampler.SHAPES`). Either
    way at most :data:`.by_intent.PER_SKELETON` items share a program skeleton,
    and none has a skeleton in ``avoid_skeletons`` (a test split's, when making train).

    Deterministic for a given seed, catalog and world. Stops early (fewer
    rows) after ``ATTEMPTS_PER_SAMPLE * n`` drafts (plus ``SHAPE_PATIENCE``
    per shape), or when every shape failed ``SHAPE_PATIENCE`` drafts in a
    row; a shape the graph has no start for is given up at once. With ``paraphrase``, each kept
    sample's utterance is replaced by its paraphrase when every literal
    survives (``paraphrased`` in its labels; counts in ``paraphrases``).
    """
    lexicon = lexicon_for(domain)
    known = INTENT_SHAPES if lexicon is not None else SHAPES
    shapes = known if shapes is None else tuple(shapes)
    unknown = [s for s in shapes if s not in known]
    if unknown or not shapes:
        raise GqlbenchError(f"unknown shape(s) {', '.join(unknown) or '(none given)'} for {domain}; its shapes are {', '.join(known)}")
    if n < 1:
        raise GqlbenchError(f"--n must be at least 1, got {n}")
    if lexicon is not None:
        return generate_by_intent(lexicon, n, seed, shapes, world_seed, pool, paraphrase, avoid_skeletons)
    graph = build_graph(domain)
    rng = random.Random(seed)
    own = pool is None
    pool = pool or SandboxPool(workers=1, max_result_chars=2_000_000)
    result = Generation()
    keeper = _Keeper(domain, pool, world_seed, result, paraphrase, avoid_skeletons)
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
            reason = keeper.refuse(text, code, draft.literals())
            if reason is None:
                result.runs += 1
                reason = verify(domain, code, text, pool, world_seed)
            if reason is not None:
                result.drops[reason] += 1
                continue
            if keeper.keep(text, code, draft.literals(), _labels(draft, seed, world_seed, False)):
                made[shape] += 1
                failures[shape] = 0
        result.rejected_steps = sampler.rejected
        result.runs += sampler.runs
    finally:
        if own:
            pool.close()
    return result


def generate_by_intent(
    lexicon: Lexicon,
    n: int,
    seed: int,
    shapes: Sequence[str],
    world_seed: int = 0,
    pool: SandboxPool | None = None,
    paraphrase: Rewriter | None = None,
    avoid_skeletons: Collection[str] = (),
) -> Generation:
    """``n`` samples of ``lexicon``'s domain phrased by intent, each checked for one right program (:mod:`.by_intent`)."""
    domain = lexicon.domain
    rng = random.Random(seed)
    own = pool is None
    pool = pool or SandboxPool(workers=1, max_result_chars=2_000_000)
    result = Generation()
    keeper = _Keeper(domain, pool, world_seed, result, paraphrase, avoid_skeletons)
    made: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    shapes = [s for s in shapes if s != "combine" or any(len(a.slots) == 2 for a in lexicon.asks)]  # tmdb asks of one thing
    try:
        for _ in range(ATTEMPTS_PER_SAMPLE * n):
            open_shapes = [s for s in shapes if failures[s] < SHAPE_PATIENCE * 5]
            if len(result.rows) == n or not open_shapes:
                break
            shape = shape_order(open_shapes, made)
            failures[shape] += 1
            drawn = draw(lexicon, rng, shape)
            if drawn is None:
                result.drops["no_composition"] += 1
                continue
            composed, text, code = drawn
            reason = "repeated_call" if repeated_call(code) else keeper.refuse(text, code, literals(composed))
            if reason is None:
                result.runs += 1
                reason = verify(domain, code, text, pool, world_seed)
            if reason is None:
                gold = pool.run(Job(code=code, domain=domain, seed=world_seed, request=text))
                reason, runs = one_right_program(composed, gold, text, domain, pool, world_seed)
                result.runs += 1 + runs
            if reason is not None:
                result.drops[reason] += 1
                continue
            labels = {"shape": shape, **program_labels(code), "seed": seed, "world_seed": world_seed}
            if keeper.keep(text, code, literals(composed), labels):
                made[shape] += 1
                failures[shape] = 0
    finally:
        if own:
            pool.close()
    return result
