"""Requests composed by intent: the gold a noun chain and an ask render to, and the words they are said with."""

from __future__ import annotations

import random

from gqlbench.synthetic.intents import (
    Ask,
    Composed,
    Lexicon,
    Noun,
    Part,
    alternatives,
    call,
    compose,
    compose_part,
    join,
    render,
    utterance,
)

MOVIE = Noun(
    "movie", ("<name>",), {"id": "<@0>.results[0].id"}, (call("GET_search_movie", query="<name>"),), names="movie", possessive=("<name>'s",)
)
DIRECTOR = Noun(
    "person",
    ("the director of <x>", "<x's> director"),
    {"id": '[c for c in <@0>.crew if c.job == "Director"][0].id'},
    (call("GET_movie__movie_id__credits", movie_id="<x.id>"),),
    base="movie",
    alternatives=({"id": "<@0>.crew[0].id"},),
)
POPULAR = Noun("movie", ("the most popular movie right now",), {"id": "<@0>.results[0].id"}, (call("GET_movie_popular"),))
FILMS = Ask(
    ("person",), ("What films has <x> made?", "List <x's> films."), (call("GET_person__person_id__movie_credits", person_id="<x.id>"),)
)
CAST = Ask(("movie",), ("Who is in <x>?",), (call("GET_movie__movie_id__credits", movie_id="<x.id>"),), values={"k": (3,)}, limit=None)
LIMITED = Ask(
    ("movie",),
    ("Show <k> movies like <x>.",),
    (call("GET_movie__movie_id__similar", movie_id="<x.id>", limit="<k>"),),
    values={"k": (3,)},
    limit="k",
)


def _part(ask: Ask, chain: tuple[Noun, ...], phrase: str, nouns: tuple[str, ...], values: dict) -> Composed:
    return Composed((Part(ask, (chain,), values, phrase, (nouns,)),))


def test_a_derived_noun_renders_its_calls_and_reads_its_id_through_a_filter() -> None:
    composed = _part(FILMS, (MOVIE, DIRECTOR), "What films has <x> made?", ("<name>", "the director of <x>"), {"x0.name": "Heat"})
    assert render(composed) == (
        'response_obj = GET_search_movie(query="Heat")\n'
        "response_obj1 = GET_movie__movie_id__credits(movie_id=response_obj.results[0].id)\n"
        'GET_person__person_id__movie_credits(person_id=[c for c in response_obj1.crew if c.job == "Director"][0].id)'
    )
    assert utterance(composed) == "What films has the director of Heat made?"


def test_an_alternative_reading_swaps_one_noun_and_a_dropped_limit_leaves_the_argument_out() -> None:
    composed = _part(FILMS, (MOVIE, DIRECTOR), "What films has <x> made?", ("<name>", "the director of <x>"), {"x0.name": "Heat"})
    swaps = alternatives(composed)
    assert swaps == [{(0, 0, 1): 0}]
    assert render(composed, swap=swaps[0]).endswith("GET_person__person_id__movie_credits(person_id=response_obj1.crew[0].id)")
    limited = _part(LIMITED, (MOVIE,), LIMITED.phrases[0], ("<name>",), {"x0.name": "Heat", "k": 3})
    assert render(limited).endswith("limit=3)") and render(limited, drop_limit=True).endswith("movie_id=response_obj.results[0].id)")


def test_a_possessive_is_said_only_of_a_noun_that_has_one() -> None:
    lexicon = Lexicon("tmdb", (MOVIE, DIRECTOR, POPULAR), (FILMS,))
    names = {"movie": ("Heat",)}
    parts = [compose_part(lexicon, random.Random(seed), names, FILMS, depth=1) for seed in range(40)]
    texts = {utterance(Composed((p,))) for p in parts if p is not None}
    assert "What films has the director of Heat made?" in texts and "What films has Heat's director made?" in texts
    for text in texts:
        assert "right now's" not in text and "of Heat's" not in text and "director's" not in text, text


def test_a_long_noun_phrase_goes_only_at_the_end_of_the_request() -> None:
    ask = Ask(("movie",), ("Is <x> any good?", "Show me reviews of <x>."), (call("GET_movie__movie_id__reviews", movie_id="<x.id>"),))
    lexicon = Lexicon("tmdb", (POPULAR,), (ask,))
    texts = {utterance(Composed((p,))) for seed in range(20) if (p := compose_part(lexicon, random.Random(seed), {}, ask, 0))}
    assert texts == {"Show me reviews of the most popular movie right now."}


def test_two_parts_read_as_two_sentences_around_a_question_and_as_one_instruction_otherwise() -> None:
    assert join("Who directed Heat?", "Skip this song.", "{a}, and {b}") == "Who directed Heat? And skip this song."
    assert join("Save Heat.", "Who is in Heat?", "{a}. Also, {b}") == "Save Heat. Also, who is in Heat?"
    assert join("Save Heat.", "Skip this song.", "{a}, then {b}") == "Save Heat, then skip this song."


def test_a_single_is_one_call_and_two_parts_never_write_twice() -> None:
    write = Ask((), ("Pause.",), (call("PUT_me_player_pause"),))
    other = Ask((), ("Skip.",), (call("POST_me_player_next"),))
    lexicon = Lexicon("spotify", (MOVIE,), (write, other, CAST))
    for seed in range(30):
        both = compose(lexicon, random.Random(seed), {"movie": ("Heat",)}, "two_parts")
        if both is not None:  # a read and a write, the write last (nothing read after it goes stale)
            assert [p.ask.writes for p in both.parts] == [False, True], both
        single = compose(lexicon, random.Random(seed), {"movie": ("Heat",)}, "single")
        assert single is None or single.calls() == 1


def test_a_noun_named_through_a_long_one_keeps_it_at_the_end() -> None:
    playing = Noun(
        "track", ("the song I'm listening to right now",), {"album": "<@0>.item.album.id"}, (call("GET_me_player_currently_playing"),)
    )
    album = Noun("album", ("the album <x> is on", "the album of <x>"), {"id": "<x.album>"}, base="track")
    tracks = Ask(("album",), ("List the songs on <x>.",), (call("GET_albums__id__tracks", id="<x.id>"),))
    lexicon = Lexicon("spotify", (playing, album), (tracks,))
    texts = {utterance(Composed((p,))) for seed in range(20) if (p := compose_part(lexicon, random.Random(seed), {}, tracks, 1))}
    assert texts == {"List the songs on the album of the song I'm listening to right now."}
