"""Saved lists: ids an account keeps, newest first, each id checked, saved again moves to the front."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.mocks.engine.declared.lists import change, entries, ids, split_ids
from gqlbench.mocks.errors import BadArguments, NotFound
from tests.mocks.library_world import world_with


@pytest.mark.parametrize(("value", "found"), [("B1", ["B1"]), ("B1, B2,", ["B1", "B2"]), (["B3", " B1 "], ["B3", "B1"]), (7, ["7"])])
def test_ids_are_split_on_commas_or_taken_from_a_list(value: object, found: list[str]) -> None:
    assert split_ids(value, "ids") == found


@pytest.mark.parametrize("value", ["", " , ", []])
def test_no_id_is_bad_arguments_naming_the_parameter(value: object) -> None:
    with pytest.raises(BadArguments, match="^ids is empty; pass one or more ids separated by commas$"):
        split_ids(value, "ids")


def test_saved_ids_come_newest_first_stamped_and_saving_again_moves_to_the_front(tmp_path: Path) -> None:
    world = world_with(tmp_path, {})
    assert ids(world, "shelf") == []
    change(world, "shelf", "book", ["B1", "B2"], add=True, stamp="added_at")
    change(world, "shelf", "book", ["B3"], add=True, stamp="added_at")
    assert ids(world, "shelf") == ["B3", "B1", "B2"]
    stamps = [entry["added_at"] for entry in entries(world, "shelf")]
    assert stamps[0] > stamps[1] and stamps[1] < stamps[2]  # one tick per entry, in the order of the calls
    change(world, "shelf", "book", ["B2"], add=True)
    assert ids(world, "shelf") == ["B2", "B3", "B1"] and entries(world, "shelf")[0] == {"id": "B2"}
    change(world, "shelf", "book", ["B3", "B1"], add=False)
    assert ids(world, "shelf") == ["B2"]


def test_an_id_the_world_does_not_have_changes_nothing(tmp_path: Path) -> None:
    world = world_with(tmp_path, {})
    change(world, "shelf", "book", ["B1"], add=True)
    with pytest.raises(NotFound):
        change(world, "shelf", "book", ["B2", "B9"], add=True)
    assert ids(world, "shelf") == ["B1"]
