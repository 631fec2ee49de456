"""Response shapes from the catalog SDL: the token scan agrees with graphql-core's parser."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from graphql import GraphQLSyntaxError

from gqlbench.metrics.fields import Catalog, ListShape, ObjectShape, Shape, _parsed_shapes, check_fields, load_catalog, shapes_from_sdl
from gqlbench.program import read_program
from gqlbench.schemas import endpoint_sdl, endpoints_with_sdl
from gqlbench.specs import list_domains, load_specs


def test_shapes_come_from_the_sdl_with_lists_and_non_null_unwrapped() -> None:
    sdl = """
    type F_Item { id: String! tags: [String] }
    type F_Root { items: [F_Item!]! total: Int }
    type Query { F(id: String!): F_Root @rest(endpoint: "https://x/$id;") }
    """
    root = shapes_from_sdl(sdl)["F"]
    assert isinstance(root, ObjectShape) and root.name == "F_Root" and root.fields["total"] is None
    items = root.fields["items"]
    assert isinstance(items, ListShape) and isinstance(items.of, ObjectShape) and items.of.name == "F_Item"
    assert items.of.fields["tags"] == ListShape(None)


def test_text_the_scan_cannot_read_goes_to_graphql_core() -> None:
    sdl = 'type R { a: [Int] }\ntype Query { F: R @rest(endpoint: "x") '  # unclosed Query block
    with pytest.raises(GraphQLSyntaxError):
        shapes_from_sdl(sdl)  # graphql-core reports the syntax error


def _canonical(shape: Shape, seen: tuple[str, ...] = ()) -> object:
    if shape is None:
        return None
    if isinstance(shape, ListShape):
        return ["list", _canonical(shape.of, seen)]
    if shape.name in seen:
        return shape.name
    return [shape.name, {k: _canonical(v, (*seen, shape.name)) for k, v in shape.fields.items()}]


@pytest.mark.parametrize("domain", list_domains())
def test_scan_and_parser_agree_on_every_catalog_endpoint(domain: str) -> None:
    for endpoint in endpoints_with_sdl(domain):
        sdl = endpoint_sdl(domain, endpoint)
        fast, parsed = shapes_from_sdl(sdl), _parsed_shapes(sdl)
        assert set(fast) == set(parsed) == {endpoint} | set(parsed)
        assert _canonical(fast[endpoint]) == _canonical(parsed[endpoint]), endpoint


def _catalog_folder(root: Path, field_name: str) -> Path:
    folder = root / "schemas" / "shapes"
    folder.mkdir(parents=True, exist_ok=True)
    sdl = f'type F_Root {{ {field_name}: Int }}\ntype Query {{ F: F_Root @rest(endpoint: "https://x/") }}\n'
    (folder / "F.graphql").write_text(sdl)
    return root


def test_response_shapes_follow_the_catalog_folder_and_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog({}, "shapes")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(_catalog_folder(tmp_path / "one", "first")))
    assert isinstance(shape := catalog.response_type("F"), ObjectShape) and list(shape.fields) == ["first"]
    monkeypatch.setenv("GQLBENCH_CATALOG", str(_catalog_folder(tmp_path / "two", "second")))
    assert isinstance(shape := catalog.response_type("F"), ObjectShape) and list(shape.fields) == ["second"]
    path = _catalog_folder(tmp_path / "two", "edited") / "schemas" / "shapes" / "F.graphql"
    os.utime(path, ns=(1, 1))  # a different version of the file, whatever the clock's resolution
    assert isinstance(shape := catalog.response_type("F"), ObjectShape) and list(shape.fields) == ["edited"]


def test_the_walk_types_comprehensions_and_notes_reads_of_responses_without_a_schema() -> None:
    catalog = load_catalog("library", load_specs("library"))
    code = (
        "r = GET_search_books(q='x')\nfirst = [d for d in r.docs][0]\nprint(first.titel)\n"
        "d = DELETE_loans__loan_id_(loan_id='l')\nprint(d.ok, d[0])\n"
    )
    found = [(p.kind, p.line, p.access) for p in check_fields(read_program(code), catalog, lambda name: name in catalog.functions)]
    assert found == [("invalid_field", 3, "first.titel"), ("no_schema", 5, "d.ok"), ("no_schema", 5, "d[0]")]


def test_a_method_of_a_response_object_is_an_invalid_field_and_a_list_method_is_not() -> None:
    """Response objects have only their fields (mocks/engine/responses.py); response lists are lists."""
    catalog = load_catalog("library", load_specs("library"))
    code = "r = GET_search_books(q='x')\nprint(r.docs[0].get('title'))\nr.docs.sort(key=len)\nprint(r.docs.index(r.docs[0]))\n"
    found = [(p.line, p.access) for p in check_fields(read_program(code), catalog, lambda name: name in catalog.functions)]
    assert found == [(2, "r.docs[0].get")]
