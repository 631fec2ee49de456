"""The patterns the independent reading found (issue #32, round 1) never come out of the composer, by general rules."""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from gqlbench.synthetic.by_intent import INTENT_SHAPES, draw, program_labels
from gqlbench.synthetic.intents import Ask, compose
from gqlbench.synthetic.lexicons import lexicon_for
from gqlbench.synthetic.literals import names_for
from gqlbench.synthetic.patterns import count

DRAWS = 600


@cache
def _drafts(domain: str) -> tuple[dict[str, Any], ...]:
    """What the composer offers for ``domain`` (before the sandbox checks, which these rules do not rely on)."""
    lexicon = lexicon_for(domain)
    assert lexicon is not None
    rng = random.Random(7)
    rows = []
    for i in range(DRAWS):
        shape = INTENT_SHAPES[i % len(INTENT_SHAPES)]
        drawn = draw(lexicon, rng, shape)
        if drawn is not None:
            _, text, code = drawn
            rows.append({"domain": domain, "utterance": text, "output": code, "synthetic": {"shape": shape, **program_labels(code)}})
    assert len(rows) > DRAWS // 4
    return tuple(rows)


def _count(pattern: str) -> dict[str, int]:
    return {domain: count(_drafts(domain))[pattern] for domain in ("spotify", "tmdb")}


def test_no_request_looks_up_a_field_its_earlier_response_already_has() -> None:
    assert _count("redundant_lookup") == {"spotify": 0, "tmdb": 0}


def test_a_field_the_finding_response_has_is_answered_by_that_response_alone() -> None:
    album = re.compile(r'^(response_obj = )?GET_search\(q=".*", type="album"\)$')
    searched = [r for r in _drafts("spotify") if album.match(r["output"].split("\n")[0])]
    asked = [r for r in searched if r["utterance"].startswith(("When did", "How many tracks does"))]
    label = [r for r in searched if r["utterance"].startswith("What label released")]
    assert asked and label, "no release date, track count or label asked of a searched album"
    assert not any("GET_albums__id_(id=response_obj.albums" in r["output"] for r in asked)  # the search's album has the field
    assert all("GET_albums__id_(id=response_obj.albums" in r["output"] for r in label)  # it has no label: the lookup stays


def test_the_top_of_a_list_is_said_as_a_person_says_it() -> None:
    assert _count("mechanical_ordinal") == {"spotify": 0, "tmdb": 0}


LIST_WORDS = {
    "GET_movie_popular": "popular",
    "GET_tv_popular": "popular",
    "GET_person_popular": "popular",
    "GET_movie_top_rated": "rated",
    "GET_tv_top_rated": "rated",
    "GET_movie_now_playing": ("theaters", "cinemas"),
    "GET_tv_on_the_air": ("air",),
    "GET_trending__media_type___time_window_": "trending",
}


@pytest.mark.parametrize("domain", ["tmdb"])
def test_a_list_ask_says_the_word_that_tells_its_list_apart(domain: str) -> None:
    lexicon = lexicon_for(domain)
    assert lexicon is not None
    lists: list[Ask] = [a for a in lexicon.asks if not a.slots and len(a.calls) == 1]
    assert all(a.calls[0].function != "GET_discover_movie" or a.calls[0].args for a in lists)  # "movies to discover": any list fits
    for ask in lists:
        words = LIST_WORDS.get(ask.calls[0].function)
        for phrase in ask.phrases if words else ():
            assert any(w in phrase.lower() for w in ((words,) if isinstance(words, str) else words)), phrase
    assert _count("vague_list") == {"spotify": 0, "tmdb": 0}


def test_a_deep_part_is_short_ranks_once_and_names_the_site_once() -> None:
    for pattern in ("deep_long", "stacked_superlatives", "site_twice"):
        assert _count(pattern) == {"spotify": 0, "tmdb": 0}, pattern
    assert count(_drafts("tmdb"))["on_site"] < len(_drafts("tmdb")) * 0.05  # said only where a search needs it


def test_the_newest_movie_is_only_asked_about_itself() -> None:
    assert _count("latest_subject") == {"spotify": 0, "tmdb": 0}
    assert any(r["output"] == "GET_movie_latest()" for r in _drafts("tmdb"))


def test_two_parts_are_never_two_bare_searches_and_mostly_share_a_topic() -> None:
    assert _count("bare_pair") == {"spotify": 0, "tmdb": 0}
    for domain in ("spotify", "tmdb"):
        lexicon = lexicon_for(domain)
        assert lexicon is not None
        names = {n.names: names_for(domain, n.names) for n in lexicon.nouns if n.names}
        rng = random.Random(3)
        topics: Counter[bool] = Counter()
        for _ in range(400):
            both = compose(lexicon, rng, names, "two_parts")
            if both is not None:
                topics[both.parts[0].ask.topic == both.parts[1].ask.topic] += 1
        assert topics[True] >= topics[False] * 0.4, (domain, topics)
