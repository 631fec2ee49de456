"""The contents digest: what a user could see change, not the clock, stamps, versions or a saved list's order."""

from __future__ import annotations

from typing import Any

from gqlbench.synthetic.contents import contents_digest


def _world(saved: list[dict[str, Any]], clock: int = 1, version: int = 1, name: str = "Chill") -> tuple[dict[str, Any], dict[str, Any]]:
    tables = {"playlist": {"p1": {"name": name, "version": version}}}
    return tables, {"clock": clock, "lists": {"saved_tracks": saved}}


def test_stamps_and_order_are_left_out_and_what_is_saved_or_named_is_not() -> None:
    one = contents_digest(*_world([{"id": "a", "added_at": "t1"}, {"id": "b", "added_at": "t2"}]))
    resaved = contents_digest(*_world([{"id": "b", "added_at": "t9"}, {"id": "a", "added_at": "t1"}], clock=9, version=3))
    assert one == resaved
    assert contents_digest(*_world([{"id": "a", "added_at": "t1"}])) != one  # b unsaved
    assert contents_digest(*_world([{"id": "a"}, {"id": "b"}], name="Focus")) != one  # renamed
