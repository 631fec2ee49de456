"""The world's values come from what the OpenAPI file says (enum, format, examples, default) and one component is one kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.fixtures import starter_fixture_files
from gqlbench.mocks.engine.specvalues import MISSING, key_string, spec_value
from gqlbench.mocks.engine.world import World
from gqlbench.schemas.domain_import import import_openapi_domain
from tests.schemas.test_schemas_openapi_facts import DOC, openapi_doc


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    file = tmp_path / "api.json"
    file.write_text(json.dumps(DOC))
    import_openapi_domain(file, "shop", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    return Runtime("shop", 0, request="show widgets")


def test_values_follow_the_fields_enum_format_and_examples(shop: Runtime) -> None:
    api = shop.namespace
    listed = api["GET_things"]()
    assert len(listed) == 2
    for widget in listed:
        assert widget.state in ("open", "closed")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", widget.created_at)
        assert set(widget.tags) <= {"red", "blue"}
        assert re.fullmatch(r"[a-z0-9]+@makers\.example", widget.maker.email)  # the example's host
        assert re.fullmatch(r"(octocat|hubot)-[a-z0-9]{4}", widget.login) and " " not in widget.maker.name
    assert listed[0].login != listed[1].login  # a key-like example is made unique per entity


def test_every_view_of_an_entity_shows_the_same_values(shop: Runtime) -> None:
    api = shop.namespace
    first = api["GET_things"]()[0]
    whole = api["GET_widgets__widget_id_"](widget_id=first.widget_id)
    assert (whole.state, whole.created_at, whole.login, whole.tags) == (first.state, first.created_at, first.login, first.tags)


GADGET = {"type": "object", "properties": {"id": {"type": "string"}, "label": {"type": "string", "enum": ["new", "used"]}}}
FEATURED = openapi_doc(
    {
        "/featured": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Gadget"}}}}}}}},
        "/gadgets": {"post": {"responses": {"201": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Gadget"}}}}}}},
        "/gadgets/{gadget_id}": {"get": {
            "parameters": [{"name": "gadget_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Gadget"}}}}},
        }},
    },
    {"Gadget": GADGET},
)  # fmt: skip


def test_one_component_is_one_kind_whatever_the_paths_call_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET /featured`` lists ``Gadget`` s, ``GET /gadgets/{gadget_id}`` looks one up: the names differ, the component is one."""
    file = tmp_path / "api.json"
    file.write_text(json.dumps(FEATURED))
    import_openapi_domain(file, "store", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    api = Runtime("store", 0, request="show the featured gadgets").namespace
    created = api["POST_gadgets"]()
    featured = api["GET_featured"]()
    assert created.id in [g.id for g in featured]  # a created gadget is listed as featured: one table
    whole = api["GET_gadgets__gadget_id_"](gadget_id=featured[0].id)
    assert (whole.id, whole.label) == (featured[0].id, featured[0].label)


def test_spec_value_order_and_types() -> None:
    world = World(domain="d")
    assert spec_value({"enum": ["a", "b"], "examples": ["c"]}, "String", world, "k", "state") in ("a", "b")
    assert spec_value({"enum": [1, 2]}, "String", world, "k", "state") is MISSING  # no value of the field's type
    assert spec_value({"default": 30}, "Int", world, "k", "per_page") == 30
    assert spec_value({"examples": [7]}, "Int", world, "k", "issue_number") is MISSING  # a numeric key takes no example
    same_url = {"examples": ["https://api.x.com/repos/octocat/Hello-World"]}  # a URL of one entity: not shown for every one
    assert len({spec_value(same_url, "String", world, f"k{i}", "html") for i in range(5)}) == 5
    url = spec_value({"format": "uri", "examples": ["https://api.x.com/a/b"]}, "String", world, "k", "u")
    assert re.fullmatch(r"https://api\.x\.com/\w+", url)
    uuids = {spec_value({"format": "uuid"}, "String", world, f"k{i}", "v") for i in range(20)}
    assert len(uuids) == 20 and all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}", u) for u in uuids)
    assert key_string("example.com", "AbCd") == "example-abcd.com" and key_string("octocat", "AbCd") == "octocat-abcd"


def _imported(doc: dict, name: str, catalog: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``doc`` imported as ``gqlbench domains import-openapi`` does (with the starter world it writes) and made the catalog."""

    def starter(specs: list[dict], sdls: dict[str, str], facts: dict) -> dict[Path, str]:
        return starter_fixture_files(catalog, name, specs, sdls, facts)

    file = catalog / "api.json"
    file.write_text(json.dumps(doc))
    import_openapi_domain(file, name, catalog, extra_files=starter)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(catalog))


def _get(schema: dict, *params: str) -> dict:
    """A GET operation answering ``schema``, with these path parameters."""
    return {"get": {
        "parameters": [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}},
    }}  # fmt: skip


SIMPLE_USER = {"type": "object", "properties": {"login": {"type": "string"}, "id": {"type": "integer"}, "avatar_url": {"type": "string"}}}
PUBLIC_USER = {"type": "object", "properties": {**SIMPLE_USER["properties"], "bio": {"type": "string"}, "blog": {"type": "string"}}}
USERS = openapi_doc(
    {
        "/user/blocks": _get({"type": "array", "items": {"$ref": "#/components/schemas/simple-user"}}),
        "/users": _get({"type": "array", "items": {"$ref": "#/components/schemas/simple-user"}}),
        "/users/{username}": _get({"$ref": "#/components/schemas/public-user"}, "username"),
        "/users/{username}/followers": _get({"type": "array", "items": {"$ref": "#/components/schemas/simple-user"}}, "username"),
    },
    {"simple-user": SIMPLE_USER, "public-user": PUBLIC_USER},
)


def test_a_component_nobody_looks_up_is_the_kind_its_name_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks, followers and users are all ``simple-user`` s: they are users (the kind ``/users/{username}`` finds), not blocks."""
    _imported(USERS, "people", tmp_path, monkeypatch)
    runtime = Runtime("people", 0, request="show octocat's followers")
    api = runtime.namespace
    follower = api["GET_users__username__followers"](username="octocat")[0]
    assert api["GET_users__username_"](username=follower.login).login == follower.login
    blocked = api["GET_user_blocks"]()[0]
    assert api["GET_users__username_"](username=blocked.login).id == blocked.id
    assert {"follower", "block"}.isdisjoint(runtime.world.tables)


TAG = {"type": "object", "properties": {"name": {"type": "string"}, "id": {"type": "string"}, "message": {"type": "string"}}}
ANNOTATED_TAG = {"type": "object", "properties": {"sha": {"type": "string"}, "tag": {"type": "string"}, "message": {"type": "string"}}}
REPOSITORY = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "full_name": {"type": "string"}}}
GIT = openapi_doc(
    {
        "/repositories/{id}": _get({"$ref": "#/components/schemas/Repository"}, "id"),
        "/repos/{owner}/{repo}/git/tags/{sha}": _get({"$ref": "#/components/schemas/AnnotatedTag"}, "owner", "repo", "sha"),
        "/repos/{owner}/{repo}/tags": _get({"type": "array", "items": {"$ref": "#/components/schemas/Tag"}}, "owner", "repo"),
        "/repos/{owner}/{repo}/tags/{tag}": _get({"$ref": "#/components/schemas/Tag"}, "owner", "repo", "tag"),
        "/repos/{owner}/{repo}/issues/{index}/subscriptions": _get(
            {"type": "array", "items": {"$ref": "#/components/schemas/User"}}, "owner", "repo", "index"
        ),
        "/users/{username}": _get({"$ref": "#/components/schemas/User"}, "username"),
        "/user/subscriptions": _get({"type": "array", "items": {"$ref": "#/components/schemas/Repository"}}),
    },
    {"Tag": TAG, "AnnotatedTag": ANNOTATED_TAG, "Repository": REPOSITORY, "User": SIMPLE_USER},
)


def test_endpoints_answering_another_kinds_component_are_that_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The paths say ``tag`` and ``subscription``, the components ``AnnotatedTag`` and ``Repository``: the components decide.

    A listed tag is found by its name (an annotated tag, keyed by ``sha``, is
    another kind), and the repositories one watches are repositories.
    """
    _imported(GIT, "git", tmp_path, monkeypatch)
    starter = tmp_path / "worlds" / "git.json"
    for world_file in (True, False):  # as import-openapi writes it, and inferred by the world without it
        if not world_file:
            starter.unlink()
        api = Runtime("git", 0, request="show the tags of octocat/hello").namespace
        tag = api["GET_repos__owner___repo__tags"](owner="octocat", repo="hello")[0]
        assert api["GET_repos__owner___repo__tags__tag_"](owner="octocat", repo="hello", tag=tag.name).name == tag.name
        watched = api["GET_user_subscriptions"]()[0]
        assert api["GET_repositories__id_"](id=str(watched.id)).full_name == watched.full_name


BRANCH = {"type": "object", "properties": {"name": {"type": "string"}, "protected": {"type": "boolean"}}}
REPO = {"type": "object", "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "default_branch": {"type": "string", "example": "master"},
}}  # fmt: skip
BRANCHES = openapi_doc(
    {
        "/repos/{owner}/{repo}": _get({"$ref": "#/components/schemas/Repository"}, "owner", "repo"),
        "/repos/{owner}/{repo}/branches": _get({"type": "array", "items": {"$ref": "#/components/schemas/Branch"}}, "owner", "repo"),
        "/repos/{owner}/{repo}/branches/{branch}": _get({"$ref": "#/components/schemas/Branch"}, "owner", "repo", "branch"),
    },
    {"Repository": REPO, "Branch": BRANCH},
)


def test_a_text_field_ending_in_a_kind_keyed_by_name_names_that_entity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository's ``default_branch`` is the name of one of its branches: listed with them, and found by it."""
    _imported(BRANCHES, "hub", tmp_path, monkeypatch)
    api = Runtime("hub", 0, request="the default branch of octocat/hello").namespace
    repo = api["GET_repos__owner___repo_"](owner="octocat", repo="hello")
    branch = api["GET_repos__owner___repo__branches__branch_"](owner="octocat", repo="hello", branch=repo.default_branch)
    assert branch.name == repo.default_branch
    assert repo.default_branch in [b.name for b in api["GET_repos__owner___repo__branches"](owner="octocat", repo="hello")]


def test_a_spec_value_outside_a_32_bit_int_is_not_an_int() -> None:
    """LaunchDarkly's examples are millisecond timestamps (``1469326565348``): GraphQL's ``Int`` is 32-bit, so they are not taken."""
    world = World(domain="d")
    assert spec_value({"examples": [1469326565348]}, "Int", world, "k", "creation_date") is MISSING
    assert spec_value({"default": 2**31}, "Int", world, "k", "per_page") is MISSING
    assert spec_value({"enum": [-(2**31) - 1, 5]}, "Int", world, "k", "level") == 5
    assert spec_value({"default": 2**31 - 1}, "Int", world, "k", "per_page") == 2**31 - 1
    assert spec_value({"examples": [1469326565348]}, "Float", world, "k", "creation_date") == 1469326565348


def test_a_key_like_example_with_spaces_or_slashes_is_slugified() -> None:
    """A key goes into a URL path: ``Example Google Pub/Sub Destination`` (LaunchDarkly) must not carry a space or a slash."""
    assert key_string("Example Google Pub/Sub Destination", "AbCd") == "example-google-pub-sub-destination-abcd"
    assert key_string("My relay proxy config", "AbCd") == "my-relay-proxy-config-abcd"
    assert key_string("Hello-World", "AbCd") == "Hello-World-abcd"  # already key-like: kept as written
