"""``$within``: a numbered part of an entity must exist, else the declared error."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.mocks.errors import NotFound
from tests.mocks.library_world import call, world_with


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
