"""Worlds that hold for real APIs: keys from the request, keys not called id, envelopes, scopes, declared state.

The domain is imported from ``tests/data/worlds/fleet.yaml``, an OpenAPI file
shaped like public ones (PokeAPI's ``{id}`` that takes a name, GitHub's
``{username}`` answered with ``login``, SpaceTraders' ``symbol`` keys and
``{"data": ...}`` envelopes, bare lists of strings).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain

FLEET = Path(__file__).parents[1] / "data" / "worlds" / "fleet.yaml"
REQUEST = "Is pikachu stronger than my ship ALPHA-1? Fly ALPHA-1 to X1-DF55-7 in system X1-DF55, and show octocat."


@pytest.fixture()
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import_openapi_domain(FLEET, "fleet", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    yield tmp_path


def _fixture(catalog: Path, **changes: object) -> None:
    file = catalog / "worlds" / "fleet.json"
    file.parent.mkdir(exist_ok=True)
    fixture = json.loads(file.read_text()) if file.is_file() else {"endpoints": {}}
    for key, value in changes.items():
        if key == "endpoints":
            for function, change in value.items():  # type: ignore[attr-defined]
                fixture["endpoints"].setdefault(function, {}).update(change)
        else:
            fixture[key] = value
    file.write_text(json.dumps(fixture))


def api(request: str = REQUEST) -> dict:
    return Runtime("fleet", 0, request=request).namespace


def test_a_key_written_in_the_request_exists_and_an_invented_one_does_not(catalog: Path) -> None:
    fleet = api()
    assert fleet["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-1").data.symbol == "ALPHA-1"
    assert fleet["GET_users__username_"](username="octocat").login == "octocat"  # GitHub's key is login
    with pytest.raises(NotFound, match="from the user's request"):
        fleet["GET_my_ships__shipSymbol_"](shipSymbol="BETA-9")
    with pytest.raises(NotFound):
        api(request="")["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-1")  # no request: the old rule


def test_a_name_where_the_id_is_a_number_names_the_entity(catalog: Path) -> None:
    fleet = api()
    pikachu = fleet["GET_pokemon__id_"](id="pikachu")
    assert pikachu.name == "pikachu" and isinstance(pikachu.id, int)
    again = fleet["GET_pokemon__id_"](id=str(pikachu.id))  # by the id it showed: the same entity
    assert unwrap(again) == unwrap(pikachu)
    assert unwrap(fleet["GET_pokemon__id_"](id="PIKACHU")) == unwrap(pikachu)


def test_one_entity_one_look_in_lists_lookups_and_envelopes(catalog: Path) -> None:
    fleet = api()
    ships = fleet["GET_my_ships"]()
    assert ships.meta.total == len(ships.data) >= 2
    for listed in ships.data:
        looked_up = fleet["GET_my_ships__shipSymbol_"](shipSymbol=listed.symbol).data
        assert unwrap(looked_up) == unwrap(listed)
        assert unwrap(fleet["GET_my_ships__shipSymbol__nav"](shipSymbol=listed.symbol).data) == unwrap(listed.nav)
    assert fleet["GET_my_ships"](limit=1, page=2).data[0].symbol == ships.data[1].symbol


def test_a_reference_in_a_response_names_an_entity_that_exists(catalog: Path) -> None:
    fleet = api(request="")
    nav = fleet["GET_my_ships"]().data[0].nav
    waypoint = fleet["GET_systems__systemSymbol__waypoints__waypointSymbol_"](
        systemSymbol=nav.systemSymbol, waypointSymbol=nav.waypointSymbol
    ).data
    assert (waypoint.symbol, waypoint.systemSymbol) == (nav.waypointSymbol, nav.systemSymbol)


def test_a_key_under_a_scope_is_a_compound_key(catalog: Path) -> None:
    fleet = api()
    lookup = fleet["GET_systems__systemSymbol__waypoints__waypointSymbol_"]
    assert lookup(systemSymbol="X1-DF55", waypointSymbol="X1-DF55-7").data.systemSymbol == "X1-DF55"
    with pytest.raises(NotFound, match="under systemSymbol 'X1-ZZ'"):
        lookup(systemSymbol="X1-ZZ", waypointSymbol="X1-DF55-7")


def test_declared_effects_are_seen_by_later_reads_and_fixture_values_win(catalog: Path) -> None:
    _fixture(
        catalog,
        entities={"ship": [{"symbol": "ALPHA-1", "registration": {"name": "Alpha", "role": "COMMAND"}}]},
        endpoints={
            "POST_my_ships__shipSymbol__navigate": {
                "effects": {"set": {"nav.waypointSymbol": "$waypointSymbol", "nav.status": "IN_TRANSIT"}}
            }
        },
    )
    fleet = api()
    before = fleet["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-1").data
    assert (before.registration.name, before.registration.role) == ("Alpha", "COMMAND")
    answer = fleet["POST_my_ships__shipSymbol__navigate"](shipSymbol="ALPHA-1", waypointSymbol="X1-DF55-7")
    assert answer.data.nav.waypointSymbol == "X1-DF55-7"
    after = fleet["GET_my_ships__shipSymbol__nav"](shipSymbol="ALPHA-1").data
    assert (after.waypointSymbol, after.status) == ("X1-DF55-7", "IN_TRANSIT")
    assert after.systemSymbol == before.nav.systemSymbol  # what was not changed stays as it was shown


def test_append_and_remove_change_a_list_from_what_it_showed(catalog: Path) -> None:
    _fixture(
        catalog,
        endpoints={
            "POST_playlists__playlist_id__tracks": {"effects": {"append": {"uris": "$uris"}}},
            "DELETE_playlists__playlist_id__tracks": {
                "action": "act",
                "kind": "playlist",
                "id_param": "playlist_id",
                "effects": {"remove": {"uris": "$uris"}},
            },
        },
    )
    fleet = api(request="Add a song to my playlist PL-1")
    shown = unwrap(fleet["GET_playlists__playlist_id_"](playlist_id="PL-1").uris)
    fleet["POST_playlists__playlist_id__tracks"](playlist_id="PL-1", uris=["spotify:track:new"])
    assert unwrap(fleet["GET_playlists__playlist_id_"](playlist_id="PL-1").uris) == [*shown, "spotify:track:new"]
    fleet["DELETE_playlists__playlist_id__tracks"](playlist_id="PL-1", uris=[shown[0]])
    assert unwrap(fleet["GET_playlists__playlist_id_"](playlist_id="PL-1").uris) == [*shown[1:], "spotify:track:new"]


@pytest.mark.parametrize(
    "effects, message",
    [
        ({"toggle": {"a": 1}}, "unknown operation"),
        ({"set": ["nav"]}, "effects.set: input should be a valid dictionary"),
        ("accepted", "effects: input should be a valid dictionary"),
    ],
)
def test_bad_effects_are_one_line_errors(catalog: Path, effects: object, message: str) -> None:
    _fixture(catalog, endpoints={"POST_my_ships__shipSymbol__navigate": {"effects": effects}})
    with pytest.raises(GqlbenchError, match=message):
        api()


def test_an_action_without_the_parameter_that_names_its_entity_is_a_one_line_error(catalog: Path) -> None:
    _fixture(catalog, endpoints={"GET_tags": {"action": "act", "kind": "tag"}})
    with pytest.raises(GqlbenchError, match="endpoints.GET_tags: action 'act' needs \"id_param\""):
        api()


def test_a_fixture_entity_without_its_key_names_the_key(catalog: Path) -> None:
    _fixture(catalog, entities={"ship": [{"symbol": "S-1"}, {"registration": {"name": "x"}}]})
    with pytest.raises(GqlbenchError, match=r"entities.ship\[1\]: no key \(ship_id, id, symbol"):
        api()


def test_bare_scalars_and_lists_of_scalars_are_served(catalog: Path) -> None:
    fleet = api()
    tags = fleet["GET_tags"]()
    assert isinstance(unwrap(tags), list) and all(isinstance(t, str) for t in unwrap(tags))
    assert isinstance(unwrap(fleet["GET_version"]()), str)


@pytest.mark.parametrize(
    ("word", "kind"),
    [
        ("books", "book"),
        ("pokemon-species", "pokemon-species"),
        ("evolution-chains", "evolution-chain"),
        ("series", "series"),
        ("categories", "category"),
        ("top_tracks", "top_track"),
        ("status", "status"),
        ("statuses", "status"),
    ],
)
def test_kind_names_are_singular_words(word: str, kind: str) -> None:
    from gqlbench.mocks.engine.kinds import singular

    assert singular(word) == kind


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("book_id", ("book", "id")),
        ("shipSymbol", ("ship", "symbol")),
        ("contractId", ("contract", "id")),
        ("waypoint_symbol", ("waypoint", "symbol")),
        ("id", None),
        ("symbol", None),
        ("track_number", None),
        ("currency_code", None),
        ("league_id_or_slug", ("league", "id")),
    ],
)
def test_a_reference_is_a_kind_and_a_key_word(name: str, found: tuple[str, str] | None) -> None:
    from gqlbench.mocks.engine.kinds import reference

    assert reference(name) == found
