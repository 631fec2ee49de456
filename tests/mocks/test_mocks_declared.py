"""Declared behaviour: a fixture's templates answer endpoints, read graphs both ways, check ranges, filter and page.

Each test writes a small fixture for the bundled ``library`` domain and calls
the endpoints' handlers directly, so what is asserted is the engine's, not the
TMDB world's.
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

BOOKS = [
    {"book_id": "B1", "title": "Dune", "year": 1965, "genres": ["sf"], "contributors": [{"person": "P1", "role": "author"}]},
    {
        "book_id": "B2",
        "title": "Dune Messiah",
        "year": 1969,
        "genres": ["sf", "drama"],
        "contributors": [{"person": "P1", "role": "author"}, {"person": "P2", "role": "editor"}],
    },
    {"book_id": "B3", "title": "Emma", "year": 1815, "genres": ["drama"], "contributors": [{"person": "P3", "role": "author"}]},
]


def world_with(tmp_path: Path, endpoints: dict[str, Any], **sections: Any) -> World:
    fixture = {"entities": {"book": BOOKS}, "endpoints": {f: {"respond": t} for f, t in endpoints.items()}, **sections}
    path = tmp_path / f"library{len(list(tmp_path.iterdir()))}.json"  # a new file: models are cached per file version
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return World.create("library", fixture=path)


def call(world: World, function: str, **args: Any) -> Any:
    handler = world.handler(function)
    assert handler is not None
    return handler(world, args)


def test_a_relation_reads_the_same_graph_both_ways(tmp_path: Path) -> None:
    world = world_with(
        tmp_path,
        {
            "GET_books__book_id_": {
                "$let": {"b": {"$get": "book", "id": "$book_id"}},
                "in": {"people": {"$each": "$b.contributors", "do": "$it.person"}},
            },
            "GET_authors__author_id__books": {
                "$each": {"$referring": "$author_id", "kind": "book", "in": "contributors", "by": "person"},
                "do": {"title": "$it.of.title", "role": "$it.entry.role"},
            },
        },
    )
    assert call(world, "GET_authors__author_id__books", author_id="P1") == [
        {"title": "Dune", "role": "author"},
        {"title": "Dune Messiah", "role": "author"},
    ]
    assert call(world, "GET_authors__author_id__books", author_id="P2") == [{"title": "Dune Messiah", "role": "editor"}]
    for book in BOOKS:  # every book a person's list names lists that person, and the other way round
        people = call(world, "GET_books__book_id_", book_id=book["book_id"])["people"]
        for person in people:
            titles = [b["title"] for b in call(world, "GET_authors__author_id__books", author_id=person)]
            assert book["title"] in titles


def test_a_number_outside_an_entitys_parts_is_not_found_with_the_declared_message(tmp_path: Path) -> None:
    check = {"$within": "$limit", "count": {"$count": "$b.contributors"}, "message": "{b.title} has contributors 1 to {count}, not {value}"}
    world = world_with(
        tmp_path,
        {
            "GET_books__book_id__editions": {
                "$let": {"b": {"$get": "book", "id": "$book_id"}, "limit": check},
                "in": {"$at": "$b.contributors", "index": {"$add": ["$limit", -1]}},
            },
        },
    )
    assert call(world, "GET_books__book_id__editions", book_id="B2", limit=2) == {"person": "P2", "role": "editor"}
    with pytest.raises(NotFound, match="^Dune Messiah has contributors 1 to 2, not 3$"):
        call(world, "GET_books__book_id__editions", book_id="B2", limit=3)
    with pytest.raises(NotFound, match="not 0$"):
        call(world, "GET_books__book_id__editions", book_id="B1", limit=0)


def test_a_list_is_sorted_and_paged(tmp_path: Path) -> None:
    world = world_with(
        tmp_path,
        {
            "GET_search_books": {
                "$page": {"$each": {"$sort": {"$state": "all", "default": []}, "by": "year", "desc": True}, "do": "$it.title"},
                "size": 2,
                "max": 3,
            }
        },
    )
    world.state["all"] = [{"title": t, "year": y} for t, y in (("Dune", 1965), ("Emma", 1815), ("Dune Messiah", 1969))]
    assert call(world, "GET_search_books")["results"] == ["Dune Messiah", "Dune"]  # first page of two
    assert call(world, "GET_search_books", page=2) == {"page": 2, "results": ["Emma"], "total_pages": 2, "total_results": 3}
    with pytest.raises(BadArguments, match="^page must be between 1 and 3, got 4$"):
        call(world, "GET_search_books", page=4)


def test_generated_fields_fill_what_a_record_lacks_and_shapes_render_it(tmp_path: Path) -> None:
    generate = {"book": {"pages": {"$int": ["$title", "pages"], "lo": 100, "hi": 900}, "blurb": "{title}, {pages} pages."}}
    shapes = {"card": {"id": "$key", "title": "$title", "blurb": "$blurb", "cover": {"$token": ["cover", "$key"], "length": 8}}}
    entities = {"book": [*BOOKS[:2], {**BOOKS[2], "pages": 474}]}
    endpoints = {"GET_books__book_id_": {"$shape": "card", "kind": "book", "id": "$book_id"}}
    world = world_with(tmp_path, endpoints, generate=generate, shapes=shapes)
    world.tables["book"]["B3"]["pages"] = 474  # a value the record has is kept
    card = call(world, "GET_books__book_id_", book_id="B1")
    assert card["id"] == "B1" and card["title"] == "Dune" and len(card["cover"]) == 8
    pages = world.tables["book"]["B1"]["pages"]
    assert 100 <= pages <= 900 and card["blurb"] == f"Dune, {pages} pages."
    assert call(world, "GET_books__book_id_", book_id="B3")["blurb"] == "Emma, 474 pages."
    again = world_with(tmp_path, endpoints, generate=generate, shapes=shapes, entities=entities)
    assert call(again, "GET_books__book_id_", book_id="B1") == card  # derived from the seed and the key only
    with pytest.raises(NotFound):
        call(world, "GET_books__book_id_", book_id="B9")


def test_an_unknown_operation_is_refused_when_the_fixture_loads_naming_where(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("endpoints.GET_me_loans.respond.loans[0]: unknown operation '$nope'")):
        world_with(tmp_path, {"GET_me_loans": {"loans": [{"$nope": 1}]}})
    with pytest.raises(GqlbenchError, match=re.escape("shapes.card.x: unknown operation '$nope'")):
        world_with(tmp_path, {}, shapes={"card": {"x": {"$nope": 1}}})


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"$shape": "absent", "of": {}}, "no shape 'absent'"),
        ({"$call": "absent"}, "no function 'absent'"),
    ],
)
def test_a_template_mistake_is_one_line_naming_it(tmp_path: Path, template: Any, message: str) -> None:
    world = world_with(tmp_path, {"GET_me_loans": template})
    with pytest.raises(GqlbenchError, match=message):
        call(world, "GET_me_loans")


def test_an_unknown_name_is_refused_when_the_fixture_loads(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("endpoints.GET_me_loans.respond: unknown name 'missing'")):
        world_with(tmp_path, {"GET_me_loans": "$missing"})


def test_a_declared_section_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("shapes: input should be a valid dictionary, got ['card']")):
        world_with(tmp_path, {}, shapes=["card"])


def test_an_operation_defined_twice_is_an_error_naming_it() -> None:
    from gqlbench.mocks.engine.declared.templates import OPERATIONS, operation

    before = OPERATIONS.find("count")
    with pytest.raises(GqlbenchError, match="template operation 'count' is registered already"):
        operation("count")(lambda template, scope: 0)
    assert OPERATIONS.find("count") is before
