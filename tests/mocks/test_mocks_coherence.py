"""The world's self-test: endpoint pairs chained the way programs chain them, passed or failed with a reason.

The domain is imported from ``tests/data/worlds/fleet.yaml``; a fixture that
breaks a pair on purpose must make exactly that pair fail, and ``domains
check`` must report it as a problem naming the declaration that fixes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.mocks.coherence import Pair, key_field, probe_domain
from gqlbench.schemas.domain_import import import_openapi_domain
from gqlbench.scoring.checks import check_world_coherence

FLEET = Path(__file__).parents[1] / "data" / "worlds" / "fleet.yaml"


@pytest.fixture()
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import_openapi_domain(FLEET, "fleet", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    yield tmp_path


def _world(catalog: Path, endpoints: dict[str, object]) -> None:
    (catalog / "worlds").mkdir(exist_ok=True)
    (catalog / "worlds" / "fleet.json").write_text(json.dumps({"endpoints": endpoints}))


def _by_label(pairs: list[Pair]) -> dict[str, Pair]:
    return {pair.label: pair for pair in pairs}


def test_a_coherent_world_passes_every_pair(catalog: Path) -> None:
    pairs = _by_label(probe_domain("fleet"))
    assert {"list→get GET_my_ships → GET_my_ships__shipSymbol_", "limit GET_my_ships", "unknown→not_found GET_pokemon__id_"} <= set(pairs)
    assert [p.label for p in pairs.values() if not p.passed] == []
    assert check_world_coherence("fleet") == []


def test_a_lookup_of_another_kind_fails_list_then_get_with_the_declaration_that_fixes_it(catalog: Path) -> None:
    _world(catalog, {"GET_my_ships__shipSymbol_": {"kind": "boat"}})
    pair = _by_label(probe_domain("fleet"))["list→get GET_my_ships → GET_my_ships__shipSymbol_"]
    assert not pair.passed and "is not found" in pair.reason and "no boat with id" in pair.reason
    assert pair.fix is not None and '"kinds": {"boat": {"key": "symbol", "same": ["ship"]}}' in pair.fix
    problems = check_world_coherence("fleet")
    assert [p.subject for p in problems] == ["GET_my_ships → GET_my_ships__shipSymbol_"]
    assert str(problems[0]).startswith("fleet: world coherence: list→get GET_my_ships → GET_my_ships__shipSymbol_: fails: ")


def test_a_lookup_that_answers_any_key_fails_unknown_not_found(catalog: Path) -> None:
    _world(catalog, {"GET_pokemon__id_": {"action": "singleton", "id_param": None}})
    pair = _by_label(probe_domain("fleet"))["unknown→not_found GET_pokemon__id_"]
    assert not pair.passed and "which nobody gave, returned an entity" in pair.reason


def test_a_lookup_declared_open_passes_unknown_not_found(catalog: Path) -> None:
    _world(catalog, {"GET_pokemon__id_": {"action": "singleton", "id_param": None, "open": True}})
    pair = _by_label(probe_domain("fleet"))["unknown→not_found GET_pokemon__id_"]
    assert pair.passed and "declares that any id exists" in pair.reason


@pytest.mark.parametrize(
    ("param", "fields", "key"),
    [
        ("issue_number", ["id", "number", "title"], "number"),
        ("shipSymbol", ["symbol", "name"], "symbol"),
        ("movie_id", ["id", "title"], "id"),
        ("username", ["id", "login"], "login"),
        ("task_gid", ["gid", "name"], "gid"),
        ("repo", ["id", "name", "full_name"], "name"),
    ],
)
def test_the_key_is_the_field_the_path_parameter_names(param: str, fields: list[str], key: str) -> None:
    from graphql import GraphQLField, GraphQLObjectType, GraphQLString

    graphql_type = GraphQLObjectType("T", {name: GraphQLField(GraphQLString) for name in fields})
    assert key_field(param, graphql_type) == key


def test_the_sandboxed_self_test_answers_the_same_pairs_as_data(catalog: Path) -> None:
    """``domains check`` runs the probes in a sandbox worker; what comes back is read as data, checked field by field."""
    from gqlbench.errors import GqlbenchError
    from gqlbench.mocks.coherence import _pairs_from_json, probe_in_sandbox

    assert probe_in_sandbox("fleet") == probe_domain("fleet") != []
    for sent in ('{"probe": "limit"}', '[{"probe": "limit", "first": "f", "then": "", "passed": "yes", "reason": "r"}]', "not json"):
        with pytest.raises(GqlbenchError, match="invalid self-test result"):
            _pairs_from_json(sent)


def test_a_list_the_world_reads_as_a_lookup_fails_limit_with_the_declaration_of_a_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not ``paging``: the world does not list at all, so the fix is the endpoint's action (Asana's subtasks read as the task)."""
    import_openapi_domain(FLEET.parent / "teams.yaml", "teams", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    (tmp_path / "worlds").mkdir(exist_ok=True)
    misread = {"GET_tasks__task_gid__subtasks": {"action": "lookup", "kind": "task", "id_param": "task_gid"}}
    (tmp_path / "worlds" / "teams.json").write_text(json.dumps({"endpoints": misread}))
    pair = _by_label(probe_domain("teams"))["limit GET_tasks__task_gid__subtasks"]
    assert not pair.passed and "reads GET_tasks__task_gid__subtasks as a lookup of a task" in pair.reason
    assert pair.fix is not None and "paging" not in pair.fix
    assert '"GET_tasks__task_gid__subtasks": {"action": "children", "kind": "subtask", "id_param": "task_gid", "parent": "task"' in pair.fix


def test_pairing_matches_each_nested_object_against_the_lookups_once(catalog: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairing was quadratic in endpoints: each lookup matched every nested object of every answer against every lookup again.

    Counted, not timed: the shape comparisons (:func:`alike`) made are at most
    one per (nested object type or listing endpoint, lookup).
    """
    from gqlbench.mocks import coherence

    calls = []
    original = coherence.alike
    monkeypatch.setattr(coherence, "alike", lambda part, whole: calls.append(1) or original(part, whole))
    prober = coherence._prober("fleet", 0)
    assert prober is not None
    pairs = list(prober.run())
    gets = [e for e in prober.endpoints.values() if e.method == "GET" and e.payload is not None]
    nested = {t.name for e in gets for _, t in coherence._nested_objects(e.payload)}  # type: ignore[arg-type]
    listings = sum(e.lists for e in prober.endpoints.values())
    lookups = sum(prober._is_lookup(e) for e in prober.endpoints.values())
    assert pairs and 0 < len(calls) <= (len(nested) + listings) * lookups, (len(calls), len(nested), listings, lookups)
