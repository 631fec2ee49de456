"""A fixture's declared sections: generated fields and shapes, each section checked for its type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.errors import NotFound
from tests.mocks.library_world import BOOKS, call, world_with


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


def test_a_declared_section_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GqlbenchError, match=re.escape("shapes: input should be a valid dictionary, got ['card']")):
        world_with(tmp_path, {}, shapes=["card"])
