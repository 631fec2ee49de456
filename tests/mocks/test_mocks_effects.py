"""Declared effects (:mod:`gqlbench.mocks.engine.effects`) on hostile sizes: the work is linear in the lists."""

from __future__ import annotations

from typing import Any

from gqlbench.mocks.engine.effects import apply_effects


class _Counted(str):
    """An id that counts its comparisons."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _removing(entries: list[Any], items: list[Any], by: str | None) -> list[Any]:
    record = {"tracks": entries}
    raw = {"items": "$ids", "by": by} if by else "$ids"
    apply_effects(record, {"remove": {"tracks": raw}}, {"ids": items}, lambda name: None)
    return record["tracks"]


def test_a_remove_compares_each_entry_a_few_times_not_once_per_item() -> None:
    # Each of 52,000 entries was looked for in the list of 20,000 ids: 20 s under the server's world lock.
    entries = [{"id": _Counted(f"t{i % 50}")} for i in range(1000)]
    items = [_Counted("gone")] * 999 + [_Counted("t1")]
    _Counted.compared = 0
    left = _removing(entries, items, "id")
    assert len(left) == 980 and all(e["id"] != "t1" for e in left)
    assert _Counted.compared < 5 * (len(entries) + len(items)), _Counted.compared  # 1,000,000 before


def test_a_remove_of_plain_values_and_of_objects_keeps_what_is_not_equal() -> None:
    assert _removing([1, "a", [1, 2], {"b": [3]}, 2.0, None], [1, [1, 2], {"b": [3]}], None) == ["a", 2.0, None]
    assert _removing([{"id": [1]}, {"id": 2}, "x"], [[1]], "id") == [{"id": 2}, "x"]
