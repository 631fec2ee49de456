"""A relation read both ways: ``$referring`` finds the records whose entries name an entity."""

from __future__ import annotations

from pathlib import Path

from tests.mocks.library_world import BOOKS, call, world_with


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
