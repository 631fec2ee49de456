"""Utterances say what the user wants, name every literal, and never spell out the dataflow."""

from __future__ import annotations

import random

from gqlbench.synthetic.graph import build_graph
from gqlbench.synthetic.sampler import Call, Draft, Ref
from gqlbench.synthetic.utterances import path_noun, utterance

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
    assert 'the credits for the movie "Titanic"' in text
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
    assert 'the top tracks for the first artist of the track "Anti-Hero"' in text
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
    assert 'add the track "Money" to the tracks of the first playlist in my playlists' in text


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


def test_what_an_endpoint_returns_is_named_from_its_path_not_copied_from_its_description() -> None:
    spotify, tmdb, library = (build_graph(d).endpoints for d in ("spotify", "tmdb", "library"))
    assert path_noun(tmdb["GET_movie__movie_id__credits"]) == "the credits"
    assert path_noun(tmdb["GET_movie_popular"]) == "the popular movies"
    assert path_noun(spotify["GET_artists__id__top_tracks"]) == "the top tracks"
    assert path_noun(spotify["GET_me_playlists"]) == "my playlists"
    assert path_noun(library["GET_me_loans"]) == "my loans"


def test_a_write_is_said_with_its_method_verb_and_a_limit_next_to_its_list() -> None:
    save = Draft(
        "chain",
        [Call("GET_search", (("q", "Money"), ("type", "track"))), Call("PUT_me_tracks", (("ids", Ref(0, ("tracks", "items", 0, "id"))),))],
    )
    assert 'save the track "Money" to my tracks' in _say("spotify", save)
    remove = Draft("chain", [Call("GET_me_loans", ()), Call("DELETE_loans__loan_id_", (("loan_id", Ref(0, ("loans", 0, "id"))),))])
    assert "remove the first loan in my loans" in _say("library", remove).lower()
    limited = _say("spotify", Draft("single", [Call("GET_me_playlists", (("limit", 5),))]))
    assert "5 of my playlists" in limited and "(" not in limited, limited


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
    assert text.count("the first album in 3 of my albums") == 1 and "that album" in text, text
