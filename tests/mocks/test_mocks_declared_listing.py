"""``$page``: a numbered page of a sorted list, and a page outside its range is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.mocks.errors import BadArguments
from tests.mocks.library_world import call, world_with


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
