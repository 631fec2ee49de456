"""The fixture's ``kinds`` section: checked when it loads, and a declared key is the kind's key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.engine.declared.identity import KindDeclaration, aliases, read_kinds
from gqlbench.mocks.engine.worldfile import check_world, world_error
from gqlbench.mocks.errors import NotFound
from gqlbench.schemas.domain_import import import_openapi_domain

FLEET = Path(__file__).parents[1] / "data" / "worlds" / "fleet.yaml"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ([], r"w\.json:1: kinds: input should be a valid dictionary"),
        ({"task": "gid"}, r"w\.json:1: kinds\.task: input should be a valid dictionary"),
        ({"task": {"kee": "gid"}}, r"w\.json:1: kinds\.task: unknown key 'kee'; did you mean 'key'\?"),
        ({"task": {"key": 3}}, r"w\.json:1: kinds\.task\.key: input should be a valid string"),
        ({"task": {"key": "g id"}}, r"w\.json:1: kinds\.task\.key: must be a field name \(a string like 'gid'\), got 'g id'"),
        ({"task": {"same": "todo"}}, r"w\.json:1: kinds\.task\.same: input should be a valid list"),
        ({"task": {"same": [""]}}, r"w\.json:1: kinds\.task\.same\[0\]: string should have at least 1 character, got ''"),
        ({"repo": {"same": ["repository"]}, "repository": {}}, r"kinds\.repo\.same: 'repository' is already the kind 'repository'"),
        ({"repo": {"same": ["repo"]}}, r"kinds\.repo\.same: 'repo' is already the kind 'repo'; a kind name belongs to one kind"),
        ({"a": {"same": ["x"]}, "b": {"same": ["x"]}}, r"kinds\.b\.same: 'x' is already the kind 'a'"),
    ],
)
def test_a_wrong_declaration_is_a_line_naming_the_file_line_and_field_at_load(tmp_path: Path, section: object, message: str) -> None:
    file = tmp_path / "w.json"
    file.write_text(json.dumps({"kinds": section}))
    with pytest.raises(GqlbenchError, match=message):
        raise world_error(check_world({"kinds": section}), file)


def test_two_wrong_declarations_are_both_reported(tmp_path: Path) -> None:
    section = {"task": {"key": "g id"}, "repo": {"same": ["repo"]}}
    file = tmp_path / "w.json"
    file.write_text(json.dumps({"kinds": section}, indent=1))
    rows = world_error(check_world({"kinds": section}), file).rows
    assert [where.rsplit(":", 1)[1] for where, _ in rows] == ["4", "7"]
    assert [message.split(":")[0] for _, message in rows] == ["kinds.task.key", "kinds.repo.same"]


def test_declarations_read() -> None:
    kinds = read_kinds({"kinds": {"task": {"key": "gid"}, "repo": {"same": ["repository"]}}})
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
