"""Endpoints as Python callables: argument checks, response objects, the trace."""

from __future__ import annotations

import pytest

from gqlbench.mocks.endpoints import make_runtime, response_ids
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.errors import BadArguments, NotFound, UnknownFunction


def test_an_unknown_parameter_names_the_valid_ones(tmdb) -> None:
    with pytest.raises(BadArguments, match=r"GET_search_movie\(\) has no parameter 'querry'; did you mean query\?"):
        tmdb.namespace["GET_search_movie"](querry="Titanic")


def test_a_missing_required_parameter_is_named(tmdb) -> None:
    with pytest.raises(BadArguments, match=r"missing required parameter\(s\) movie_id"):
        tmdb.namespace["GET_movie__movie_id__credits"]()


def test_a_wrong_json_type_is_named(tmdb) -> None:
    with pytest.raises(BadArguments, match="movie_id must be a JSON integer, got string '597'"):
        tmdb.namespace["GET_movie__movie_id__credits"](movie_id="597")
    with pytest.raises(BadArguments, match="must be a JSON integer, got boolean"):
        tmdb.namespace["GET_movie__movie_id__credits"](movie_id=True)


def test_a_non_json_value_is_refused(spotify) -> None:
    with pytest.raises(BadArguments, match="is not a JSON value"):
        spotify.namespace["GET_me_following"](type)


def test_positional_arguments_bind_in_signature_order(tmdb) -> None:
    assert tmdb.namespace["GET_search_movie"]("Titanic").results[0].id == 597
    with pytest.raises(BadArguments, match="got two values for parameter 'query'"):
        tmdb.namespace["GET_search_movie"]("Titanic", query="Titanic")


def test_an_array_parameter_takes_a_comma_separated_string(spotify) -> None:
    spotify.namespace["GET_search"](q="Mojito", type="album,track")
    assert spotify.calls()[-1].arguments["type"] == ["album", "track"]


def test_unknown_function_suggests_the_closest(tmdb) -> None:
    with pytest.raises(UnknownFunction, match="did you mean GET_search_movie"):
        tmdb.call("GET_search_movies", query="x")


def test_a_lookup_of_an_unknown_id_is_not_found_and_traced(tmdb) -> None:
    with pytest.raises(NotFound):
        tmdb.namespace["GET_movie__movie_id_"](movie_id=1)
    assert tmdb.calls()[-1].error.startswith("not_found:")


def test_endpoint_without_response_schema_acknowledges_and_mutates(spotify) -> None:
    me = spotify.namespace["GET_me_following"](type="artist")
    before = [a.id for a in me.artists.items]
    top = spotify.namespace["GET_search"](q="Lana Del Rey", type="artist").artists.items[0]
    ack = spotify.namespace["PUT_me_following"](type="artist", ids=top.id)
    assert ack.ok is True and ack.status_code == 200
    after = [a.id for a in spotify.namespace["GET_me_following"](type="artist").artists.items]
    assert after == [top.id, *before]


def test_playlist_mutations_are_visible_to_later_calls(spotify) -> None:
    me = spotify.namespace["GET_me"]()
    created = spotify.namespace["POST_users__user_id__playlists"](user_id=me.id, name="Love Mariah")
    songs = spotify.namespace["GET_search"](q="Mariah Carey", type="track").tracks.items[:3]
    spotify.namespace["POST_playlists__playlist_id__tracks"](playlist_id=created.id, uris=",".join(t.uri for t in songs))
    playlist = spotify.namespace["GET_playlists__playlist_id_"](playlist_id=created.id)
    assert playlist.name == "Love Mariah"
    assert [i.track.uri for i in playlist.tracks.items] == [t.uri for t in songs]
    assert spotify.namespace["GET_me_playlists"]().items[0].id == created.id


def test_trace_records_concrete_arguments_and_response_ids(tmdb) -> None:
    movie = tmdb.namespace["GET_search_movie"](query="Titanic").results[0]
    tmdb.namespace["GET_movie__movie_id__credits"](movie_id=movie.id)
    calls = tmdb.calls()
    assert [c.function for c in calls] == ["GET_search_movie", "GET_movie__movie_id__credits"]
    assert calls[1].arguments == {"movie_id": 597}
    assert calls[0].response_ids == ["597"] and calls[1].response_ids[0] == "597"


def test_same_calls_same_responses_and_final_state() -> None:
    def run() -> tuple[list, str | None]:
        runtime = make_runtime("tmdb", 3)
        person = runtime.namespace["GET_search_person"](query="Someone Unheard Of").results[0]
        credits = runtime.namespace["GET_person__person_id__movie_credits"](person_id=person.id)
        return unwrap(credits), runtime.world_digest()

    assert run() == run()


def test_response_ids_fall_back_to_named_ids() -> None:
    assert response_ids({"results": [{"id": 1}, {"id": 2}], "page": 1}) == ["1", "2"]
    assert response_ids({"book_id": "b1", "authors": [{"author_id": "a1"}]}) == ["b1", "a1"]


def _big_spec(operations: int) -> dict:
    """An OpenAPI document of ``operations`` operations: a list and a lookup of each of ``operations // 2`` resources."""
    paths, schemas = {}, {}
    for n in range(operations // 2):
        schemas[f"Thing{n}"] = {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, **{f"field_{k}": {"type": "string"} for k in range(6)}},
        }
        ref = {"$ref": f"#/components/schemas/Thing{n}"}
        answer = {"200": {"description": "ok", "content": {"application/json": {"schema": ref}}}}
        listed = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": ref}}}}}
        paths[f"/things{n}"] = {"get": {"responses": listed}}
        param = {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "integer"}}
        paths[f"/things{n}/{{thing_id}}"] = {"get": {"parameters": [param], "responses": answer}}
    return {"openapi": "3.0.0", "info": {"title": "big", "version": "1"}, "paths": paths, "components": {"schemas": schemas}}


@pytest.mark.slow
def test_a_big_domain_is_parsed_once_and_prepares_only_the_endpoints_called(tmp_path, monkeypatch) -> None:
    """Issue 30: a whole published spec (GitHub, 845 operations) did not set up within the sandbox's 60 s.

    Its SDL was parsed three times (each file, the merged text, the mock's
    printed copy) and every endpoint's query prepared before any call. Counted,
    not timed: the characters graphql-core parses, and the queries prepared.
    """
    import json

    from graphql.language import parser

    from gqlbench.schemas.domain_import import import_openapi_domain

    (tmp_path / "big.json").write_text(json.dumps(_big_spec(800)))
    import_openapi_domain(tmp_path / "big.json", "big", tmp_path / "catalog")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    sdl = sum(len(p.read_text()) for p in (tmp_path / "catalog" / "schemas" / "big").glob("*.graphql"))
    parsed: list[int] = []
    init = parser.Parser.__init__

    def counting(self, source, *args, **kwargs) -> None:
        parsed.append(len(getattr(source, "body", source)))
        init(self, source, *args, **kwargs)

    monkeypatch.setattr(parser.Parser, "__init__", counting)
    runtime = make_runtime("big", 0)
    assert len(runtime.namespace) == 800
    assert sum(parsed) < 1.2 * sdl  # each endpoint's SDL once (and the short prelude); it was more than 3 times
    assert runtime._table.prepared == {}
    with pytest.raises(NotFound):
        runtime.namespace["GET_things7__thing_id_"](thing_id=987654321)
    assert list(runtime._table.prepared) == ["GET_things7__thing_id_"]
