"""Declared growth (``grow`` of a fixture): lists filled once to a minimum, new entities with collision-free ids.

Each test writes a tiny fixture for the bundled ``library`` domain (a shelf
that holds an ``id`` and a list of labels), so what is asserted is the
engine's (mocks/engine/declared/growth.py, and ``$make`` with a ``key`` of
mocks/engine/declared/make.py), not the TMDB world's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.templates import evaluate
from gqlbench.mocks.engine.world import World

SHELF = {"shelf_id": "S1", "id": 7, "name": "Front"}
LABELS = {"fill": "labels", "to": 3, "add": {"$make": "label", "key": ["$id", "$n"]}}
MAKE = {"label": {"defaults": {"text": "new"}}, "book": {}}


def world_with(tmp_path: Path, grow: Any, make: Any = MAKE, **entities: Any) -> World:
    fixture = {"entities": {"shelf": [SHELF], **entities}, "grow": grow, "make": make}
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return World.create("library", fixture=path)


def made(world: World, template: Any) -> Any:
    """What a template of the fixture gives (as an endpoint's ``respond`` would)."""
    return evaluate(template, world.model.generic.declared.scope(world, {}))  # type: ignore[union-attr]


def test_a_list_is_filled_to_its_minimum_once_with_new_entities(tmp_path: Path) -> None:
    grow, make = {"fill": {"shelf": [LABELS]}}, {"label": {"defaults": {"text": "label {key.1} of shelf {key.0}"}}}
    world = world_with(tmp_path, grow, make)
    shelf = world.get("shelf", "S1")
    labels = list(shelf["labels"])
    assert len(labels) == 3 and len(set(labels)) == 3
    assert [world.get("label", i)["text"] for i in labels] == [f"label {n} of shelf 7" for n in range(3)]
    shelf["labels"].pop()
    assert world.get("shelf", "S1")["labels"] == labels[:2]  # completed once: a later lookup adds nothing
    assert len(world.table("label")) == 3
    again = world_with(tmp_path, grow, make).get("shelf", "S1")["labels"]
    assert again == labels  # the same seed and keys, the same ids


def test_the_same_key_gives_the_same_id_and_keeps_the_first_record(tmp_path: Path) -> None:
    world = world_with(tmp_path, {})
    first = made(world, {"$make": "label", "key": ["a", 1], "entry": {"text": "first"}})
    assert made(world, {"$make": "label", "key": ["a", 1], "entry": {"text": "second"}}) == first
    assert made(world, {"$make": "label", "key": ["a", 2]}) != first
    assert world.get("label", first)["text"] == "first"
    assert world.get("label", made(world, {"$make": "label", "key": ["a", 2]}))["text"] == "new"  # the recipe's default
    found = made(world, {"$make": "label", "key": ["other"], "entry": {"text": "first"}, "find": "text"})
    assert found == first  # "find": an entity with that text already exists


def test_a_new_entity_never_takes_an_id_the_fixture_has(tmp_path: Path) -> None:
    taken = [{"id": n, "text": "fixture"} for n in (1, 2, 3)]  # made by the label recipe, with the ids they give
    world = world_with(tmp_path, {}, {"label": {"ids": {"lo": 1, "hi": 4}}}, label=taken)
    assert made(world, {"$make": "label", "key": ["x"]}) == 4  # the only id of 1..4 the fixture does not use
    assert world.table("label")["1"] == {"id": 1, "text": "fixture"}
    with pytest.raises(GqlbenchError, match=r"no free id for a new label in 1\.\.4 .*widen the fixture's make\.label\.ids"):
        made(world, {"$make": "label", "key": ["y"]})


def test_fill_where_counts_matching_entries_and_referring_counts_the_entities_that_refer(tmp_path: Path) -> None:
    crew = {"fill": "crew", "where": {"job": ["Director"]}, "to": 1, "at": 0, "add": {"job": "Director", "n": "$n"}}
    books = {
        "referring": {"kind": "book", "in": "shelves", "by": "shelf"},
        "to": 2,
        "add": {"$make": "book", "key": ["$id", "$n"], "entry": {"shelves": [{"shelf": "$id"}]}},
    }
    shelf = {**SHELF, "crew": [{"job": "Producer"}]}
    fixture_book = {"id": "B1", "title": "Dune", "shelves": [{"shelf": 7}]}  # made by the book recipe: its id is "id"
    world = world_with(tmp_path, {"fill": {"shelf": [crew, books]}}, shelf=[shelf], book=[fixture_book])
    record = world.get("shelf", "S1")
    assert record["crew"] == [{"job": "Director", "n": 0}, {"job": "Producer"}]
    on_shelf = [r for r in world.table("book").values() if {"shelf": 7} in r.get("shelves", [])]
    assert len(on_shelf) == 2  # the fixture's book and one new one


@pytest.mark.parametrize(
    ("grow", "where"),
    [
        ({"fill": {"shelf": LABELS}}, "grow.fill.shelf: input should be a valid list"),
        ({"fill": {"shelf": [{"fill": "labels", "to": 3}]}}, "grow.fill.shelf[0]: 'add' is missing"),
        ({"fill": {"shelf": [{**LABELS, "to": -1}]}}, "grow.fill.shelf[0].to: input should be greater than or equal to 0, got -1"),
        ({"fill": {"shelf": [{**LABELS, "upto": 3}]}}, "grow.fill.shelf[0]: unknown key 'upto'"),
        (
            {"fill": {"shelf": [{**LABELS, "add": {"$nwe": "label"}}]}},
            "grow.fill.shelf[0].add: unknown operation '$nwe'; did you mean '$ne'?",
        ),
        ({"fill": {"shelf": [{**LABELS, "referring": {"kind": "book", "in": "shelves"}}]}}, 'grow.fill.shelf[0]: a step has "fill"'),
        ({"fill": {"shelf": [{**LABELS, "referring": {"kind": "book"}}]}}, "grow.fill.shelf[0].referring: 'in' is missing"),
        ({"fil": {}}, "grow: unknown key 'fil'; did you mean 'fill'?"),
        ({"fill": ["shelf"]}, "grow.fill: input should be a valid dictionary"),
        ({"new": {"label": {"text": "x"}}}, "a new entity's fields are make.<kind>.defaults"),  # the old place says where it went
        ({"ids": {"lo": 1}}, "its id range make.<kind>.ids"),
    ],
)
def test_a_bad_declaration_is_a_one_line_error_naming_the_file_and_path(tmp_path: Path, grow: Any, where: str) -> None:
    with pytest.raises(GqlbenchError) as caught:
        world_with(tmp_path, grow)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(tmp_path)) and where in message


@pytest.mark.parametrize(
    ("ids", "where"),
    [
        ({"lo": "1"}, "make.label.ids.lo: input should be a valid integer, got '1'"),
        ({"low": 1}, "make.label.ids: unknown key 'low'; did you mean 'lo'?"),
        ([1, 4], "make.label.ids: input should be a valid dictionary"),
        ({"lo": 0}, "make.label.ids.lo: input should be greater than 0"),
    ],
)
def test_a_bad_id_range_is_a_one_line_error_naming_the_recipe(tmp_path: Path, ids: Any, where: str) -> None:
    with pytest.raises(GqlbenchError) as caught:
        world_with(tmp_path, {}, {"label": {"ids": ids}})
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(tmp_path)) and where in message


def test_a_fill_does_not_list_twice_an_entity_that_listed_itself(tmp_path: Path) -> None:
    books = {"fill": "books", "to": 2, "add": {"$make": "book", "key": ["$n"], "entry": {"shelf": "$name"}}}
    make = {"book": {"refs": {"shelf": {"kind": "shelf", "back": "books"}}}}  # a made book lists itself on its shelf
    world = world_with(tmp_path, {"fill": {"shelf": [books]}}, make)
    made = world.get("shelf", "S1")["books"]
    assert len(made) == 2 and len(set(made)) == 2
    assert [world.get("book", b)["shelf"] for b in made] == [7, 7]
