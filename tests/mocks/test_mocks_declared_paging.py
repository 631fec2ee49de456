"""An endpoint's declared page: offset pages with neighbouring hrefs, cursor pages, and the limits they enforce."""

from __future__ import annotations

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared.paging import check_paging, page
from gqlbench.mocks.errors import BadArguments, NotFound

ITEMS = [{"id": f"t{i}"} for i in range(5)]
HREF = "https://api.example.com/v1/users/{user_id}/tracks"


def test_an_offset_page_holds_its_slice_and_links_its_neighbours() -> None:
    got = page(ITEMS, {"href": HREF, "limit": 2}, {"user_id": "u1", "offset": 2})
    base = "https://api.example.com/v1/users/u1/tracks"
    assert got == {
        "href": f"{base}?offset=2&limit=2",
        "items": ITEMS[2:4],
        "limit": 2,
        "offset": 2,
        "total": 5,
        "next": f"{base}?offset=4&limit=2",
        "previous": f"{base}?offset=0&limit=2",
    }
    last = page(ITEMS, {"href": HREF, "limit": 2}, {"user_id": "u1", "offset": 4})
    assert last["items"] == ITEMS[4:] and last["next"] is None


@pytest.mark.parametrize(
    ("args", "message"), [({"offset": -1}, "offset must be >= 0, got -1"), ({"limit": 51}, "limit must be between 1 and 50, got 51")]
)
def test_an_offset_or_limit_out_of_range_is_bad_arguments(args: dict[str, int], message: str) -> None:
    with pytest.raises(BadArguments, match=f"^{message}$"):
        page(ITEMS, {"href": HREF}, args)


def test_a_cursor_page_starts_after_its_cursor_and_names_the_next_one_under_its_field() -> None:
    paging = {"style": "cursor", "href": "https://x/following", "limit": 2, "under": "artists"}
    first = page(ITEMS, paging, {})["artists"]
    assert first["items"] == ITEMS[:2] and first["cursors"] == {"after": "t1"} and "offset" not in first
    second = page(ITEMS, paging, {"after": "t1"})["artists"]
    assert second["items"] == ITEMS[2:4] and second["cursors"] == {"after": "t3"}
    assert page(ITEMS, paging, {"after": "t3"})["artists"]["cursors"] == {"after": None}
    with pytest.raises(NotFound, match="after='t9' is not in this list"):
        page(ITEMS, paging, {"after": "t9"})


@pytest.mark.parametrize(
    ("paging", "message"),
    [
        (["x"], "paging must be an object"),
        ({"size": 2}, "paging.size: unknown key"),
        ({"style": "numbered"}, "paging.style 'numbered' is not one of offset, cursor"),
        ({"limit": 0}, "paging.limit must be a positive integer"),
        ({"max_limit": True}, "paging.max_limit must be a positive integer"),
    ],
)
def test_a_wrong_declaration_is_one_line_naming_where(paging: object, message: str) -> None:
    with pytest.raises(GqlbenchError, match=f"^endpoints.GET_x: {message}"):
        check_paging(paging, "endpoints.GET_x")
