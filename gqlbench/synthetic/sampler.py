"""Seeded walks of a domain's dataflow graph, each step run on the domain's mock world.

A draft grows one call at a time: the program so far runs in the sandbox
(``observe_last``), and only an edge whose path holds a value in the response
the world actually gave may feed the next call; a call the world refuses is
rejected and another edge tried. So every edge of a finished draft carries a
value the world produced, and the only literals are the start call's (a name
from the world fixture or a value human gold passes) and a later call's
non-id required parameters (values human gold passes).

Shapes: ``single`` (one call), ``chain`` (start -> lookup -> sub-resource,
2-4 calls, each fed by the one before) and ``fan_out`` (one response feeding
two calls). Everything random comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gqlbench.mocks.sandbox.pool import Job, SandboxPool
from gqlbench.synthetic.graph import DataflowGraph, Edge, Path, render_path
from gqlbench.synthetic.literals import names_for

__all__ = ["OPTIONAL_RATE", "SHAPES", "Ref", "Call", "Draft", "Dropped", "Sampler", "resolve"]

SHAPES = ("single", "chain", "long_chain", "fan_out", "fan_in")
"""single: one call; chain: 2-4 calls, each fed by the one before; long_chain: 5-6 such calls; fan_out: one response
feeding two calls; fan_in: two independent branches (a start, or a start and a lookup) feeding one call."""
LONG_CHAIN = (5, 6)
VARIABLE = "response_obj"
_TRIES_PER_STEP = 3
OPTIONAL_RATE = 0.15
"""How often a call also passes one optional literal (a ``limit``, a value human gold passes)."""


@dataclass(frozen=True)
class Ref:
    """An argument read from the response of call ``step`` at ``path``."""

    step: int
    path: Path


Literal = str | int
Argument = Literal | Ref


@dataclass(frozen=True)
class Call:
    function: str
    args: tuple[tuple[str, Argument], ...]

    def literals(self) -> list[tuple[str, Literal]]:
        return [(p, v) for p, v in self.args if not isinstance(v, Ref)]

    def refs(self) -> list[tuple[str, Ref]]:
        return [(p, v) for p, v in self.args if isinstance(v, Ref)]


def _variable(step: int) -> str:
    return VARIABLE if step == 0 else f"{VARIABLE}{step}"


def _render_arg(value: Argument) -> str:
    if isinstance(value, Ref):
        return _variable(value.step) + render_path(value.path)
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Draft:
    """A program being sampled: its calls and the responses the world gave them."""

    shape: str
    calls: list[Call] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)

    def code(self, assign_last: bool = False) -> str:
        """The program as the human gold writes it: ``response_obj``, ``response_obj1``... (the last call unassigned)."""
        lines = []
        for step, call in enumerate(self.calls):
            text = f"{call.function}({', '.join(f'{p}={_render_arg(v)}' for p, v in call.args)})"
            last = step == len(self.calls) - 1
            lines.append(text if last and not assign_last else f"{_variable(step)} = {text}")
        return "\n".join(lines)

    def literals(self) -> list[Literal]:
        return [v for call in self.calls for _, v in call.literals()]

    def edges(self) -> int:
        return sum(len(call.refs()) for call in self.calls)

    def depth(self) -> int:
        """Calls on the longest dataflow path."""
        depth: list[int] = []
        for call in self.calls:
            depth.append(1 + max((depth[ref.step] for _, ref in call.refs()), default=0))
        return max(depth, default=0)


class Dropped(Exception):
    """A draft that cannot be finished; ``reason`` is what the counts are keyed by."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def resolve(value: Any, path: Path) -> Any:
    """The value at ``path`` inside a JSON response, or None when it is not there."""
    for part in path:
        if isinstance(part, int):
            if not isinstance(value, list) or len(value) <= part:
                return None
        elif not isinstance(value, dict):
            return None
        value = value[part] if isinstance(part, int) or part in value else None
    return value


def _passed(draft: Draft, step: int) -> set[Any]:
    """The values call ``step`` was passed from earlier responses (its own id, read back, would be a detour)."""
    return {resolve(draft.responses[ref.step], ref.path) for _, ref in draft.calls[step].refs()}


def _fresh_path(response: Any, path: Path, passed: set[Any]) -> Path | None:
    """``path``, or the same path into the second or third element of its first list, whose value is a key not in
    ``passed`` (a list of similar movies may start with the movie asked about); None when there is none."""
    at = next((i for i, part in enumerate(path) if isinstance(part, int)), None)
    for index in (0, 1, 2) if at is not None else (0,):
        candidate = path if at is None else (*path[:at], index, *path[at + 1 :])
        value = resolve(response, candidate)
        if _is_key(value) and value not in passed:
            return candidate
    return None


def _same_element(old: Path, new: Path, other: Path) -> Path:
    """``other``, a path into the element ``old`` reads, moved to the element ``new`` reads (``[0]`` -> ``[1]``)."""
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b), None)
    return other if at is None or other[:at] != old[:at] else (*other[:at], new[at], *other[at + 1 :])


def _is_key(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool) and value != ""


class Sampler:
    """Draws drafts of one domain; ``rejected`` counts the steps the world refused, by error kind."""

    def __init__(self, graph: DataflowGraph, pool: SandboxPool, rng: random.Random, world_seed: int = 0) -> None:
        self.graph = graph
        self.pool = pool
        self.rng = rng
        self.world_seed = world_seed
        self.rejected: Counter[str] = Counter()
        self.runs = 0
        self._reach: dict[tuple[str, int], bool] = {}

    def draw(self, shape: str) -> Draft:
        """A draft of ``shape``; raises :class:`Dropped` when the walk cannot finish."""
        draft = Draft(shape)
        reads = [s for s in self.graph.starts() if not self.graph.endpoints[s].writes]
        if shape == "single":
            self._start(draft, self.graph.starts())
        elif shape in ("chain", "long_chain"):
            self._start(draft, [s for s in reads if self.graph.edges_from(s)])
            low, high = (2, 4) if shape == "chain" else LONG_CHAIN
            length = self.rng.randint(low, high)
            for done in range(1, length):
                if not self._extend(draft, len(draft.calls) - 1, onward=length - 1 - done):
                    break
            if len(draft.calls) < low:
                raise Dropped("no_edge_from_start" if len(draft.calls) < 2 else "chain_too_short")
        elif shape == "fan_out":
            self._start(draft, [s for s in reads if len({e.consumer for e in self.graph.edges_from(s)}) >= 2])
            if not (self._extend(draft, 0) and self._extend(draft, 0)):
                raise Dropped("no_second_branch")
        elif shape == "fan_in":
            self._fan_in(draft)
        else:
            raise ValueError(f"unknown shape {shape!r}; shapes are {', '.join(SHAPES)}")
        return draft

    def _branch_edges(self, consumer: str, param: str) -> list[tuple[Edge | None, Edge]]:
        """Ways to feed ``consumer``'s ``param`` from a fresh branch: (edge start -> lookup or None, edge into param)."""
        starts = {s for s in self.graph.starts() if not self.graph.endpoints[s].writes}
        ways: list[tuple[Edge | None, Edge]] = []
        for edge in self.graph.edges_into(consumer, param):
            if edge.producer in starts:
                ways.append((None, edge))
            elif self.graph.fed_by_one(edge.producer) and not self.graph.endpoints[edge.producer].writes:
                ways += [
                    (first, edge)
                    for first in self.graph.edges
                    if first.consumer == edge.producer
                    and first.producer in starts
                    and first.param in self.graph.endpoints[edge.producer].param_kinds
                ]
        return ways

    def _fan_in(self, draft: Draft) -> None:
        """Two branches, each a start (or a start and the call it feeds), whose values meet in one call."""
        targets = self.graph.fan_in_targets()
        if not targets:
            raise Dropped("no_start_for_fan_in")
        target = self.rng.choice(sorted(targets))
        endpoint = self.graph.endpoints[target]
        ids = [p for p in endpoint.required if p in endpoint.param_kinds]
        extra = sorted(p for p in endpoint.extra_kinds if self.graph.edges_into(target, p))
        params = ids + self.rng.sample(extra, max(0, 2 - len(ids)))
        fed: dict[str, Argument] = {}
        heads: list[str] = []
        for param in params:
            ways = self._branch_edges(target, param)
            if not ways:
                raise Dropped("no_branch_for_fan_in")
            first, edge = self.rng.choice(ways)
            self._start(draft, [first.producer if first else edge.producer])
            if draft.calls[-1].function in heads:  # two independent branches, not one call made twice
                raise Dropped("fan_in_same_branch")
            heads.append(draft.calls[-1].function)
            if first is not None and not self._feed(draft, len(draft.calls) - 1, first):
                raise Dropped("fan_in_branch_refused")
            value = resolve(draft.responses[-1], edge.path)
            if not _is_key(value) or value in _passed(draft, len(draft.calls) - 1):
                raise Dropped("fan_in_no_value")
            fed[param] = Ref(len(draft.calls) - 1, edge.path)
        literals = {p: self._literal(target, p, None) for p in endpoint.literal_params}
        args = tuple((p, fed.get(p, literals.get(p, ""))) for p in endpoint.required) + tuple(
            (p, fed[p]) for p in params if p not in endpoint.required
        )
        draft.calls.append(Call(target, args))
        error, response = self._run(draft)
        if error is not None:
            draft.calls.pop()
            self.rejected[error] += 1
            raise Dropped("fan_in_refused")
        draft.responses.append(response)

    def _feed(self, draft: Draft, step: int, edge: Edge) -> bool:
        """Add ``edge.consumer`` fed by call ``step`` through ``edge``; False when the value is missing or the world refuses."""
        if not _is_key(resolve(draft.responses[step], edge.path)):
            return False
        endpoint = self.graph.endpoints[edge.consumer]
        args = {p: self._literal(edge.consumer, p, None) for p in endpoint.literal_params}
        refs = {edge.param: Ref(step, edge.path), **{p: Ref(step, path) for p, path in edge.scope}}
        if not all(_is_key(resolve(draft.responses[step], r.path)) for r in refs.values()):
            return False
        fed = tuple((p, refs.get(p) or args[p]) for p in endpoint.required)
        draft.calls.append(Call(edge.consumer, fed + self._optional(edge.consumer)))
        error, response = self._run(draft)
        if error is None:
            draft.responses.append(response)
            return True
        draft.calls.pop()
        self.rejected[error] += 1
        return False

    def _run(self, draft: Draft) -> tuple[str | None, Any]:
        """Run the draft; (error kind or None, the last call's response as JSON)."""
        self.runs += 1
        request = " ".join(str(v) for v in draft.literals())
        trace = self.pool.run(
            Job(code=draft.code(assign_last=True), domain=self.graph.domain, seed=self.world_seed, observe_last=True, request=request)
        )
        if trace.error is not None:
            return trace.error.kind, None
        try:
            return None, json.loads(trace.result) if isinstance(trace.result, str) else None
        except json.JSONDecodeError:
            return "response_cut", None

    def _literal(self, function: str, param: str, kind_hint: str | None) -> Literal:
        endpoint = self.graph.endpoints[function]
        if param == endpoint.text_param:
            names: tuple[Literal, ...] = names_for(self.graph.domain, kind_hint or endpoint.kind)
            names = names or endpoint.literals.get(param, ()) or names_for(self.graph.domain, None)
            if not names:
                raise Dropped("no_literal_values")
            return self.rng.choice(sorted(names, key=str))
        return self.rng.choice(endpoint.literals[param])

    def _optional(self, function: str) -> tuple[tuple[str, Argument], ...]:
        """Rarely, one optional parameter with a value to state (nothing, most of the time)."""
        optional = self.graph.endpoints[function].optional
        if not optional or self.rng.random() >= OPTIONAL_RATE:
            return ()
        param = self.rng.choice(sorted(optional))
        return ((param, self.rng.choice(optional[param])),)

    def _start(self, draft: Draft, starts: Sequence[str]) -> None:
        if not starts:
            raise Dropped(f"no_start_for_{draft.shape}")
        function = self.rng.choice(sorted(starts))
        endpoint = self.graph.endpoints[function]
        args: dict[str, Argument] = {p: self._literal(function, p, None) for p in endpoint.literal_params if p != endpoint.text_param}
        if endpoint.text_param:
            hint = next((str(v) for v in args.values() if isinstance(v, str) and names_for(self.graph.domain, v)), None)
            args[endpoint.text_param] = self._literal(function, endpoint.text_param, hint)
        ordered = tuple((p, args[p]) for p in endpoint.required) + self._optional(function)
        draft.calls.append(Call(function, ordered))
        error, response = self._run(draft)
        if error is not None:
            raise Dropped(f"start_failed:{error}")
        draft.responses.append(response)

    def _candidates(self, draft: Draft, step: int) -> list[Edge]:
        """Edges from call ``step`` whose value is in its response and new: a value the program already passed
        (a sub-resource's own id read back) would make a call the request cannot ask for."""
        used = {(c.function, a) for c in draft.calls for a in c.args}
        passed = _passed(draft, step)
        known = self._known_element(draft, step)
        found = []
        for edge in self.graph.edges_from(draft.calls[step].function):
            path = _fresh_path(draft.responses[step], edge.path, passed)
            if path is None or (edge.consumer, (edge.param, Ref(step, path))) in used:
                continue
            if known is not None and resolve(known, path) == resolve(draft.responses[step], path):
                continue  # the lookup told nothing new: the list it was picked from already held this value
            found.append(replace(edge, path=path, scope=tuple((p, _same_element(edge.path, path, other)) for p, other in edge.scope)))
        return found

    def _known_element(self, draft: Draft, step: int) -> Any:
        """For a lookup fed from a list element, that element (what the program knew before looking it up), else None."""
        refs = draft.calls[step].refs()
        if not self.graph.endpoints[draft.calls[step].function].lookup or len(refs) != 1:
            return None
        ref = refs[0][1]
        element = resolve(draft.responses[ref.step], ref.path[:-1])
        return element if isinstance(element, dict) else None

    def _onward(self, function: str, steps: int = 1) -> bool:
        """Whether a walk from ``function`` can go ``steps`` calls further in the graph, each fed a value its producer
        did not get (not a read-back of its own id); a static look-ahead, the world decides later."""
        key = (function, steps)
        if key not in self._reach:
            self._reach[key] = steps <= 0 or (
                not self.graph.endpoints[function].writes
                and any(len(e.path) > 1 and self._onward(e.consumer, steps - 1) for e in self.graph.edges_from(function))
            )
        return self._reach[key]

    def _extend(self, draft: Draft, step: int, onward: int = 0) -> bool:
        """Add a call fed by call ``step``'s response; False when no edge the world accepts is left.

        A write ends a walk: its response feeds nothing (a write comes after reads). ``onward``: calls the walk
        must make after this one, so prefer consumers from which the graph goes on that far. A long chain may call an
        endpoint twice (the similar movies of the first similar movie) when no other is left, never with a value it
        already passed.
        """
        if self.graph.endpoints[draft.calls[step].function].writes:
            return False
        candidates = self._candidates(draft, step)
        called = {c.function for c in draft.calls}
        if draft.shape == "long_chain":  # a long walk may call an endpoint twice, never with a value already passed
            passed = set().union(*(_passed(draft, s) for s in range(len(draft.calls))))
            twice = {f for f in called if sum(c.function == f for c in draft.calls) >= 2}
            candidates = [e for e in candidates if resolve(draft.responses[step], e.path) not in passed and e.consumer not in twice]
        else:
            candidates = [e for e in candidates if e.consumer not in called]  # a walk, not a loop: each endpoint once
        if onward and any(self._onward(e.consumer, onward) for e in candidates):
            candidates = [e for e in candidates if self._onward(e.consumer, onward)]
        for _ in range(_TRIES_PER_STEP):
            if not candidates:
                return False
            weights = [(4.0 if e.source == "gold" else 1.0) / sum(isinstance(p, str) for p in e.path) for e in candidates]
            edge = self.rng.choices(candidates, weights=weights)[0]
            candidates.remove(edge)
            if self._feed(draft, step, edge):
                return True
        return False
