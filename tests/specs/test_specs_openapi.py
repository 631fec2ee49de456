"""Signatures from OpenAPI: naming, parameters, $refs, and fidelity to the dataset's 80 signatures."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from gqlbench.dataset import load_samples
from gqlbench.errors import GqlbenchError
from gqlbench.specs.openapi import (
    function_name,
    load_openapi,
    parse_endpoints,
    resolve,
    select_operations,
    specs_from_openapi,
)

RESTBENCH = Path(str(resources.files("gqlbench.data") / "restbench" / "specs"))
FIDELITY_DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi-fidelity.md"
MEASURED_SIGNATURE_MATCHES = 76  # out of 80; docs/openapi-fidelity.md explains the other 4


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/tv/{tv_id}", "GET_tv__tv_id_"),
        ("get", "/trending/{media_type}/{time_window}", "GET_trending__media_type___time_window_"),
        ("DELETE", "/playlists/{playlist_id}/tracks", "DELETE_playlists__playlist_id__tracks"),
        ("PUT", "/me/player/pause", "PUT_me_player_pause"),
        ("GET", "/v1/some-thing/{an-id}", "GET_v1_some_thing__an_id_"),
    ],
)
def test_function_name(method: str, path: str, expected: str) -> None:
    assert function_name(method, path) == expected


def test_parse_endpoints() -> None:
    assert parse_endpoints("GET /a/{id}, post /b") == [("GET", "/a/{id}"), ("POST", "/b")]
    with pytest.raises(GqlbenchError, match="METHOD /path"):
        parse_endpoints("FETCH /a")
    with pytest.raises(GqlbenchError, match="METHOD /path"):
        parse_endpoints("GET a")


YAML_31 = """
openapi: 3.1.0
info: {title: Books, version: "1"}
servers: [{url: "https://books.example.org/api"}]
paths:
  /books/{book_id}:
    parameters:
      - $ref: "#/components/parameters/BookId"
    get:
      summary: Get a book
      parameters:
        - name: fields
          in: query
          schema: {type: [string, "null"], description: Fields to return}
        - name: lang
          in: query
          required: true
          description: A language code
          schema: {type: string, enum: [en, fr]}
      responses:
        "200":
          $ref: "#/components/responses/Book"
    put:
      description: Replace a book.
      requestBody:
        $ref: "#/components/requestBodies/BookBody"
      responses: {"204": {description: done}}
  /books:
    post:
      operationId: addBook
      parameters:
        - {name: title, in: query, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title, year]
              properties:
                title: {type: string, description: body title (the query parameter wins)}
                year: {type: integer}
                tags: {type: array, items: {type: string}}
      responses: {"201": {description: created}}
components:
  parameters:
    BookId: {name: book_id, in: path, required: true, schema: {type: integer}}
  requestBodies:
    BookBody:
      content:
        application/json:
          schema: {$ref: "#/components/schemas/BookInput"}
  schemas:
    BookInput:
      allOf:
        - type: object
          required: [title]
          properties: {title: {type: string, description: The title}}
        - type: object
          properties: {rating: {type: number}}
  responses:
    Book:
      description: a book
      content:
        application/json:
          schema: {type: object, properties: {id: {type: integer}}}
"""


def test_yaml_31_with_refs_in_parameters_and_bodies(tmp_path: Path) -> None:
    doc = load_openapi(write(tmp_path, "books.yaml", YAML_31))
    specs = {s["name"]: s for s in specs_from_openapi(doc)}
    assert list(specs) == ["GET_books__book_id_", "PUT_books__book_id_", "POST_books"]

    get = specs["GET_books__book_id_"]
    assert get["description"] == "Get a book"  # no description: the summary
    props = get["parameters"]["properties"]
    assert list(props) == ["book_id", "fields", "lang"]  # path-level parameters first
    assert props["book_id"] == {"type": "integer", "description": "book id"}  # no description: the name
    assert props["fields"] == {"type": "string", "description": "Fields to return"}  # 3.1 type list, null dropped
    assert props["lang"]["description"] == "A language code\nValid values: en,fr"
    assert get["parameters"]["required"] == ["book_id", "lang"]
    assert "body_params" not in get["parameters"]

    put = specs["PUT_books__book_id_"]["parameters"]  # body via $ref to requestBodies, then to an allOf schema
    assert list(put["properties"]) == ["book_id", "title", "rating"]
    assert put["properties"]["rating"]["type"] == "number"
    assert put["required"] == ["book_id", "title"]
    assert put["body_params"] == ["title", "rating"]

    post = specs["POST_books"]["parameters"]
    assert list(post["properties"]) == ["title", "year", "tags"]
    assert post["properties"]["title"]["description"] == "title"  # the query parameter, not the body property
    assert post["body_params"] == ["year", "tags"]
    assert post["required"] == ["year"]


def test_endpoint_selection_keeps_the_order_asked_for(tmp_path: Path) -> None:
    doc = load_openapi(write(tmp_path, "books.yaml", YAML_31))
    chosen = select_operations(doc, parse_endpoints("POST /books,GET /books/{book_id}"))
    assert [op.name for op in chosen] == ["POST_books", "GET_books__book_id_"]
    with pytest.raises(GqlbenchError, match=r"'GET /nope' is not in the document; GET paths there: /books/\{book_id\}"):
        select_operations(doc, [("GET", "/nope")])


def test_resolve_follows_chains_and_rejects_loops_and_outside_refs() -> None:
    doc = {"a": {"$ref": "#/b"}, "b": {"$ref": "#/c", "description": "kept"}, "c": {"type": "string"}, "x": {"$ref": "#/x"}}
    assert resolve(doc, {"$ref": "#/a"}) == {"type": "string", "description": "kept"}
    with pytest.raises(GqlbenchError, match="refers to itself"):
        resolve(doc, {"$ref": "#/x"})
    with pytest.raises(GqlbenchError, match="only references inside the same document"):
        resolve(doc, {"$ref": "other.yaml#/c"})
    with pytest.raises(GqlbenchError, match="points to nothing"):
        resolve(doc, {"$ref": "#/missing"})


def test_a_percent_encoded_pointer_into_a_path_resolves() -> None:
    # as published by SpaceTraders: a $ref into another operation's response, '{' and '}' percent-encoded
    doc = {"paths": {"/ships/{shipSymbol}": {"get": {"responses": {"200": {"schema": {"type": "integer"}}}}}}}
    ref = "#/paths/~1ships~1%7BshipSymbol%7D/get/responses/200/schema"
    assert resolve(doc, {"$ref": ref}) == {"type": "integer"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"swagger": "2.0", "paths": {}}', "found 'swagger: 2.0'; only OpenAPI 3.0 and 3.1"),
        ('{"openapi": "3.0.1"}', "no 'paths' object"),
        ('{"openapi": ', r"api.json:1: not valid JSON"),
    ],
)
def test_bad_documents_get_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(GqlbenchError, match=message):
        load_openapi(write(tmp_path, "api.json", text))


# ---- fidelity: the 80 dataset signatures regenerated from RestBench's OpenAPI files ----


def _shape(spec: dict) -> tuple:
    """What the fidelity check compares: names in order, types, required set."""
    params = spec["parameters"]
    return (list(params["properties"]), [p["type"] for p in params["properties"].values()], sorted(params["required"]))


def _dataset_variants() -> dict[tuple[str, str], list[dict]]:
    variants: dict[tuple[str, str], list[dict]] = {}
    for sample in load_samples():
        for spec in sample.function_specs:
            raw = spec.model_dump()
            found = variants.setdefault((sample.domain, spec.name), [])
            if raw not in found:
                found.append(raw)
    return variants


def signature_mismatches() -> tuple[int, list[str]]:
    """(matches, names that match no dataset variant of their signature)."""
    variants = _dataset_variants()
    generated = {}
    for domain in ("spotify", "tmdb"):
        doc = load_openapi(RESTBENCH / f"{domain}_oas.json")
        generated |= {(domain, s["name"]): s for s in specs_from_openapi(doc)}
    mismatches = [
        name
        for (domain, name), specs in sorted(variants.items())
        if (domain, name) not in generated or all(_shape(s) != _shape(generated[(domain, name)]) for s in specs)
    ]
    return len(variants) - len(mismatches), mismatches


def documented_deviations() -> set[str]:
    text = FIDELITY_DOC.read_text(encoding="utf-8")
    section = text.split("## Signature deviations", 1)[1].split("\n## ", 1)[0]
    return {m for line in section.splitlines() if line.startswith("| `") for m in re.findall(r"^\| `(\w+)`", line)}


def test_signature_fidelity_matches_the_documented_count() -> None:
    matches, mismatches = signature_mismatches()
    assert len(_dataset_variants()) == 80
    assert matches == MEASURED_SIGNATURE_MATCHES, mismatches
    assert set(mismatches) == documented_deviations()


def test_regenerated_signatures_keep_the_dataset_rules() -> None:
    doc = load_openapi(RESTBENCH / "tmdb_oas.json")
    trending = next(s for s in specs_from_openapi(doc, [("GET", "/trending/{media_type}/{time_window}")]))
    assert trending["parameters"]["properties"]["time_window"]["description"] == "time window\nValid values: day,week"
    spotify = load_openapi(RESTBENCH / "spotify_oas.json")
    (following,) = specs_from_openapi(spotify, [("PUT", "/me/following")])
    # "required": "true" (a string) counts; the body's "ids" loses to the query parameter "ids"
    assert following["parameters"]["required"] == ["type", "ids"]
    assert "body_params" not in following["parameters"]
    dataset = next(s for s in load_samples() if "PUT_me_following" in s.function_names)
    assert _shape(following) == _shape(next(f.model_dump() for f in dataset.function_specs if f.name == "PUT_me_following"))


def test_paths_that_map_to_one_name_are_refused(tmp_path: Path) -> None:
    text = '{"openapi": "3.0.0", "paths": {"/a-b": {"get": {}}, "/a_b": {"get": {}}}}'
    doc = load_openapi(write(tmp_path, "api.json", text))
    with pytest.raises(GqlbenchError, match="'GET /a-b' and 'GET /a_b' both map to the function name GET_a_b"):
        specs_from_openapi(doc)
    assert [s["name"] for s in specs_from_openapi(doc, [("GET", "/a_b")])] == ["GET_a_b"]


COMPOSED_BODIES = """
openapi: 3.0.3
info: {title: tasks, version: "1"}
paths:
  /tasks:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/TaskRequestEnvelope'}
      responses: {'201': {description: ok}}
  /tasks/{task_gid}:
    put:
      parameters: [{name: task_gid, in: path, required: true, schema: {type: string}}]
      requestBody:
        content:
          application/json:
            schema:
              oneOf:
                - {type: object, required: [name, notes], properties: {name: {type: string}, notes: {type: string}}}
                - {type: object, required: [name], properties: {name: {type: string}, completed: {type: boolean}}}
                - {type: string}
      responses: {'200': {description: ok}}
  /tags:
    put:
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {names: {type: array, items: {type: string}}}}
      responses: {'200': {description: ok}}
  /nodes:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
      responses: {'200': {description: ok}}
components:
  schemas:
    TaskRequestEnvelope:
      type: object
      properties:
        data: {$ref: '#/components/schemas/TaskRequest'}
    TaskRequest:
      allOf:
        - $ref: '#/components/schemas/TaskBase'
        - type: object
          properties:
            workspace: {type: string, description: The workspace of the task.}
            followers: {type: array, items: {type: string}}
    TaskBase:
      allOf:
        - $ref: '#/components/schemas/Named'
        - type: object
          required: [resource_subtype]
          properties:
            resource_subtype: {type: string, enum: [default_task, milestone]}
    Named:
      type: object
      required: [name]
      properties:
        gid: {type: string, readOnly: true, description: Set by the server.}
        name: {type: string, description: Name of the task.}
    Node:
      type: object
      properties:
        label: {type: string}
        child: {$ref: '#/components/schemas/Node'}
"""


def _signatures(tmp_path: Path, text: str) -> dict[str, dict]:
    return {spec["name"]: spec for spec in specs_from_openapi(load_openapi(write(tmp_path, "api.yaml", text)))}


def test_a_body_envelope_composed_at_any_depth_becomes_named_parameters(tmp_path: Path) -> None:
    post = _signatures(tmp_path, COMPOSED_BODIES)["POST_tasks"]["parameters"]
    # Asana's {"data": {...}}: the fields of the wrapped object, found through allOf two levels down;
    # the read-only gid is the server's to set, so it is no parameter.
    assert list(post["properties"]) == ["name", "resource_subtype", "workspace", "followers"]
    assert post["required"] == ["name", "resource_subtype"]
    assert post["body_params"] == ["name", "resource_subtype", "workspace", "followers"]
    assert post["body_envelope"] == "data"
    assert post["properties"]["workspace"]["description"] == "The workspace of the task."
    assert post["properties"]["resource_subtype"]["description"].endswith("Valid values: default_task,milestone")


def test_one_of_a_body_unites_fields_and_requires_only_what_every_branch_requires(tmp_path: Path) -> None:
    put = _signatures(tmp_path, COMPOSED_BODIES)["PUT_tasks__task_gid_"]["parameters"]
    assert list(put["properties"]) == ["task_gid", "name", "notes", "completed"]
    assert put["required"] == ["task_gid"]  # the string branch may be what is sent: no body field is required
    assert "body_envelope" not in put


def test_a_single_field_that_is_not_an_object_is_no_envelope_and_a_recursive_body_ends(tmp_path: Path) -> None:
    specs = _signatures(tmp_path, COMPOSED_BODIES)
    assert list(specs["PUT_tags"]["parameters"]["properties"]) == ["names"]
    assert "body_envelope" not in specs["PUT_tags"]["parameters"]
    assert list(specs["POST_nodes"]["parameters"]["properties"]) == ["label", "child"]
