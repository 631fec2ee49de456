"""Utterances describe response values by where they sit and state every literal."""

from __future__ import annotations

import random

from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.sampler import Call, Draft, Ref
from gqlbench.synthetic.utterances import _action, _where, utterance


def test_a_value_is_described_by_its_position_in_the_response() -> None:
    assert _where(Ref(0, ("items", 2, "track", "id"))) == "the id of the third track"
    assert _where(Ref(0, ("docs", 0, "authors", 0, "author_id"))) == "the author_id of the first author of the first result"
    assert _where(Ref(0, ("tracks", 0, "album", "artists", 0, "id"))) == "the id of the first artist of the album of the first track"
    assert _where(Ref(0, ("artists", "items", 0, "id"))) == "the id of the first artist"
    assert _where(Ref(0, ("id",))) == "its id"


def test_a_noun_phrase_description_becomes_an_instruction() -> None:
    assert _action("Every tag") == "get every tag"
    assert _action("Skips to next track in the user's queue") == "skip to next track in the user's queue"
    assert _action("Search the catalogue for books") == "search the catalogue for books"
    # SpaceTraders' descriptions, as published: verbs the first list lacked, and a leading condition
    assert _action("View the details of a faction.") == "view the details of a faction."
    assert _action("Attempt to dock your ship at it's current location.") == "attempt to dock your ship at it's current location."
    assert _action("If you want to target specific yields for an extraction, you can survey a waypoint") == "survey a waypoint"


def test_the_utterance_states_the_search_text_and_other_literals() -> None:
    graph = build_graph("spotify")
    draft = Draft("chain", [Call("GET_search", (("q", "Anti-Hero"), ("type", "track"))),
                            Call("GET_tracks__id_", (("id", Ref(0, ("tracks", "items", 0, "id"))),))])
    text = utterance(graph, draft, random.Random(0))
    assert 'matching "Anti-Hero"' in text and 'type "track"' in text and "the id of the first track" in text


def test_a_name_with_quotes_is_stated_verbatim() -> None:
    graph = build_graph("tmdb")
    draft = Draft("single", [Call("GET_search_movie", (("query", 'The "Best" Movie'),))])
    assert 'matching "The "Best" Movie"' in utterance(graph, draft, random.Random(0))
