"""Generation for a domain with a lexicon: compose, check there is one right program, verify, keep.

A composed request (:mod:`.intents`) is kept only when its gold runs and
scores 1.0 against itself (:func:`.generate.verify`), it states every literal,
it copies no human or earlier utterance, its skeleton has fewer than
``per_skeleton`` kept items and is not in ``avoid`` (train and test are
disjoint by skeleton), and it has exactly one right program as far as the
catalog allows checking cheaply:

- every alternative reading the lexicon lists for its nouns (the first crew
  member for "the director", the last of several creators) either fails to run
  or makes the same final call and the same writes (``ambiguous`` otherwise);
- a ``limit`` it passes changes what the list returns (``limit_changes_nothing``
  otherwise: a reader could pass it or not);
- every write it makes changes the world (``write_changes_nothing`` otherwise:
  following an artist already followed, unsaving a song not saved; a final-state
  check cannot tell such a gold from a program that skips the write).
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.program import read_program
from gqlbench.records import Trace
from gqlbench.synthetic.contents import CONTENTS_RUNTIME
from gqlbench.synthetic.human import normalize
from gqlbench.synthetic.intents import Composed, Lexicon, alternatives, compose, limited, program_labels, render, utterance
from gqlbench.synthetic.literals import names_for

__all__ = [
    "INTENT_SHAPES",
    "PER_SKELETON",
    "SHAPE_WEIGHTS",
    "Candidate",
    "draw",
    "fresh",
    "idle_write",
    "one_right_program",
    "program_labels",
    "repeated_call",
    "shape_order",
    "skeleton",
]

INTENT_SHAPES = ("single", "chain", "combine", "two_parts")
"""single: one ask on a named thing (mostly one call); chain: an ask on a noun found through one or two others;
combine: an ask of two things (one call reads two responses); two_parts: two independent asks in one request."""
SHAPE_WEIGHTS = {"single": 1, "chain": 5, "combine": 1, "two_parts": 1}
"""How often each shape is drawn when all are asked for (chains are most of what people ask; two unrelated asks
in one request are rare in the human split: 6%)."""
PER_SKELETON = 3
"""At most this many kept items per program skeleton (issue #32)."""

Candidate = tuple[Composed, str, str]  # composed, utterance, gold code


def draw(lexicon: Lexicon, rng: random.Random, shape: str) -> Candidate | None:
    """A composed request of ``shape`` with its words and gold program, or None when the draw found nothing."""
    names = {noun.names: names_for(lexicon.domain, noun.names) for noun in lexicon.nouns if noun.names}
    composed = compose(lexicon, rng, names, shape)
    if composed is None:
        return None
    return composed, utterance(composed), render(composed)


def skeleton(code: str) -> str:
    program = read_program(code)
    return program.skeleton if program.skeleton is not None else code


def _effect(trace: Trace) -> tuple[Any, ...]:
    """What a program does, for comparing readings: its final call and its writes (lookups on the way may differ)."""
    calls = [(c.function, sorted((k, repr(v)) for k, v in c.arguments.items())) for c in trace.calls]
    writes = [c for c in calls if not c[0].startswith("GET_")]
    return (calls[-1] if calls else None, writes)


def _run(pool: SandboxPool, domain: str, code: str, text: str, world_seed: int) -> Trace:
    return pool.run(Job(code=code, domain=domain, seed=world_seed, request=text))


def _digest(pool: SandboxPool, domain: str, code: str, text: str, world_seed: int) -> str | None:
    trace = pool.run(Job(code=code or "pass", domain=domain, seed=world_seed, request=text, runtime=CONTENTS_RUNTIME))
    return trace.world_digest if trace.error is None else None


def idle_write(code: str, text: str, domain: str, pool: SandboxPool, world_seed: int) -> tuple[bool, int]:
    """Whether one of the writes ``code`` makes leaves the world as it was (and the sandbox runs spent).

    Each top-level statement calling a function that is not a ``GET_`` is run
    after the statements before it, and the world digests with and without it are
    compared: lookups do not change the world, so the prefix holds all it needs.
    The digest is :mod:`.contents`' (no clock ticks or stamps); a prefix that
    fails to run counts as a change (nothing to compare).
    """
    lines = code.splitlines()
    runs = 0
    for statement in ast.parse(code).body:
        value = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)) or value.func.id.startswith("GET_"):
            continue
        before = "\n".join(lines[: statement.lineno - 1])
        after = "\n".join(lines[: statement.end_lineno])
        runs += 2
        digests = _digest(pool, domain, before, text, world_seed), _digest(pool, domain, after, text, world_seed)
        if None not in digests and digests[0] == digests[1]:
            return True, runs
    return False, runs


def one_right_program(
    composed: Composed, gold: Trace, text: str, domain: str, pool: SandboxPool, world_seed: int
) -> tuple[str | None, int]:
    """Why ``composed`` has more than one right program (None when it has one), and the sandbox runs spent."""
    runs = 0
    code = render(composed)
    for swap in alternatives(composed):
        other = render(composed, swap=swap)
        if other == code:
            continue
        runs += 1
        trace = _run(pool, domain, other, text, world_seed)
        if trace.error is None and not any(c.error for c in trace.calls) and _effect(trace) != _effect(gold):
            return "ambiguous", runs
    if limited(composed):
        runs += 1
        trace = _run(pool, domain, render(composed, drop_limit=True), text, world_seed)
        if [c.response_ids for c in trace.calls] == [c.response_ids for c in gold.calls]:
            return "limit_changes_nothing", runs
    idle, spent = idle_write(code, text, domain, pool, world_seed)
    return ("write_changes_nothing" if idle else None), runs + spent


def shape_order(shapes: Sequence[str], made: Counter[str]) -> str:
    """The shape to draw next: the one furthest below its share (:data:`SHAPE_WEIGHTS`)."""
    return min(shapes, key=lambda s: (made[s] / SHAPE_WEIGHTS.get(s, 1), shapes.index(s)))


def fresh(text: str, code: str, human: Collection[str], seen_text: Collection[str], seen_code: Collection[str]) -> str | None:
    """Why a draft repeats something (None when it does not)."""
    if normalize(text) in human:
        return "copies_human"
    if normalize(text) in seen_text or code in seen_code:
        return "duplicate"
    return None


def repeated_call(code: str) -> bool:
    """Whether the program makes the same call twice (two parts that look the same list up: a reader reuses it)."""
    calls = [line.split(" = ", 1)[-1] for line in code.splitlines()]
    return len(set(calls)) < len(calls)
