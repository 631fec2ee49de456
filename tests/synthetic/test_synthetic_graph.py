"""The dataflow graph: id-like response fields feed the parameters that name the same kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.mocks.engine.rules import Rule
from gqlbench.schemas.domain_import import import_openapi_domain
from gqlbench.synthetic.graph import LIMITS, _first_sentence, _param_kinds, build_graph, render_path
from tests.schemas.test_schemas_openapi_facts import openapi_doc


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


def _keyed_by_gid() -> dict:
    """Projects and their tasks keyed by a ``gid`` (Asana's): a list with no parameters, lookups by ``{project_gid}``."""
    item = {"type": "object", "properties": {"gid": {"type": "string"}, "name": {"type": "string"}}}
    listed = {"type": "object", "properties": {"data": {"type": "array", "items": item}}}
    one = {"type": "object", "properties": {"data": item}}

    def get(schema: dict, *params: str) -> dict:
        parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params]
        content = {"application/json": {"schema": schema}}
        return {"get": {"parameters": parameters, "responses": {"200": {"description": "ok", "content": content}}}}

    return openapi_doc(
        {
            "/projects": get(listed),
            "/projects/{project_gid}": get(one, "project_gid"),
            "/projects/{project_gid}/tasks": get(listed, "project_gid"),
            "/tasks/{task_gid}": get(one, "task_gid"),
        },
        {},
    )


def test_a_list_with_no_parameters_feeds_a_lookup_by_the_key_its_path_parameter_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "keyed.json").write_text(json.dumps(_keyed_by_gid()))
    import_openapi_domain(tmp_path / "keyed.json", "keyed", tmp_path / "catalog")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    graph = build_graph("keyed")
    assert "GET_projects" in graph.starts()
    fed = {(e.consumer, e.param, render_path(e.path)) for e in graph.edges_from("GET_projects")}
    assert ("GET_projects__project_gid_", "project_gid", ".data[0].gid") in fed
    assert ("GET_projects__project_gid__tasks", "project_gid", ".data[0].gid") in fed
    assert all(not render_path(e.path).endswith(".name") for e in graph.edges)  # a name is not the key a gid names


def test_a_lookup_by_a_name_within_a_scope_is_fed_the_listed_name_and_its_scopes_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/repos/{owner}/{repo}``: a listed repo's ``name`` with its ``owner.login``, from the same element."""
    owner = {"type": "object", "properties": {"login": {"type": "string"}, "id": {"type": "integer"}}}
    repo = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "owner": owner}}

    def get(schema: dict, *params: str) -> dict:
        parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params]
        content = {"application/json": {"schema": schema}}
        return {"get": {"parameters": parameters, "responses": {"200": {"description": "ok", "content": content}}}}

    doc = openapi_doc({"/user/repos": get({"type": "array", "items": repo}), "/repos/{owner}/{repo}": get(repo, "owner", "repo")}, {})
    (tmp_path / "hub.json").write_text(json.dumps(doc))
    import_openapi_domain(tmp_path / "hub.json", "hub", tmp_path / "catalog")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path / "catalog"))
    graph = build_graph("hub")
    [edge] = graph.edges_from("GET_user_repos")
    assert (edge.consumer, edge.param, edge.path, edge.scope) == (
        "GET_repos__owner___repo_",
        "repo",
        (0, "name"),
        (("owner", (0, "owner", "login")),),
    )
    assert graph.endpoints["GET_repos__owner___repo_"].literal_params == ()
