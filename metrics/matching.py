"""Matching gold calls to predicted calls.

A gold call is satisfied by a predicted call with the same function name that
passes every gold argument with an equal standardized value (extra predicted
arguments are allowed). Several gold calls may be satisfied by the same
predicted call and vice versa, so the count of matched gold calls is a
maximum bipartite matching, not a greedy pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gqlbench.metrics.calls import ApiCall

__all__ = ["maximum_matching", "satisfies", "mismatch", "GoldMatch", "match_calls"]


def maximum_matching(adjacency: Sequence[Sequence[int]]) -> dict[int, int]:
    """A maximum matching of a bipartite graph, as ``{left: right}``.

    ``adjacency[i]`` lists the right vertices left vertex ``i`` may pair with.
    Kuhn's augmenting-path algorithm: O(V·E), ample for a program's few calls.
    """
    owner: dict[int, int] = {}  # right -> left

    def augment(left: int, seen: set[int]) -> bool:
        for right in adjacency[left]:
            if right in seen:
                continue
            seen.add(right)
            if right not in owner or augment(owner[right], seen):
                owner[right] = left
                return True
        return False

    for left in range(len(adjacency)):
        augment(left, set())
    return {left: right for right, left in owner.items()}


def satisfies(predicted: ApiCall, gold: ApiCall) -> bool:
    """Whether ``predicted`` may stand for ``gold``: same function, every gold argument equal."""
    return mismatch(predicted, gold) is None


def mismatch(predicted: ApiCall, gold: ApiCall) -> str | None:
    """Why ``predicted`` does not satisfy ``gold`` (the first failing argument), or None."""
    if predicted.name != gold.name:
        return f"calls {predicted.name}, not {gold.name}"
    for key, expected in gold.args.items():
        got = predicted.args.get(key)
        if got is None:
            return f"argument {key!r} missing: expected {expected}"
        if got != expected:
            return f"argument {key!r}: expected {expected}, got {got}"
    return None


@dataclass(frozen=True)
class GoldMatch:
    """The fate of one gold call: the predicted call matched to it, or why none was."""

    gold: ApiCall
    predicted: ApiCall | None = None
    reason: str | None = None  # set when unmatched

    def to_json(self) -> dict[str, object]:
        return {
            "gold": f"{self.gold.token} = {self.gold.render()}",
            "matched": None if self.predicted is None else f"{self.predicted.token} = {self.predicted.render()}",
            "reason": self.reason,
        }


def _why_unmatched(gold: ApiCall, predicted: Sequence[ApiCall], taken: set[int]) -> str:
    same_name = [p for p in predicted if p.name == gold.name]
    if not same_name:
        return f"no predicted call to {gold.name}"
    if all(satisfies(p, gold) for p in same_name):
        return f"every predicted {gold.name} call that fits is matched to another gold call"
    # Report against the closest free candidate: the one agreeing on the most arguments.
    candidates = [p for p in same_name if p.index not in taken] or same_name
    closest = max(candidates, key=lambda p: sum(p.args.get(k) == v for k, v in gold.args.items()))
    return f"{closest.token}: {mismatch(closest, gold)}"


def match_calls(gold: Sequence[ApiCall], predicted: Sequence[ApiCall]) -> list[GoldMatch]:
    """Match each gold call to at most one predicted call, maximizing the matched count."""
    adjacency = [[j for j, p in enumerate(predicted) if satisfies(p, g)] for g in gold]
    pairs = maximum_matching(adjacency)
    taken = {predicted[j].index for j in pairs.values()}
    return [
        GoldMatch(g, predicted[pairs[i]]) if i in pairs else GoldMatch(g, reason=_why_unmatched(g, predicted, taken))
        for i, g in enumerate(gold)
    ]
