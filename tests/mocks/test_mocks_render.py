"""An entity rendered as any response type shows the same values: stored ones, links kept both ways, derived ones."""

from __future__ import annotations

from pathlib import Path

from graphql import GraphQLObjectType, build_schema

from gqlbench.mocks.engine.render import CHILDREN, Renderer, is_number
from tests.mocks.library_world import world_with

SCHEMA = build_schema(
    """
    type Query { a: BookCard, b: BookPage, c: Author }
    type BookCard { book_id: ID, title: String, pages: Int, publisher_id: ID }
    type BookPage { book_id: ID, title: String, pages: Int, authors: [Author] }
    type Author { author_id: ID, name: String, books: [BookCard] }
    type Price { amount: Float, id: Int }
    """
)


def _type(name: str) -> GraphQLObjectType:
    found = SCHEMA.get_type(name)
    assert isinstance(found, GraphQLObjectType)
    return found


def test_numbers_are_int_and_float_fields() -> None:
    price = _type("Price")
    assert is_number(price.fields["amount"].type) and is_number(price.fields["id"].type)
    assert not is_number(_type("BookCard").fields["title"].type)


def test_one_entity_shows_the_same_values_in_every_type_and_keeps_what_is_stored(tmp_path: Path) -> None:
    world = world_with(tmp_path, {})
    render = Renderer({"book", "author", "publisher"})
    card = render.entity(world, _type("BookCard"), "book", "B1")
    page = render.entity(world, _type("BookPage"), "book", "B1")
    assert card["book_id"] == page["book_id"] == "B1" and card["title"] == page["title"] == "Dune"
    assert isinstance(card["pages"], int) and card["pages"] == page["pages"]  # derived from (kind, id, field) alone
    assert card["publisher_id"] == render.entity(world, _type("BookCard"), "book", "B1")["publisher_id"]  # made once
    assert card["publisher_id"] in world.tables["publisher"]


def test_linked_entities_are_made_once_and_read_both_ways(tmp_path: Path) -> None:
    world = world_with(tmp_path, {})
    render = Renderer({"book", "author"})
    authors = render.entity(world, _type("BookPage"), "book", "B2")["authors"]
    assert len(authors) == CHILDREN
    for author in authors:
        books = render.entity(world, _type("Author"), "author", author["author_id"])["books"]
        assert [b["book_id"] for b in books] == ["B2"]  # the author's books list the book that lists the author
    render.unlink_all(world, "book", "B2")
    assert render.linked(world, "author", authors[0]["author_id"], "book") == []
