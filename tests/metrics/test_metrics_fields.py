"""Response shapes from the catalog SDL: the token scan agrees with graphql-core's parser."""

from __future__ import annotations

import pytest
from graphql import GraphQLSyntaxError

from gqlbench.metrics.fields import ListShape, ObjectShape, Shape, _parsed_shapes, shapes_from_sdl
from gqlbench.schemas import endpoint_sdl, endpoints_with_sdl
from gqlbench.specs import list_domains


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
