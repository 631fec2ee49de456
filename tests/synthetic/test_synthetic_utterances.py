"""Utterances say what the user wants, name every literal, and never spell out the dataflow."""

from __future__ import annotations

import random

from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.sampler import Call, Draft, Ref
from gqlbench.synthetic.utterances import _action, _clean, _noun_phrase, utterance

DATAFLOW_WORDS = ("using the", "the id of", "response", "result of call", "matching")


def _say(domain: str, draft: Draft, seed: int = 0) -> str:
    return utterance(build_graph(domain), draft, random.Random(seed))


def test_a_search_then_a_sub_resource_reads_as_one_request_about_the_named_entity() -> None:
    draft = Draft(
        "chain",
        [
            Call("GET_search_movie", (("query", "Titanic"),)),
            Call("GET_movie__movie_id__credits", (("movie_id", Ref(0, ("results", 0, "id"))),)),
        ],
    )
    text = _say("tmdb", draft)
    assert 'the cast and crew for the movie "Titanic"' in text
    assert not any(word in text.lower() for word in DATAFLOW_WORDS), text


def test_a_value_inside_a_result_is_named_as_the_entity_it_belongs_to() -> None:
    draft = Draft(
        "chain",
        [
            Call("GET_search", (("q", "Anti-Hero"), ("type", "track"))),
            Call("GET_artists__id__top_tracks", (("id", Ref(0, ("tracks", "items", 0, "artists", 0, "id"))),)),
        ],
    )
    text = _say("spotify", draft)
    assert 'the top tracks by country of the first artist of the track "Anti-Hero"' in text
    assert "catalog information" not in text and "matching" not in text


def test_a_fan_out_names_the_shared_entity_once_and_refers_back_to_it() -> None:
    draft = Draft(
        "fan_out",
        [
            Call("GET_search_movie", (("query", "Titanic"),)),
            Call("GET_movie__movie_id__reviews", (("movie_id", Ref(0, ("results", 0, "id"))),)),
            Call("GET_movie__movie_id__keywords", (("movie_id", Ref(0, ("results", 0, "id"))),)),
        ],
    )
    text = _say("tmdb", draft)
    assert text.count('"Titanic"') == 1 and "that movie" in text, text


def test_a_fan_in_names_both_entities_and_a_write_is_an_action() -> None:
    draft = Draft(
        "fan_in",
        [
            Call("GET_me_playlists", ()),
            Call("GET_search", (("q", "Money"), ("type", "track"))),
            Call(
                "POST_playlists__playlist_id__tracks",
                (("playlist_id", Ref(0, ("items", 0, "id"))), ("uris", Ref(1, ("tracks", "items", 0, "uri")))),
            ),
        ],
    )
    text = _say("spotify", draft)
    assert "add one or more items to the first of the playlists owned or followed by me" in text.lower()
    assert 'with the track "Money"' in text


def test_other_literals_are_stated_as_words_unless_the_phrase_names_them() -> None:
    draft = Draft("single", [Call("GET_trending__media_type___time_window_", (("media_type", "tv"), ("time_window", "day")))])
    text = _say("tmdb", draft)
    assert 'media type "tv"' in text and 'time window "day"' in text
    limited = Draft("single", [Call("GET_me_playlists", (("limit", 5),))])
    assert "5" in _say("spotify", limited)


def test_a_search_text_that_is_not_a_name_of_the_kind_is_not_called_one() -> None:
    draft = Draft("single", [Call("GET_search_books", (("q", "Octavia E. Butler"),))])
    assert 'the book "Octavia E. Butler"' not in _say("library", draft)
    assert 'found for "Octavia E. Butler"' in _say("library", draft)


def test_the_wording_varies_with_the_seed_and_repeats_with_it() -> None:
    draft = Draft("single", [Call("GET_search_person", (("query", "Greta Gerwig"),))])
    texts = {_say("tmdb", draft, seed) for seed in range(12)}
    assert len(texts) > 2
    assert _say("tmdb", draft, 3) == _say("tmdb", draft, 3)


def test_descriptions_lose_their_api_boilerplate() -> None:
    assert _clean("Get Spotify catalog information for a single artist identified by their unique Spotify ID") == "Get a single artist"
    assert _clean("Get a companies details by id") == "Get a companies details"
    assert (
        _noun_phrase("Get a list of the playlists owned or followed by the current Spotify user") == "the playlists owned or followed by me"
    )
    assert _noun_phrase("Discover movies by different types of data like average rating") == "the results of discovering movies"
    assert _action("List popular books on a subject, e.g. science_fiction or poetry") == "list popular books on a subject"


def test_a_noun_phrase_description_becomes_an_instruction() -> None:
    assert _action("Every tag") == "get every tag"
    assert _action("Skips to next track in the user's queue") == "skip to next track in my queue"
    # SpaceTraders' descriptions, as published: verbs the first list lacked, and a leading condition
    assert _action("Attempt to dock your ship at it's current location.") == "attempt to dock your ship at it's current location"
    assert _action("If you want to target specific yields for an extraction, you can survey a waypoint") == "survey a waypoint"


def test_a_name_with_quotes_is_stated_verbatim() -> None:
    draft = Draft("single", [Call("GET_search_movie", (("query", 'The "Best" Movie'),))])
    assert '"The "Best" Movie"' in _say("tmdb", draft)


def test_an_element_whose_holder_is_not_its_kind_is_named_by_its_kind_and_holder() -> None:
    draft = Draft(
        "chain",
        [
            Call("GET_search_person", (("query", "Greta Gerwig"),)),
            Call("GET_person__person_id__movie_credits", (("person_id", Ref(0, ("results", 0, "id"))),)),
            Call("GET_movie__movie_id__keywords", (("movie_id", Ref(1, ("crew", 0, "id"))),)),
        ],
    )
    text = _say("tmdb", draft)
    assert 'the first movie listed under crew in the movie credits for the person "Greta Gerwig"' in text, text
    assert "crew member" not in text


def test_a_fan_out_from_a_list_refers_back_to_the_element_it_named() -> None:
    draft = Draft(
        "fan_out",
        [
            Call("GET_me_albums", (("limit", 3),)),
            Call("GET_artists__id__related_artists", (("id", Ref(0, ("items", 0, "album", "artists", 0, "id"))),)),
            Call("PUT_me_albums", (("ids", Ref(0, ("items", 0, "album", "id"))),)),
        ],
    )
    text = _say("spotify", draft)
    assert text.count("the albums saved in my 'Your Music' library") == 1 and "that album" in text, text
