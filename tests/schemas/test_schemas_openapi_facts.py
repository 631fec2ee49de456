"""What the import keeps of an OpenAPI file per response field (schemas/<domain>/openapi_facts.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gqlbench.errors import GqlbenchError
from gqlbench.schemas.domain_import import import_openapi_domain
from gqlbench.schemas.openapi_facts import FACTS_FILE, read_facts

WIDGET = {
    "type": "object",
    "properties": {
        "widget_id": {"type": "integer"},
        "state": {"type": "string", "enum": ["open", "closed"], "default": "open"},
        "created_at": {"type": "string", "format": "date-time"},
        "login": {"type": "string", "example": "octocat"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}},
        "maker": {"$ref": "#/components/schemas/Maker"},
    },
}


def openapi_doc(paths: dict, schemas: dict) -> dict:
    """A small OpenAPI 3.0 document with these paths and component schemas."""
    return {
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


DOC = openapi_doc(
    {
        "/things": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Widget"}},
            "example": [{"widget_id": 1, "login": "hubot", "maker": {"email": "a@makers.example"}}],
        }}}}}},
        "/widgets/{widget_id}": {"get": {
            "parameters": [{"name": "widget_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Widget"}}}}},
        }},
    },
    {
        "Widget": WIDGET,
        "Maker": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}, "name": {"type": "string"}}},
    },
)  # fmt: skip


def _write(tmp_path: Path, doc: dict) -> Path:
    file = tmp_path / "api.json"
    file.write_text(json.dumps(doc))
    return file


def test_the_import_keeps_enums_formats_examples_defaults_and_components_per_sdl_type(tmp_path: Path) -> None:
    import_openapi_domain(_write(tmp_path, DOC), "shop", tmp_path / "out")
    types = read_facts(tmp_path / "out" / "schemas" / "shop")
    lookup = types["GET_widgets__widget_id__Root"]
    assert lookup["component"] == "Widget"
    assert lookup["fields"]["state"] == {"enum": ["open", "closed"], "default": "open"}
    assert lookup["fields"]["created_at"] == {"format": "date-time"}
    assert lookup["fields"]["login"] == {"examples": ["octocat"]}
    assert lookup["fields"]["tags"] == {"enum": ["red", "blue"]}  # a list of scalars: the field's own facts
    assert types["GET_widgets__widget_id__Maker"] == {"component": "Maker", "fields": {"email": {"format": "email"}}}
    listed = types["GET_things_Root"]  # a top-level array: its element type, with the example response's values
    assert listed["component"] == "Widget" and listed["fields"]["login"] == {"examples": ["octocat", "hubot"]}
    assert types["GET_things_Maker"]["fields"]["email"] == {"examples": ["a@makers.example"], "format": "email"}


def test_a_second_import_adds_its_types_and_keeps_the_others(tmp_path: Path) -> None:
    file = _write(tmp_path, DOC)
    import_openapi_domain(file, "shop", tmp_path / "out", endpoints="GET /things")
    import_openapi_domain(file, "shop", tmp_path / "out", endpoints="GET /widgets/{widget_id}")
    types = read_facts(tmp_path / "out" / "schemas" / "shop")
    assert "GET_things_Root" in types and "GET_widgets__widget_id__Root" in types


def test_a_catalog_without_the_side_car_has_no_facts_and_a_newer_version_is_refused(tmp_path: Path) -> None:
    assert read_facts(tmp_path) == {} and read_facts(None) == {}
    (tmp_path / FACTS_FILE).write_text(json.dumps({"version": 99, "types": {}}))
    with pytest.raises(GqlbenchError, match="version 99 is newer"):
        read_facts(tmp_path)


def test_the_sdl_is_the_same_with_the_facts_recorded(tmp_path: Path) -> None:
    """The facts live beside the SDL: prompts and the merged schema do not change."""
    import_openapi_domain(_write(tmp_path, DOC), "shop", tmp_path / "out")
    sdl = (tmp_path / "out" / "schemas" / "shop" / "GET_widgets__widget_id_.graphql").read_text()
    assert "@" not in sdl.replace("@rest", "") and "octocat" not in sdl
