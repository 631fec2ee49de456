"""Which fields a response already holds: the object an id expression reads, walked through the response SDL."""

from __future__ import annotations

from gqlbench.synthetic.response_fields import has_field, source_of


def test_an_id_expression_names_the_object_it_reads_through_lists_and_filters() -> None:
    assert source_of("response_obj1.albums.items[0].id") == ("response_obj1", ("albums", "items", 0))
    assert source_of('[p for p in response_obj.items if p.name == "Chill"][0].id') == ("response_obj", ("items", 0))
    assert source_of("response_obj.id") == ("response_obj", ())
    assert source_of('"a literal"') is None


def test_a_searched_album_has_its_release_date_but_not_its_label_and_a_saved_one_embeds_its_tracks() -> None:
    searched = ("GET_search", ("albums", "items", 0))
    assert has_field("spotify", *searched, "release_date") and has_field("spotify", *searched, "total_tracks")
    assert not has_field("spotify", *searched, "label") and not has_field("spotify", *searched, "tracks.items")
    assert has_field("spotify", "GET_me_albums", ("items", 0, "album"), "tracks.items")
    assert not has_field("tmdb", "GET_search_movie", ("results", 0), "runtime")
    assert not has_field("tmdb", "GET_no_such_endpoint", (), "id")
