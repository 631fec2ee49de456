"""Which fields a response already holds, read from the domain's response SDL.

A request that reads a field ("When did the album 'X' come out?") is answered
by the response that found the thing when that response's object has the
field; a lookup call for it would be redundant (issue #32).
"""

from __future__ import annotations

import re
from functools import cache

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLType

from gqlbench.mocks.engine.generic import domain_schema

__all__ = ["has_field", "source_of"]

_FILTER = re.compile(r"^\[\w+ for \w+ in (?P<list>.+?) if .+\](?P<rest>(?:\[-?\d+\]|\.\w+)*)$")
_STEP = re.compile(r"\.(\w+)|\[(-?\d+)\]")
Path = tuple[str | int, ...]


def source_of(expression: str) -> tuple[str, Path] | None:
    """``response_obj1.albums.items[0].id`` -> ``("response_obj1", ("albums", "items", 0))``: the variable and the
    path of the object an id expression reads (a filtered list counts as the list); None when it reads no response."""
    match = _FILTER.match(expression)
    if match:
        expression = f"{match['list']}[0]{match['rest']}"
    head = re.match(r"^(response_obj\d*)", expression)
    if head is None or not expression.endswith(".id"):
        return None
    rest = expression[len(head[1]) : -len(".id")]
    steps: list[str | int] = [name if name else int(index) for name, index in _STEP.findall(rest)]
    if "".join(f".{s}" if isinstance(s, str) else f"[{s}]" for s in steps) != rest:
        return None
    return head[1], tuple(steps)


def _unwrap(kind: GraphQLType) -> GraphQLType:
    while isinstance(kind, GraphQLNonNull):
        kind = kind.of_type
    return kind


@cache
def has_field(domain: str, function: str, path: Path, field: str) -> bool:
    """Whether the object at ``path`` of ``function``'s response has ``field`` (``tracks.items``: a path of fields)."""
    schema = domain_schema(domain)
    root = schema.query_type.fields.get(function) if schema is not None and schema.query_type else None
    if root is None:
        return False
    kind = _unwrap(root.type)
    for step in (*path, *field.split(".")):
        if isinstance(step, int):
            if not isinstance(kind, GraphQLList):
                return False
            kind = _unwrap(kind.of_type)
            continue
        if isinstance(kind, GraphQLList):
            kind = _unwrap(kind.of_type)  # a list read without an index: its elements' fields
        if not isinstance(kind, GraphQLObjectType) or step not in kind.fields:
            return False
        kind = _unwrap(kind.fields[step].type)
    return True
