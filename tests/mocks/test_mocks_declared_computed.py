"""Computed fields: values made from an entity's own values, all of a kind's or the ones named."""

from __future__ import annotations

from pathlib import Path

from tests.mocks.library_world import call, world_with

COMPUTED = {
    "book": {
        "uri": "library:book:{id}",
        "links": {"web": "https://books.example/{title}"},
        "pages": {"$int": ["$book_id", "pages"], "lo": 10, "hi": 10},
    }
}


def test_a_template_shows_every_computed_field_of_a_kind_or_only_those_named(tmp_path: Path) -> None:
    book = {"$let": {"b": {"$get": "book", "id": "$book_id"}}, "in": {"id": "$book_id", "title": "$b.title"}}  # of: the values and the id
    endpoints = {
        "GET_books__book_id_": {"$computed": "book", "of": book},
        "GET_books__book_id__editions": {"$computed": "book", "of": book, "only": ["uri", "missing"]},
    }
    world = world_with(tmp_path, endpoints, computed=COMPUTED)
    assert call(world, "GET_books__book_id_", book_id="B1") == {
        "uri": "library:book:B1",
        "links": {"web": "https://books.example/Dune"},
        "pages": 10,
    }
    assert call(world, "GET_books__book_id__editions", book_id="B3") == {"uri": "library:book:B3"}
