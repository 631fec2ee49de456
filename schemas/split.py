"""Splitting a sample's StepZen SDL into one document per endpoint.

A sample's SDL concatenates, per endpoint, its response types and a
``type Query`` block with that endpoint's field. An endpoint's share is its
``Query`` field plus every definition reachable from the field's return type
and arguments. Reachability, not name prefixes, decides: ``GET_me_Root`` and
``GET_me_player_Root`` share the prefix ``GET_me_`` but belong to different
endpoints.
"""

from __future__ import annotations

from graphql.language import (
    DocumentNode,
    NamedTypeNode,
    Node,
    ObjectTypeDefinitionNode,
    TypeDefinitionNode,
    Visitor,
    visit,
)

from gqlbench.schemas.merge import parse_sdl

__all__ = ["endpoint_documents", "referenced_types", "reachable_types", "query_fields"]


class _NamedTypes(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def enter_named_type(self, node: NamedTypeNode, *_: object) -> None:
        self.names.append(node.name.value)


def referenced_types(node: Node) -> list[str]:
    """Names of the types a definition or field mentions, in source order."""
    collector = _NamedTypes()
    visit(node, collector)
    return collector.names


def reachable_types(start: Node, definitions: dict[str, TypeDefinitionNode]) -> list[str]:
    """Names of the defined types reachable from ``start``, in discovery order."""
    found: list[str] = []
    todo = referenced_types(start)
    while todo:
        name = todo.pop(0)
        if name in definitions and name not in found:
            found.append(name)
            todo += referenced_types(definitions[name])
    return found


def query_fields(document: DocumentNode) -> list[str]:
    """The endpoint names a document declares in its ``type Query`` blocks."""
    return [
        f.name.value
        for d in document.definitions
        if isinstance(d, ObjectTypeDefinitionNode) and d.name.value == "Query"
        for f in d.fields or ()
    ]


def endpoint_documents(sdl: str, where: str = "SDL") -> dict[str, DocumentNode]:
    """Endpoint name -> a document of its reachable types (source order) and its ``Query`` block.

    The nodes are the parsed ones, so printing them keeps StepZen's text.
    """
    document = parse_sdl(sdl, where)
    definitions: dict[str, TypeDefinitionNode] = {}
    queries: list[ObjectTypeDefinitionNode] = []
    for d in document.definitions:
        if isinstance(d, ObjectTypeDefinitionNode) and d.name.value == "Query":
            queries.append(d)
        elif isinstance(d, TypeDefinitionNode):
            definitions.setdefault(d.name.value, d)
    order = {name: i for i, name in enumerate(definitions)}
    result: dict[str, DocumentNode] = {}
    for query in queries:
        for field in query.fields or ():
            types = sorted(reachable_types(field, definitions), key=order.__getitem__)
            block = query if len(query.fields or ()) == 1 else ObjectTypeDefinitionNode(name=query.name, fields=(field,))
            result[field.name.value] = DocumentNode(definitions=(*(definitions[t] for t in types), block))
    return result
