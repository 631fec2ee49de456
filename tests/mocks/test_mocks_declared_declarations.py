"""A fixture's declared sections: generated fields shown through a view, named shapes, each section checked for its type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import NotFound
from tests.mocks.library_world import BOOKS, call, world_with


def test_generated_fields_fill_what_a_record_lacks_and_a_view_shows_them(tmp_path: Path) -> None:
    generate = {"book": {"pages": {"$int": ["$title", "pages"], "lo": 100, "hi": 900}, "blurb": "{title}, {pages} pages."}}
    fields = {"id": "$id", "title": "$title", "blurb": "$blurb", "cover": {"$token": ["cover", "$id"], "length": 8}}
    views = {"card": {"kind": "book", "complete": True, "fields": fields}}
    entities = {"book": [*BOOKS[:2], {**BOOKS[2], "pages": 474}]}
    endpoints = {"GET_books__book_id_": {"$view": "card", "of": "$book_id"}}
    world = world_with(tmp_path, endpoints, generate=generate, views=views)
    world.tables["book"]["B3"]["pages"] = 474  # a value the record has is kept
    card = call(world, "GET_books__book_id_", book_id="B1")
    assert card["id"] == "B1" and card["title"] == "Dune" and len(card["cover"]) == 8
    pages = world.tables["book"]["B1"]["pages"]
    assert 100 <= pages <= 900 and card["blurb"] == f"Dune, {pages} pages."
    assert call(world, "GET_books__book_id_", book_id="B3")["blurb"] == "Emma, 474 pages."
    again = world_with(tmp_path, endpoints, generate=generate, views=views, entities=entities)
    assert call(again, "GET_books__book_id_", book_id="B1") == card  # derived from the seed and the key only
    with pytest.raises(NotFound):
        call(world, "GET_books__book_id_", book_id="B9")


def test_a_shape_is_a_named_template_that_sees_the_names_it_is_given(tmp_path: Path) -> None:
    endpoints = {
        "GET_books__book_id_": {"$let": {"b": {"$get": "book", "id": "$book_id"}}, "in": {"$shape": "credit", "of": "$b.contributors.1"}}
    }
    shapes = {"credit": {"who": "$person", "as": "$role", "book": "$b.title"}}
    world = world_with(tmp_path, endpoints, shapes=shapes)
    assert call(world, "GET_books__book_id_", book_id="B2") == {"who": "P2", "as": "editor", "book": "Dune Messiah"}


def test_a_shape_of_an_entity_by_kind_and_id_says_to_use_a_view(tmp_path: Path) -> None:
    endpoints = {"GET_books__book_id_": {"$shape": "card", "kind": "book", "id": "$book_id"}}
    with pytest.raises(GqlbenchError, match=re.escape('an entity is shown by a view, {"$view": "<view>", "of": "<its id>"}')) as caught:
        world_with(tmp_path, endpoints, shapes={"card": {"title": "$title"}})
    assert len(str(caught.value).splitlines()) == 1 and ":1: endpoints.GET_books__book_id_.respond:" in str(caught.value)


def test_a_declared_section_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("shapes: input should be a valid dictionary, got ['card']")):
        world_with(tmp_path, {}, shapes=["card"])
