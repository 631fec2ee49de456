"""Writes declared in templates: changes to records and state, saved lists read back, the clock.

Each test writes a tiny fixture for the bundled ``library`` domain (books in
a list ``shelf`` of entries ``{"id", "added_at"}``) and calls the handlers
directly, so what is asserted is the engine's operations, not Spotify's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import BadArguments, NotFound
from tests.mocks import library_world
from tests.mocks.library_world import call

BOOKS = [{"book_id": "B1", "title": "Dune", "shelf": [], "version": 1}, {"book_id": "B2", "title": "Emma", "shelf": [], "version": 1}]
# POST_loans(edition_id=<book id>, branch_id=<ids>, at...): put the books named on the book's shelf
ADD = {
    "$let": {
        "b": {"$get": "book", "id": "$edition_id"},
        "changed": {
            "$change": "$b",
            "increment": {"version": 1},
            "insert": {
                "shelf": {
                    "at": "$at",
                    "items": {
                        "$each": "$branch_id",
                        "do": {"id": {"$let": {"found": {"$get": "book", "id": "$it"}}, "in": "$it"}, "added_at": {"$tick": None}},
                    },
                }
            },
        },
    },
    "in": {"shelf": "$b.shelf", "version": "$b.version"},
}
# DELETE_loans__loan_id_(loan_id=<book id>, ...): take books off the shelf by id, rename if given
REMOVE = {
    "$let": {
        "b": {"$get": "book", "id": "$loan_id"},
        "changed": {"$change": "$b", "remove": {"shelf": {"items": "$ids", "by": "id"}}, "set_given": {"title": "$title"}},
    },
    "in": {"$computed": "book", "of": "$b", "only": ["label"]},
}


def world_with(tmp_path: Path, endpoints: dict[str, Any], **sections: Any) -> World:
    """A library world of :data:`BOOKS` whose books have a computed ``label`` and ``link``."""
    computed = {"book": {"label": "{title} v{version}", "link": "lib:book:{id}"}}
    return library_world.world_with(tmp_path, endpoints, **{"entities": {"book": BOOKS}, "computed": computed, **sections})


def test_an_insert_checks_the_ids_stamps_each_entry_and_checks_the_position(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"POST_loans": ADD})
    first = call(world, "POST_loans", edition_id="B1", branch_id=["B2", "B1"])
    assert [e["id"] for e in first["shelf"]] == ["B2", "B1"]
    assert first["shelf"][0]["added_at"] < first["shelf"][1]["added_at"]  # one tick per entry, in order
    assert first["version"] == 2
    front = call(world, "POST_loans", edition_id="B1", branch_id=["B1"], at=0)
    assert [e["id"] for e in front["shelf"]] == ["B1", "B2", "B1"]
    before = json.dumps(world.table("book")["B1"], sort_keys=True)
    with pytest.raises(BadArguments, match=re.escape("position 7 is outside the 3 items of shelf; use 0 to 3")):
        call(world, "POST_loans", edition_id="B1", branch_id=["B2"], at=7)
    with pytest.raises(NotFound, match="no book with id 'B9'"):
        call(world, "POST_loans", edition_id="B1", branch_id=["B2", "B9"])
    assert json.dumps(world.table("book")["B1"], sort_keys=True) == before  # a refused call changes nothing


def test_a_remove_by_field_and_a_set_of_given_values_show_in_the_computed_fields(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"POST_loans": ADD, "DELETE_loans__loan_id_": REMOVE})
    call(world, "POST_loans", edition_id="B1", branch_id=["B1", "B2"])
    assert call(world, "DELETE_loans__loan_id_", loan_id="B1", ids=["B1"]) == {"label": "Dune v2"}  # no title: kept
    assert [e["id"] for e in world.table("book")["B1"]["shelf"]] == ["B2"]
    assert call(world, "DELETE_loans__loan_id_", loan_id="B1", ids=["B2"], title="Dune I") == {"label": "Dune I v2"}


def test_state_is_changed_and_saved_lists_follow_the_call(tmp_path: Path) -> None:
    world = world_with(
        tmp_path,
        {
            "POST_loans": {
                "$let": {
                    "desk": {"$at": {"$state": "desks"}, "index": "$branch_id"},
                    "changed": {"$change": "$desk", "set": {"open": False}, "append": {"queue": "$edition_id"}},
                },
                "in": {
                    "desks": {"$state": "desks"},
                    "borrowed": {"$saved": "borrowed"},
                    "at": {"$mul": [{"$state": "none", "default": 2}, 3]},
                },
            },
            "GET_me_loans": {"given": {"$optional": "anything"}},
        },
    )
    world.state["desks"] = [{"id": "d1", "open": True, "queue": []}, {"id": "d2", "open": True, "queue": []}]
    world.state.setdefault("lists", {})["borrowed"] = [{"id": "B2", "added_at": "t"}]
    answer = call(world, "POST_loans", edition_id="B2", branch_id=1)
    assert answer["desks"][1] == {"id": "d2", "open": False, "queue": ["B2"]} and answer["desks"][0]["open"] is True
    assert [e["id"] for e in answer["borrowed"]] == ["B2"] and answer["at"] == 6
    assert call(world, "GET_me_loans") == {"given": None}


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"$change": {"$optional": "x"}, "toggle": {"a": 1}}, "respond: unknown key 'toggle' in $change; use one of append, increment"),
        ({"$change": {"$optional": "x"}, "remove": {"a": {"items": 1}}}, 'effects.remove of entries must be {"items": "$ids", "by": "id"}'),
        ({"x": {"$find": [], "message": "m"}}, "respond.x: unknown operation '$find'"),
    ],
)
def test_a_bad_write_declaration_is_refused_when_the_fixture_loads(tmp_path: Path, template: Any, message: str) -> None:
    with pytest.raises(GqlbenchError, match=r"library\d+\.json:\d+: endpoints\.GET_me_loans\..*" + re.escape(message)):
        world_with(tmp_path, {"GET_me_loans": template})
