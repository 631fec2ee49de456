"""Abstention and hallucinated calls, read statically from hand-built programs."""

from __future__ import annotations

import pytest

from gqlbench.metrics.abstention import read_abstention

OFFERED = {"GET_search", "GET_me"}
CATALOG = OFFERED | {"GET_albums__id_", "POST_me_player_queue"}


@pytest.mark.parametrize(
    ("code", "abstains", "unoffered"),
    [
        ('raise NotSupported("no endpoint to queue a track")', True, ()),
        ("raise NotSupported", True, ()),
        ('response_obj = GET_search(q="x", type="track")\nraise NotSupported("cannot queue")', True, ()),
        ("", True, ()),  # no answer calls nothing: it declines
        ("x = 1\nprint(len('abc'))", True, ()),  # builtins are no API calls
        ('response_obj = GET_search(q="x", type="track")', False, ()),
        ('r = GET_search(q="x")\nPOST_me_player_queue(uri=r.tracks.items[0].uri)', False, ("POST_me_player_queue",)),
        ("GET_invented_endpoint(id=1)", False, ("GET_invented_endpoint",)),  # not in the catalog, shaped like an endpoint
        ('raise ValueError("not supported")', True, ()),  # no call at all still counts as declining
        ("if True:\n    raise NotSupported('x')\nGET_me()", True, ()),
    ],
)
def test_programs_are_read_as_declining_or_not(code: str, abstains: bool, unoffered: tuple[str, ...]) -> None:
    read = read_abstention(code, OFFERED, CATALOG)
    assert read.abstains is abstains
    assert read.unoffered == unoffered


def test_a_program_that_does_not_parse_is_read_by_pattern() -> None:
    truncated = 'r = GET_search(q="x"\nPOST_me_player_queue(uri='
    read = read_abstention(truncated, OFFERED, CATALOG)
    assert read.api_calls == ("GET_search", "POST_me_player_queue") and not read.abstains
    assert read_abstention('raise NotSupported("x"', OFFERED, CATALOG).abstains


def test_a_call_of_a_name_that_is_not_an_endpoint_is_no_api_call() -> None:
    read = read_abstention("NotSupported('x')\nhelper(1)", OFFERED, CATALOG)
    assert read.api_calls == () and read.abstains and not read.raises
