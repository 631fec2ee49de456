"""The dataflow graph: id-like response fields feed the parameters that name the same kind."""

from __future__ import annotations

from gqlbench.mocks.engine.rules import Rule
from gqlbench.synthetic.graph import LIMITS, _first_sentence, _param_kinds, build_graph, render_path


def test_a_search_result_id_feeds_the_lookup_named_by_its_path_segment() -> None:
    graph = build_graph("spotify")
    edges = {(e.producer, e.path, e.consumer, e.param) for e in graph.edges}
    assert ("GET_search", ("artists", "items", 0, "id"), "GET_artists__id_", "id") in edges
    assert ("GET_search", ("artists", "items", 0, "id"), "GET_albums__id_", "id") not in edges  # an artist is not an album


def test_the_human_train_programs_edges_are_in_the_graph() -> None:
    graph = build_graph("library")
    gold = {(e.producer, e.path, e.consumer, e.param) for e in graph.edges if e.source == "gold"}
    assert ("GET_search_books", ("docs", 0, "book_id"), "GET_books__book_id__editions", "book_id") in gold


def test_starts_take_only_literals() -> None:
    graph = build_graph("library")
    assert {"GET_search_books", "GET_me_loans"} <= set(graph.starts())
    assert "GET_books__book_id_" not in graph.starts()


def test_a_parameter_named_for_a_kind_keeps_its_kind_whatever_the_endpoint_creates() -> None:
    create = Rule(function="POST_playlists__playlist_id__tracks", action="create", kind="track", id_param="playlist_id")
    assert _param_kinds(["playlist_id", "uris"], create, ["playlists", "{playlist_id}", "tracks"]) == {
        "playlist_id": "playlist",
        "uris": "track",
    }  # uris are the uris of what the endpoint adds
    children = Rule(function="GET_artists__id__albums", action="children", kind="album", id_param="id", parent="artist")
    assert _param_kinds(["id"], children, ["artists", "{id}", "albums"]) == {"id": "artist"}


def test_descriptions_are_cut_to_their_first_sentence_across_line_breaks() -> None:
    text = "Get detailed profile information about the current user (including the\ncurrent user's username).\n\nMore."
    assert _first_sentence(text) == "Get detailed profile information about the current user (including the current user's username)"
    assert _first_sentence("List books on a subject, e.g. poetry. More.") == "List books on a subject, e.g. poetry"
    assert render_path(("docs", 0, "book_id")) == ".docs[0].book_id"


def test_optional_literals_are_the_human_gold_values_and_an_integer_limit() -> None:
    editions = build_graph("library").endpoints["GET_books__book_id__editions"]
    assert 1 in editions.optional["limit"] and set(LIMITS) <= set(editions.optional["limit"])
    assert "book_id" not in editions.optional


def test_a_call_taking_two_ids_is_a_fan_in_target_only_when_the_types_fit() -> None:
    spotify, tmdb = build_graph("spotify"), build_graph("tmdb")
    assert "POST_playlists__playlist_id__tracks" in spotify.fan_in_targets()  # a playlist id and track uris
    uris = {e.path[-1] for e in spotify.edges_into("POST_playlists__playlist_id__tracks", "uris")}
    assert uris == {"uri"}  # an id is not a uri
    assert tmdb.endpoints["GET_discover_movie"].extra_kinds["with_people"] == "person"
    assert not tmdb.edges_into("GET_discover_movie", "with_people")  # a string parameter; the person ids are integers
    assert tmdb.fan_in_targets() == []
