"""The patterns the independent readings found (issue #32, rounds 1 to 3) never come out of the composer, by general rules."""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from gqlbench.synthetic.by_intent import INTENT_SHAPES, SHAPE_WEIGHTS, draw, program_labels, shape_order
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


# round 2


def test_a_named_thing_taken_out_of_the_library_is_found_there_not_by_a_search() -> None:
    assert _count("library_by_search") == {"spotify": 0, "tmdb": 0}
    removed = [r for r in _drafts("spotify") if re.search(r"DELETE_me_(tracks|albums|following)\(.*\[\w for \w in", r["output"])]
    assert removed, "no unsave or unfollow of a thing the user names"
    assert all(re.search(r"GET_me_(tracks|albums|following)\(", r["output"]) for r in removed)
    searched = 'response_obj = GET_search(q="Hero", type="track")\nDELETE_me_tracks(ids=response_obj.tracks.items[0].id)'
    row = {"domain": "spotify", "utterance": "Unlike the song 'Hero'.", "output": searched}
    assert count([row])["library_by_search"] == 1


def test_a_new_playlist_is_asked_for_as_created_and_lists_are_not_said_by_array_order_or_field_name() -> None:
    assert _count("create_or_play") == {"spotify": 0, "tmdb": 0}
    assert _count("list_order") == {"spotify": 0, "tmdb": 0}
    made = [r["utterance"] for r in _drafts("spotify") if "POST_users__user_id__playlists" in r["output"]]
    assert made and all(re.match(r"(Create|Make)\b", t) or "create" in t.lower() or "make" in t.lower() for t in made), made


def test_a_bare_tmdb_search_says_what_it_looks_for() -> None:
    assert _count("untyped_search") == {"spotify": 0, "tmdb": 0}
    bare = [r for r in _drafts("tmdb") if r["output"].startswith(("GET_search_movie(", "GET_search_tv("))]
    assert bare, "no bare movie or show search"
    row = {"domain": "tmdb", "utterance": "Search TMDB for Friends.", "output": 'GET_search_tv(query="Friends")'}
    assert count([row])["untyped_search"] == 1 and count([{**row, "utterance": "Look up the show Friends."}])["untyped_search"] == 0


def test_two_unrelated_asks_in_one_request_are_at_most_one_in_six() -> None:
    assert SHAPE_WEIGHTS["two_parts"] / sum(SHAPE_WEIGHTS.values()) <= 1 / 6
    made: Counter[str] = Counter()
    for _ in range(600):
        shape = shape_order(INTENT_SHAPES, made)
        made[shape] += 1
    assert made["two_parts"] <= 100, made


def test_new_playlists_get_many_names() -> None:
    lexicon = lexicon_for("spotify")
    assert lexicon is not None
    names = {v for a in lexicon.asks for key in ("pname", "newname") for v in a.values.get(key, ())}
    assert len(names) >= 12, names  # the world's own playlists are three: the names a user gives vary instead


# round 3


def test_a_saved_list_is_said_by_position_not_by_recency() -> None:
    assert _count("saved_recency") == {"spotify": 0, "tmdb": 0}  # the world lists saved items oldest first
    saved = [r["utterance"] for r in _drafts("spotify") if re.search(r"GET_me_(tracks|albums)\(", r["output"])]
    assert any("first" in t for t in saved), "no saved item said by its position"
    for said in ("Unlike the last song I saved.", "What are my 3 most recently liked songs?"):
        assert count([{"domain": "spotify", "utterance": said, "output": "GET_me_tracks()"}])["saved_recency"] == 1, said


def test_a_popular_list_is_not_said_to_be_weekly() -> None:
    assert _count("weekly_popular") == {"spotify": 0, "tmdb": 0}
    weekly = [r["output"] for r in _drafts("tmdb") if "this week" in r["utterance"] and "trending" in r["utterance"]]
    assert any('time_window="week"' in code for code in weekly)  # "this week's top trending" stays
    row = {"domain": "tmdb", "utterance": "Show me the cast of this week's most popular show.", "output": "GET_tv_popular()"}
    assert count([row])["weekly_popular"] == 1


def test_a_type_label_is_said_once_in_a_request() -> None:
    assert _count("doubled_label") == {"spotify": 0, "tmdb": 0}
    row = {"domain": "tmdb", "utterance": "Any films like the film Heat?", "output": ""}
    assert count([row])["doubled_label"] == 1
    assert count([{**row, "utterance": "Show me films like the movie Heat."}])["doubled_label"] == 0  # "show me" is no label
