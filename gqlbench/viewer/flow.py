"""A sample's two programs compared call by call, for drawing and for the argument table.

Calls and dataflow come from :func:`gqlbench.metrics.calls.analyze` and the
pairing from :func:`gqlbench.metrics.matching.match_calls`, the same analysis
the scores were computed with, so the picture cannot disagree with the numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from gqlbench.metrics.calls import ApiCall, ProgramAnalysis, analyze
from gqlbench.metrics.matching import GoldMatch, match_calls
from gqlbench.records import FunctionSpec

__all__ = ["FlowNode", "FlowEdge", "Dataflow", "Comparison", "compare", "edge_label", "argument_rows"]


@dataclass(frozen=True)
class FlowNode:
    index: int
    name: str
    token: str
    status: str  # "matched", "missing" (gold only), "extra" (prediction only)
    text: str  # the call as compared, for the tooltip


@dataclass(frozen=True)
class FlowEdge:
    source: int
    target: int
    label: str  # which argument takes which field of the producer's response
    status: str


@dataclass(frozen=True)
class Dataflow:
    """One program's calls and dataflow edges, each marked against the other program."""

    nodes: tuple[FlowNode, ...]
    edges: tuple[FlowEdge, ...]
    note: str | None = None  # why there is no graph: parse error, too large, no program


@dataclass(frozen=True)
class Comparison:
    gold: Dataflow
    predicted: Dataflow
    matches: tuple[GoldMatch, ...]
    gold_analysis: ProgramAnalysis
    predicted_analysis: ProgramAnalysis


def edge_label(producer: ApiCall, consumer: ApiCall) -> str:
    """``movie_id ← results[0].id``: the consumer's arguments that use the producer's response, and the field paths."""
    pattern = re.compile(re.escape(producer.token) + r"((?:\.\w+|\[[^\[\]]*\])*)")
    parts = []
    for key, value in consumer.args.items():
        paths = list(dict.fromkeys(m.group(1).lstrip(".") or "(whole response)" for m in pattern.finditer(value)))
        if paths:
            parts.append(f"{key} ← {', '.join(paths)}")
    return "; ".join(parts)


def _edges(
    analysis: ProgramAnalysis, own_to_other: Mapping[int, int], other_edges: set[tuple[int, int]], miss: str
) -> tuple[FlowEdge, ...]:
    edges = []
    for source, target in analysis.edges:
        paired = (own_to_other.get(source), own_to_other.get(target))
        status = "matched" if paired in other_edges else miss
        edges.append(FlowEdge(source, target, edge_label(analysis.calls[source], analysis.calls[target]), status))
    return tuple(edges)


def _note(analysis: ProgramAnalysis) -> str | None:
    if analysis.parse_error is not None:
        return f"does not parse: {analysis.parse_error}"
    if analysis.too_large is not None:
        return f"too large to analyse: {analysis.too_large}"
    if not analysis.code.strip():
        return "no program"
    if not analysis.calls:
        return "makes no API call"
    return None


def compare(gold_code: str, predicted_code: str, functions: Mapping[str, FunctionSpec], *, trusted_gold: bool = True) -> Comparison:
    """Analyse both programs, pair their calls, and mark every call and edge matched, missing or extra.

    ``trusted_gold=False``: the gold program came from a run folder (its benchmark sample was not found), so it
    is bounded like a prediction.
    """
    gold = analyze(gold_code, functions, limits=None) if trusted_gold else analyze(gold_code, functions)  # the benchmark's is trusted
    pred = analyze(predicted_code, functions)
    matches = tuple(match_calls(gold.calls, pred.calls)) if gold.parse_error is None and _note(pred) is None else ()
    g2p = {m.gold.index: m.predicted.index for m in matches if m.predicted is not None}
    p2g = {p: g for g, p in g2p.items()}
    gold_flow = Dataflow(
        nodes=tuple(FlowNode(c.index, c.name, c.token, "matched" if c.index in g2p else "missing", c.render()) for c in gold.calls),
        edges=_edges(gold, g2p, set(pred.edges), "missing"),
        note=_note(gold),
    )
    pred_flow = Dataflow(
        nodes=tuple(FlowNode(c.index, c.name, c.token, "matched" if c.index in p2g else "extra", c.render()) for c in pred.calls),
        edges=_edges(pred, p2g, set(gold.edges), "extra"),
        note=_note(pred),
    )
    return Comparison(gold_flow, pred_flow, matches, gold, pred)


def argument_rows(comparison: Comparison) -> list[dict[str, object]]:
    """Each gold argument: the call, expected value, what the paired predicted call passed, and whether equal.

    An unmatched gold call is compared with the first predicted call of the
    same name that no gold call took, the closest thing the model wrote.
    """
    taken = {m.predicted.index for m in comparison.matches if m.predicted is not None}
    spare = [c for c in comparison.predicted_analysis.calls if c.index not in taken]
    rows: list[dict[str, object]] = []
    for gold_call in comparison.gold_analysis.calls:
        match = next((m for m in comparison.matches if m.gold.index == gold_call.index), None)
        other = match.predicted if match is not None else None
        if other is None:
            other = next((c for c in spare if c.name == gold_call.name), None)
            if other is not None:
                spare.remove(other)
        paired = None if other is None else other.token
        if not gold_call.args:  # a call without arguments: only whether the model made it
            rows.append({"call": gold_call.token, "argument": "", "expected": "", "got": "", "equal": other is not None, "paired": paired})
        for key, expected in gold_call.args.items():
            got = None if other is None else other.args.get(key)
            rows.append(
                {"call": gold_call.token, "argument": key, "expected": expected, "got": got, "equal": got == expected, "paired": paired}
            )
    return rows
