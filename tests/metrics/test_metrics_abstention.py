"""Abstention and hallucinated calls, read statically from hand-built programs."""

from __future__ import annotations

import pytest

from gqlbench.metrics.abstention import read_abstention

OFFERED = {"GET_search", "GET_me"}
CATALOG = OFFERED | {"GET_albums__id_", "POST_me_player_queue"}


@pytest.mark.parametrize(
    ("code", "explicit", "unoffered"),
    [
        ('raise NotSupported("no endpoint to queue a track")', True, ()),
        ("raise NotSupported", True, ()),
        ('response_obj = GET_search(q="x", type="track")\nraise NotSupported("cannot queue")', True, ()),
        ('response_obj = GET_search(q="x", type="track")', False, ()),
        ('r = GET_search(q="x")\nPOST_me_player_queue(uri=r.tracks.items[0].uri)', False, ("POST_me_player_queue",)),
        ("GET_invented_endpoint(id=1)", False, ("GET_invented_endpoint",)),  # not in the catalog, shaped like an endpoint
        ('raise ValueError("not supported")', True, ()),  # the wrong marker, but a refusal in words
        ("if True:\n    raise NotSupported('x')\nGET_me()", True, ()),
    ],
)
def test_programs_are_read_as_declining_or_not(code: str, explicit: bool, unoffered: tuple[str, ...]) -> None:
    read = read_abstention(code, OFFERED, CATALOG)
    assert read.explicit is explicit and not read.no_call
    assert read.unoffered == unoffered


@pytest.mark.parametrize(
    "answer",
    [
        "",  # no answer
        "x = 1\nprint(len('abc'))",  # computes, calls no API function, says nothing
        "```python\n$$ GET_se\n",  # garbled
        "Let me think about which songs the user likes best.",  # prose
    ],
)
def test_an_answer_without_a_call_or_a_refusal_is_no_abstention(answer: str) -> None:
    read = read_abstention(answer, OFFERED, CATALOG, answer=answer)
    assert read.no_call and not read.explicit and read.api_calls == ()


@pytest.mark.parametrize(
    "answer",
    [
        "I cannot fulfil this request: none of the given functions returns lyrics.",
        "No offered function can queue a track, so I will not write a program.",
        "This is not supported by the functions above.",
    ],
)
def test_a_refusal_stated_in_words_is_an_explicit_abstention(answer: str) -> None:
    read = read_abstention(answer, OFFERED, CATALOG, answer=answer)
    assert read.explicit and not read.no_call
    with_call = read_abstention("GET_me()", OFFERED, CATALOG, answer=f"{answer}\n```python\nGET_me()\n```")
    assert not with_call.explicit  # words say no, the program still calls: an attempt


def test_a_program_that_does_not_parse_is_read_by_pattern() -> None:
    truncated = 'r = GET_search(q="x"\nPOST_me_player_queue(uri='
    read = read_abstention(truncated, OFFERED, CATALOG)
    assert read.api_calls == ("GET_search", "POST_me_player_queue") and not read.explicit
    assert read_abstention('raise NotSupported("x"', OFFERED, CATALOG).explicit


def test_a_call_of_a_name_that_is_not_an_endpoint_is_no_api_call() -> None:
    read = read_abstention("NotSupported('x')\nhelper(1)", OFFERED, CATALOG)
    assert read.api_calls == () and read.no_call and not read.raises
