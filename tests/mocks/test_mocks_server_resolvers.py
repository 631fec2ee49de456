"""The executable schema: world answers adapted to the types, the rest filled from the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphql import execute, parse

from gqlbench.mocks.endpoints import make_runtime
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import NotFound
from gqlbench.mocks.server.resolvers import make_mock_schema

SHELF_SDL = {
    "GET_shelves__shelf_id_": """
type GET_shelves__shelf_id__BooksEntry {
  book_id: String
  title: String
  year: Int
}
type GET_shelves__shelf_id__Root {
  shelf_id: String
  label: String
  books: [GET_shelves__shelf_id__BooksEntry]
  owner: GET_shelves__shelf_id__Owner
}
type GET_shelves__shelf_id__Owner {
  id: String
  name: String
}
type Query {
  GET_shelves__shelf_id_(shelf_id: String!, shelf_access_token: String!): GET_shelves__shelf_id__Root
}
""",
}


def _spec(name: str, params: dict[str, str], required: list[str]) -> dict:
    return {
        "name": name,
        "description": name,
        "parameters": {"type": "dict", "properties": {p: {"type": t, "description": p} for p, t in params.items()}, "required": required},
    }


@pytest.fixture
def shelf_domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A schema-only domain in a user catalog folder: no world model, no fixture."""
    domain = "shelfmock"
    (tmp_path / "specs").mkdir()
    (tmp_path / "schemas" / domain).mkdir(parents=True)
    specs = [_spec("GET_shelves__shelf_id_", {"shelf_id": "string"}, ["shelf_id"]), _spec("POST_shelves", {"label": "string"}, ["label"])]
    (tmp_path / "specs" / f"{domain}.json").write_text(json.dumps({"domain": domain, "functions": specs}))
    for name, sdl in SHELF_SDL.items():
        (tmp_path / "schemas" / domain / f"{name}.graphql").write_text(sdl)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    return domain


def test_a_domain_without_python_runs_on_the_generic_world(shelf_domain: str) -> None:
    runtime = make_runtime(shelf_domain, 0)
    with pytest.raises(NotFound, match="no shelf with id 's-42'"):
        runtime.namespace["GET_shelves__shelf_id_"](shelf_id="s-42")  # nothing was made yet
    created = runtime.namespace["POST_shelves"](label="new")
    assert created.ok is True  # POST has no response schema: an acknowledgement
    shelf_id = next(iter(runtime.world.table("shelf")))
    shelf = runtime.namespace["GET_shelves__shelf_id_"](shelf_id=shelf_id)
    assert shelf.shelf_id == shelf_id and shelf.label == "new"  # the POST's values, seen by the lookup
    assert len(shelf.books) == 2 and isinstance(shelf.books[0].year, int)
    assert isinstance(shelf.owner.name, str)


def test_filled_values_are_deterministic_and_seeded(shelf_domain: str, tmp_path: Path) -> None:
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / f"{shelf_domain}.json").write_text(
        json.dumps({"entities": {"shelf": [{"shelf_id": "s-1"}, {"shelf_id": "s-2"}]}})
    )

    def response(seed: int, shelf_id: str = "s-1") -> dict:
        return unwrap(make_runtime(shelf_domain, seed).namespace["GET_shelves__shelf_id_"](shelf_id=shelf_id))

    assert response(0) == response(0)
    assert response(0) != response(1)
    assert response(0, "s-2")["label"] != response(0)["label"]  # another entity, other values


def _query(domain: str, world: World, text: str, arguments: dict) -> dict:
    result = execute(make_mock_schema(domain), parse(text), context_value={"world": world, "arguments": arguments})
    assert not result.errors, result.errors
    return result.data


def test_world_values_are_adapted_to_the_declared_type() -> None:
    # StepZen typed GET_me_player_currently_playing.item.album.release_date as Int (it saw "2020").
    world = World.create("spotify")
    data = _query(
        "spotify", world, '{ GET_me_player_currently_playing(spotify_access_token: "x") { item { album { release_date } } } }', {}
    )
    assert data["GET_me_player_currently_playing"]["item"]["album"]["release_date"] == 2022


def test_fields_the_world_lacks_are_filled_per_entity() -> None:
    # available_markets is not modelled: the same track gets the same value in two responses.
    world = World.create("spotify")
    track = world.state["player"]["item"]
    a = _query("spotify", world, '{ GET_tracks__id_(id: "x", spotify_access_token: "x") { available_markets } }', {"id": track})
    b = _query("spotify", world, '{ GET_me_player_currently_playing(spotify_access_token: "x") { item { id available_markets } } }', {})
    assert b["GET_me_player_currently_playing"]["item"]["id"] == track
    assert a["GET_tracks__id_"]["available_markets"] == b["GET_me_player_currently_playing"]["item"]["available_markets"]


def test_fields_of_unsearched_types_are_null() -> None:
    world = World.create("spotify")
    data = _query(
        "spotify",
        world,
        '{ GET_search(q: "x", type: "x", spotify_access_token: "x") { albums { total } tracks { total } } }',
        {"q": "Mojito", "type": ["album"]},
    )
    assert data["GET_search"]["tracks"] is None and data["GET_search"]["albums"]["total"] >= 1


@pytest.mark.parametrize(
    ("field", "shape"),
    [
        ("login", r"^login-[0-9a-z]{6}$"),
        ("repo_slug", r"^repo-[0-9a-z]{6}$"),
        ("symbol", r"^[0-9A-Z]{6}$"),
        ("gid", r"^\d+$"),
        ("uuid", r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"),
        ("email", r"^[0-9a-z]{6}@example\.com$"),
        ("created_at", r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$"),
    ],
)
def test_key_like_and_formatted_strings_read_as_apis_write_them(field: str, shape: str) -> None:
    """No placeholder words with spaces where an API has a login, a slug, a gid, a uuid, an email or a timestamp."""
    import re

    from graphql import GraphQLString

    from gqlbench.mocks.server.resolvers import generate_value

    value = generate_value(GraphQLString, World("fleet", 0), f"user:1.{field}", field)
    assert re.match(shape, value), value
