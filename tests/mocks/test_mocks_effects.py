"""Declared writes on hostile sizes (effects, and saved lists): the work is linear in the lists, and lists are bounded."""

from __future__ import annotations

from typing import Any

import pytest

from gqlbench.mocks.engine.declared.lists import change
from gqlbench.mocks.engine.effects import MAX_STORED_ITEMS, apply_effects
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments


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


def test_an_insert_or_append_past_the_stored_items_limit_is_refused_and_changes_nothing() -> None:
    # A client grew a playlist to 52,000 tracks 10,000 at a time; every later read and write of it took seconds.
    record: dict[str, Any] = {"tracks": list(range(MAX_STORED_ITEMS - 1)), "version": 1}
    grow = {"append": {"tracks": "$ids"}, "increment": {"version": 1}}
    apply_effects(record, grow, {"ids": [1]}, lambda name: None)
    assert len(record["tracks"]) == MAX_STORED_ITEMS and record["version"] == 2
    for effects in (grow, {"insert": {"tracks": {"items": "$ids", "at": 0}}}):
        with pytest.raises(BadArguments, match="^tracks would hold 10,001 items, over the mock's limit of 10,000; remove some first$"):
            apply_effects(record, effects, {"ids": [1]}, lambda name: None)
    assert len(record["tracks"]) == MAX_STORED_ITEMS and record["version"] == 2


def test_saving_to_a_list_compares_each_saved_entry_a_few_times_not_once_per_id() -> None:
    world = World.create("spotify", 0)
    track = world.state["top_tracks"][0]
    world.state.setdefault("lists", {})["saved_tracks"] = [{"id": _Counted(f"t{i}")} for i in range(1000)]
    _Counted.compared = 0
    change(world, "saved_tracks", "track", [track] * 1000, add=True)
    assert len(world.state["lists"]["saved_tracks"]) == 2000
    assert _Counted.compared < 5 * 2000, _Counted.compared  # 1,000,000 before
    with pytest.raises(BadArguments, match="^saved_tracks would hold 11,000 items, over the mock's limit of 10,000; remove some first$"):
        change(world, "saved_tracks", "track", [track] * 10_000, add=True)
    assert len(world.state["lists"]["saved_tracks"]) == 2000


def test_entities_made_by_calls_and_playlists_are_bounded_per_world() -> None:
    # Each call to a create endpoint kept one more entity for the server's life (and GET_me_playlists rendered them all).
    library = World.create("library", 0)
    book = library.handler("GET_search_books")(library, {"q": "dune"})["docs"][0]["book_id"]  # type: ignore[misc]
    editions = library.handler("GET_books__book_id__editions")(library, {"book_id": book})  # type: ignore[misc]
    edition = editions["entries"][0]["edition_id"]
    library.state["created"] = MAX_STORED_ITEMS - 1
    library.handler("POST_loans")(library, {"edition_id": edition})  # type: ignore[misc]
    with pytest.raises(BadArguments, match="^the world has made 10,000 entities for calls, the mock's limit; reset it to make more$"):
        library.handler("POST_loans")(library, {"edition_id": edition})  # type: ignore[misc]
    spotify = World.create("spotify", 0)
    spotify.state["playlists"] = [f"p{n}" for n in range(MAX_STORED_ITEMS)]
    with pytest.raises(BadArguments, match="^playlists would hold 10,001 items, over the mock's limit of 10,000; remove some first$"):
        spotify.handler("POST_users__user_id__playlists")(spotify, {"user_id": spotify.state["me"], "name": "x"})  # type: ignore[misc]
