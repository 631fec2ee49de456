"""``gqlbench.mocks.world``: the one module a world's Python behaviour imports."""

from __future__ import annotations

import pytest

import gqlbench.mocks.world as public
from gqlbench.mocks.world import BadArguments, NotFound, World, computed, invent, make, resolve, save, saved, split_ids, unsave, view


def test_every_public_name_exists_and_is_documented() -> None:
    for name in set(public.__all__) - {"Handler"}:  # a type alias has no docstring of its own
        assert getattr(public, name).__doc__, name


def test_a_behaviour_makes_shows_and_saves_entities_through_it() -> None:
    world = World.create("spotify")
    playlist = make(world, "playlist", {"id": None, "name": "Road trip", "description": "", "tracks": []})
    assert view(world, "playlist_simple", playlist)["name"] == "Road trip"
    assert computed(world, "playlist", {"id": playlist})["uri"] == f"spotify:playlist:{playlist}"
    track = next(iter(world.table("track")))
    assert resolve(world, "track", track, "test") == track
    save(world, "mine", "track", [track], stamp="added_at")
    assert [entry["id"] for entry in saved(world, "mine")] == [track] and "added_at" in saved(world, "mine")[0]
    unsave(world, "mine", "track", [track])
    assert saved(world, "mine") == []
    with pytest.raises(NotFound):
        save(world, "mine", "track", ["no-such-track"])
    with pytest.raises(BadArguments, match="ids is empty"):
        split_ids(" , ", "ids")
    invent(world, "artist", "Zyxw Quartet")
    assert world.find("artist", lambda r: r["name"] == "Zyxw Quartet")
