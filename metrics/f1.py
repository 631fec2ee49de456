"""Finer scores next to Table 2's: dataflow-edge, function-name and argument F1.

Each is computed from per-sample counts ``(tp, fp, fn)`` of multisets, so a
split's score is a ratio of sums (micro-average), never a mean of per-sample
F1s:

- function: call names (``GET_search`` twice counts twice);
- argument: ``(function, parameter, standardized value)`` over every call
  (NESTful's argument F1, on standardized calls so that variable names and
  formatting do not matter);
- dataflow: edges ``(producer call, field path, consumer call, parameter)``,
  one per response reference of an argument (:mod:`.sources`): the edge says
  which field of which call's response feeds which parameter of which call.

A program that does not parse (or is too large) predicts nothing: every gold
item is a false negative. Two empty multisets agree perfectly (F1 = 1).

The counts are stored per sample (``Explanation.f1_counts``, see
:mod:`.diagnose`); :mod:`.finer` registers the scores as metrics that read them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence

from gqlbench.metrics.calls import ProgramAnalysis
from gqlbench.records import Explanation

__all__ = ["F1_KINDS", "F1_KEYS", "Counts", "sample_counts", "prf", "f1_scores", "dataflow_edges", "stored_counts"]

F1_KINDS: tuple[str, ...] = ("dataflow", "function", "argument")

F1_KEYS: tuple[str, ...] = ("dataflow_f1", "dataflow_precision", "dataflow_recall", "function_f1", "argument_f1")
"""The results.json keys this module adds next to the Table 2 metrics."""

Counts = tuple[int, int, int]  # (tp, fp, fn)


def dataflow_edges(analysis: ProgramAnalysis) -> list[tuple[str, str, str, str]]:
    """``(producer token, field path, consumer token, parameter)`` for every response an argument reads."""
    return [
        (token, path, call.token, param)
        for call in analysis.calls
        for param in call.args
        for token, path in call.argument(param).references
    ]


def _items(analysis: ProgramAnalysis, kind: str) -> list[Hashable]:
    if kind == "function":
        return list(analysis.names)
    if kind == "argument":
        return [(c.name, k, v) for c in analysis.calls for k, v in c.args.items()]
    return list(dataflow_edges(analysis))


def _counts(gold: Iterable[Hashable], predicted: Iterable[Hashable]) -> Counts:
    g, p = Counter(gold), Counter(predicted)
    tp = sum((g & p).values())
    return tp, sum(p.values()) - tp, sum(g.values()) - tp


def sample_counts(gold: ProgramAnalysis, predicted: ProgramAnalysis | None) -> dict[str, Counts]:
    """``{kind: (tp, fp, fn)}`` of one sample; ``predicted=None`` (or unparsed) predicts nothing."""
    usable = predicted is not None and predicted.parse_error is None and predicted.too_large is None
    return {
        kind: _counts(_items(gold, kind), _items(predicted, kind) if usable else [])  # type: ignore[arg-type]
        for kind in F1_KINDS
    }


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of summed counts; nothing predicted and nothing expected is perfect."""
    precision = tp / (tp + fp) if tp + fp else float(fn == 0)
    recall = tp / (tp + fn) if tp + fn else float(fp == 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def f1_scores(per_sample: Sequence[Mapping[str, Sequence[int]]]) -> dict[str, float]:
    """The :data:`F1_KEYS` of a split, micro-averaged from per-sample counts."""
    totals = {kind: [sum(c[kind][i] for c in per_sample) for i in range(3)] for kind in F1_KINDS}
    p, r, f = prf(*totals["dataflow"])
    return {
        "dataflow_f1": f,
        "dataflow_precision": p,
        "dataflow_recall": r,
        "function_f1": prf(*totals["function"])[2],
        "argument_f1": prf(*totals["argument"])[2],
    }


def stored_counts(explanation: Explanation, kind: str) -> Counts | None:
    """A sample line's ``(tp, fp, fn)`` of ``kind``; None for a line written before the counts existed."""
    found = (explanation.f1_counts or {}).get(kind)
    if not isinstance(found, Sequence) or len(found) != 3:
        return None
    tp, fp, fn = found
    return int(tp), int(fp), int(fn)
