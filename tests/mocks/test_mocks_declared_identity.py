"""The fixture's ``kinds`` section: checked when it loads, and a declared key is the kind's key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.declared.identity import KindDeclaration, aliases, read_kinds
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain

FLEET = Path(__file__).parents[1] / "data" / "worlds" / "fleet.yaml"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ([], r"w\.json: kinds must map each kind to its declaration"),
        ({"task": "gid"}, r"w\.json: kinds\.task must be an object"),
        ({"task": {"kee": "gid"}}, r"w\.json: kinds\.task\.kee: unknown field; a kind declares key, same"),
        ({"task": {"key": 3}}, r"w\.json: kinds\.task\.key must be a field name"),
        ({"task": {"same": "todo"}}, r"w\.json: kinds\.task\.same must be a list of kind names"),
        ({"repo": {"same": ["repository"]}, "repository": {}}, r"kinds\.repo\.same: 'repository' is already the kind 'repository'"),
    ],
)
def test_a_wrong_declaration_is_one_line_naming_the_file_and_field(section: object, message: str) -> None:
    with pytest.raises(GqlbenchError, match=message):
        read_kinds({"kinds": section}, "w.json")


def test_declarations_read() -> None:
    kinds = read_kinds({"kinds": {"task": {"key": "gid"}, "repo": {"same": ["repository"]}}}, "w.json")
    assert kinds == {"task": KindDeclaration(key="gid"), "repo": KindDeclaration(same=("repository",))}
    assert aliases(kinds) == {"repository": "repo"}


@pytest.fixture()
def catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import_openapi_domain(FLEET, "fleet", tmp_path)
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    yield tmp_path


def test_a_declared_key_keys_fixture_entities_and_lookups(catalog: Path) -> None:
    (catalog / "worlds").mkdir(exist_ok=True)
    fixture = {"kinds": {"ship": {"key": "symbol"}}, "entities": {"ship": [{"symbol": "ALPHA-1", "registration": {"name": "Alpha"}}]}}
    (catalog / "worlds" / "fleet.json").write_text(json.dumps(fixture))
    api = Runtime("fleet", 0).namespace
    assert api["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-1").data.registration.name == "Alpha"
    with pytest.raises(NotFound):
        api["GET_my_ships__shipSymbol_"](shipSymbol="ALPHA-2")
    (catalog / "worlds" / "fleet.json").write_text(json.dumps({**fixture, "kinds": {"ship": {"key": 7}}}))
    with pytest.raises(GqlbenchError, match=r"fleet\.json:\d+: kinds\.ship\.key: input should be a valid string"):
        Runtime("fleet", 0)


def test_fixture_entities_may_use_the_declared_key() -> None:
    from gqlbench.mocks.engine.problems import dotted
    from gqlbench.mocks.engine.worldfile import check_world

    entities = {"workspace": [{"gid": "1", "name": "Home"}]}
    (problem,) = check_world({"entities": entities})
    assert dotted(problem.path) == "entities.workspace[0]"
    assert problem.message.startswith("no key") and '"kinds": {"workspace": {"key": "<field>"}}' in problem.message
    assert check_world({"kinds": {"workspace": {"key": "gid"}}, "entities": entities}) == []
