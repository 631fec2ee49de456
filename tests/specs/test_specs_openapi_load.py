"""Reading a document as published: referred local files, and the inputs that must end as one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.specs.openapi import load_openapi, resolve, select_operations, specs_from_openapi
from gqlbench.specs.openapi_load import MAX_ALIAS_NODES, UNREAD_KEY

DATA = Path(__file__).resolve().parents[1] / "data"
MULTIFILE = DATA / "openapi_multifile" / "reference" / "Fleet.json"
HOSTILE = DATA / "openapi_hostile"


def document(tmp_path: Path, schema: dict, name: str = "api.json") -> Path:
    """A one-operation document whose 200 response is ``schema``."""
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}}}},
    }
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def response(doc: dict) -> object:
    (op,) = select_operations(doc)
    return resolve(doc, op.spec["responses"]["200"]["content"]["application/json"]["schema"])


def test_files_are_read_relative_to_the_file_that_refers_to_them() -> None:
    doc = load_openapi(MULTIFILE)
    ship = resolve(
        doc,
        {
            "$ref": doc["paths"]["/my/ships/{shipSymbol}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"][
                "properties"
            ]["data"]["$ref"]
        },
    )
    assert ship["description"] == "A ship of an agent's fleet."
    nav = resolve(doc, ship["properties"]["nav"])  # ./ShipNav.json, relative to models/Ship.json
    destination = resolve(doc, nav["properties"]["destination"])  # ./Waypoint.yaml#/components/schemas/Waypoint
    assert set(destination["properties"]) == {"symbol", "class", "x", "y", "orbitals"}
    assert resolve(doc, destination["properties"]["class"])["enum"][0] == "PLANET"  # a '#/...' ref inside Waypoint.yaml
    owner = resolve(doc, ship["properties"]["owner"])  # Agent.json refers back to Ship.json: one copy of each file
    assert resolve(doc, owner["properties"]["flagship"]) is ship


def test_an_unpublished_file_nothing_follows_is_left_alone() -> None:
    doc = load_openapi(MULTIFILE)  # x-policies refers to ../policies.yaml, which does not exist
    assert len(doc[UNREAD_KEY]) == 1
    with pytest.raises(GqlbenchError, match=r"Fleet.json: \$ref '../policies.yaml': .*policies.yaml: no such file"):
        resolve(doc, doc["x-policies"])


def test_a_url_reference_is_refused_without_touching_the_network(tmp_path: Path) -> None:
    doc = load_openapi(document(tmp_path, {"$ref": "https://example.org/schemas/Ship.json"}))
    assert specs_from_openapi(doc)  # the signature does not need the response schema
    with pytest.raises(GqlbenchError) as error:
        response(doc)
    message = str(error.value)
    assert "api.json: $ref 'https://example.org/schemas/Ship.json': only local files are read, never the network" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("../../../../../../../../../no/such/Ship.json", r"api.json: \$ref '(\.\./)+no/such/Ship.json': .*no/such/Ship.json: no such file"),
        ("/etc/hostname", r"api.json: \$ref '/etc/hostname': use a path relative to the referring file"),
        ("file:///etc/hostname", r"only local files are read, never the network"),
        ("models.json#Ship", r"only JSON-pointer fragments"),
    ],
)
def test_references_that_cannot_be_read_end_as_one_line(tmp_path: Path, ref: str, message: str) -> None:
    (tmp_path / "models.json").write_text("{}", encoding="utf-8")
    doc = load_openapi(document(tmp_path, {"$ref": ref}))
    with pytest.raises(GqlbenchError, match=message) as error:
        response(doc)
    assert "\n" not in str(error.value)


def test_a_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "latin1.yaml").write_bytes("Ship: {description: Schiff f\u00fcr alle}\n".encode("latin-1"))
    doc = load_openapi(document(tmp_path, {"$ref": "latin1.yaml#/Ship"}))
    with pytest.raises(GqlbenchError, match=r"latin1.yaml: not UTF-8 text \(byte 28\); save it as UTF-8"):
        response(doc)


def test_a_device_is_not_read(tmp_path: Path) -> None:
    doc = load_openapi(document(tmp_path, {"$ref": os.path.relpath("/dev/zero", tmp_path)}))
    with pytest.raises(GqlbenchError, match=r"/dev/zero: not a regular file"):
        response(doc)


def test_a_fragment_that_points_to_nothing_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "models.yaml").write_text("components: {schemas: {Ship: {type: object}}}\n", encoding="utf-8")
    doc = load_openapi(document(tmp_path, {"$ref": "models.yaml#/components/schemas/Boat"}))
    with pytest.raises(GqlbenchError, match=r"'#/components/schemas/Boat' points to nothing in .*models.yaml"):
        response(doc)


def test_a_reference_cycle_between_files_loads_once(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"type": "object", "properties": {"b": {"$ref": "b.json"}}}))
    (tmp_path / "b.json").write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": "a.json"}}}))
    doc = load_openapi(document(tmp_path, {"$ref": "a.json"}))
    a = response(doc)
    assert resolve(doc, resolve(doc, a["properties"]["b"])["properties"]["a"]) is a
    (tmp_path / "c.json").write_text(json.dumps({"$ref": "c.json"}))
    looping = load_openapi(document(tmp_path, {"$ref": "c.json"}))
    with pytest.raises(GqlbenchError, match="refers to itself"):  # a pure chain of references that loops
        response(looping)


ALIAS_BOMB = (HOSTILE / "alias_bomb.yaml").read_text(encoding="utf-8")


def test_a_yaml_alias_bomb_is_refused_while_loading(tmp_path: Path) -> None:
    path = HOSTILE / "alias_bomb.yaml"
    assert path.stat().st_size < 1000
    with pytest.raises(GqlbenchError) as error:
        load_openapi(path)
    message = str(error.value)
    assert message.startswith(f"{path}: YAML aliases (*name) would expand this file by ")
    assert f"past the bound of {MAX_ALIAS_NODES:,}" in message and "\n" not in message


def test_a_referred_yaml_file_is_bounded_too(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text("Ship:\n" + ALIAS_BOMB.split("example:\n", 1)[1], encoding="utf-8")
    doc = load_openapi(document(tmp_path, {"$ref": "bomb.yaml#/Ship"}))
    with pytest.raises(GqlbenchError, match=r"bomb.yaml: YAML aliases \(\*name\) would expand this file"):
        response(doc)


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(ALIAS_BOMB.split("                c:")[0], encoding="utf-8")  # 9 x 9 nodes
    assert load_openapi(path)["paths"]["/x"]["get"]["responses"]["200"]["content"]["application/json"]["example"]["b"][8][8] == "lol"
