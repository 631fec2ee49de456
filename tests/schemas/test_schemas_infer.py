"""SDL inferred from example responses: StepZen naming, merging across items and files, widening."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from graphql import build_ast_schema, parse

from gqlbench.cli.domain_import import infer_schema
from gqlbench.schemas import merge_sdl
from gqlbench.schemas.infer import NULL_ONLY, ListOf, Obj, RestField, Scalar, infer_shape, render_endpoint_sdl

SEARCH_A = {
    "tracks": {
        "items": [
            {
                "album": {"artists": [{"external_urls": {"spotify": "u"}, "id": "a1"}], "external_urls": {"spotify": "u"}},
                "artists": [{"external_urls": {"spotify": "u"}, "id": "a1"}],
                "external_urls": {"spotify": "u"},
                "popularity": 3,
                "preview_url": None,
                "release": "2020-01-31",
            },
            {
                "album": {"artists": [], "external_urls": {"spotify": "u"}},
                "popularity": 4.5,
                "preview_url": None,
                "release": "unknown",
                "disc": 1,
            },
        ],
        "next": None,
        "total": 2,
    }
}
SEARCH_B = {"tracks": {"items": [{"preview_url": "https://p", "popularity": 1}], "next": None, "total": "many"}, "extra": [1, [2]]}


def test_shapes_merge_across_items_and_responses() -> None:
    shape = infer_shape([SEARCH_A, SEARCH_B])
    assert isinstance(shape, Obj)
    tracks = shape.fields["tracks"]
    item = tracks.fields["items"].item
    assert item.fields["popularity"] == Scalar("Float")  # Int + Float
    assert item.fields["release"] == Scalar("String")  # Date + String
    assert item.fields["preview_url"] == Scalar("String")  # null in A, a string in B
    assert "disc" in item.fields and "artists" in item.fields  # field union over items
    assert tracks.fields["next"] == NULL_ONLY  # null everywhere
    assert tracks.fields["total"] == Scalar("String")  # Int + String widens
    assert shape.fields["extra"] == ListOf(Scalar("JSON"))  # a number and a list in one list


def test_render_names_types_like_stepzen() -> None:
    rest = RestField("GET_search", "GET", "https://api.example.com/search", [("q", "String")])
    sdl, skipped = render_endpoint_sdl(rest, infer_shape([SEARCH_A]))
    assert skipped == []
    # depth-first over sorted fields: album.artists is ArtistsEntry, items[].artists is Artists1Entry
    for name in [
        "GET_search_Root",
        "GET_search_Tracks",
        "GET_search_ItemsEntry",
        "GET_search_Album",
        "GET_search_ArtistsEntry",
        "GET_search_Artists1Entry",
        "GET_search_ExternalUrls",
        "GET_search_ExternalUrls1",
        "GET_search_ExternalUrls2",
        "GET_search_ExternalUrls3",
    ]:
        assert f"type {name} {{" in sdl
    assert "  album: GET_search_Album\n  artists: [GET_search_Artists1Entry]\n  disc: Int\n" in sdl
    assert '  """\n  Field "next" is defined as JSON since its value was always \'null\'\n  """\n  next: JSON' in sdl
    assert "release: String" in sdl
    schema = build_ast_schema(parse(merge_sdl([sdl])))
    assert str(schema.query_type.fields["GET_search"].type) == "GET_search_Root"


def test_empty_and_top_level_lists() -> None:
    rest = RestField("GET_x", "POST", "https://h/x", [])
    sdl, _ = render_endpoint_sdl(rest, infer_shape([[{"id": 1, "tags": []}], [{"id": 2, "name": "n"}]]))
    assert "type GET_x_Root {\n  id: Int\n  name: String\n  tags: [JSON]\n}" in sdl
    assert "GET_x: [GET_x_Root]" in sdl and "method: POST" in sdl
    build_ast_schema(parse(merge_sdl([sdl])))


def test_infer_schema_command(tmp_path: Path) -> None:
    files = []
    for i, body in enumerate([SEARCH_A, SEARCH_B]):
        files.append(tmp_path / f"r{i}.json")
        files[-1].write_text(json.dumps(body))
    out = tmp_path / "catalog"
    args = ["--name", "music", "--endpoint", "GET /search/{kind}", "--base-url", "https://api.example.com/v1", "--out", str(out)]
    result = CliRunner().invoke(infer_schema, [*map(str, files), *args])
    assert result.exit_code == 0, result.output
    target = out / "schemas" / "music" / "GET_search__kind_.graphql"
    sdl = target.read_text()
    assert 'endpoint: "https://api.example.com/v1/search/$kind;"' in sdl
    assert "GET_search__kind_(kind: String!): GET_search__kind__Root" in sdl
    # the same again is a no-op; different content needs --force
    assert CliRunner().invoke(infer_schema, [*map(str, files), *args]).exit_code == 0
    again = CliRunner().invoke(infer_schema, [str(files[1]), *args])
    assert again.exit_code != 0 and "--force" in str(again.exception)
    assert target.read_text() == sdl
    assert CliRunner().invoke(infer_schema, [str(files[1]), *args, "--force"]).exit_code == 0
    assert target.read_text() != sdl
