"""Response SDL in StepZen's style, inferred from example JSON responses.

GraphQLRestBench's schemas were made by StepZen from live responses (its
``import curl``). This module does the same offline so a new domain can get
schemas from a few saved responses, and it holds the one SDL writer that
``gqlbench.schemas.openapi`` also uses, so both commands write the same style:

* the response type is ``<function>_Root``; a nested object is
  ``<function>_<Field>`` (field name in PascalCase) and a list element object
  ``<function>_<Field>Entry``; a second type of the same name gets a number
  (``ExternalUrls1``, ``Artists1Entry``), counted depth-first over fields
  sorted by name, as StepZen does;
* scalars are ``Int``, ``Float``, ``String``, ``Boolean`` and ``Date``
  (``YYYY-MM-DD`` strings); a field that was always ``null`` is ``JSON`` with
  StepZen's comment; anything without a usable shape is ``JSON``;
* the ``Query`` field of the endpoint carries its arguments and a ``@rest``
  directive with the method (omitted for GET) and the endpoint URL, path
  parameters written ``$name;``.

Inference merges what it sees: the items of a list and the responses of
several files describe one element type (field union); conflicting scalars
widen (``Int`` + ``Float`` -> ``Float``, other mixes -> ``String``), and an
object meeting a scalar or a list meeting a non-list becomes ``JSON``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Scalar",
    "ListOf",
    "Obj",
    "Shape",
    "NULL_ONLY",
    "UNTYPED",
    "RestField",
    "shape_of",
    "merge_shapes",
    "infer_shape",
    "render_endpoint_sdl",
    "render_endpoint_types",
    "is_graphql_name",
    "NOT_A_GRAPHQL_NAME",
    "path_arguments",
]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_GRAPHQL_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_PATH_PARAM = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class Scalar:
    """A leaf: ``Int``, ``Float``, ``String``, ``Boolean``, ``Date`` or ``JSON``."""

    name: str
    null_only: bool = False  # JSON because every value seen was null (StepZen comments these)


@dataclass(frozen=True)
class ListOf:
    item: Shape


@dataclass(frozen=True)
class Obj:
    fields: dict[str, Shape] = field(default_factory=dict)


Shape = Scalar | ListOf | Obj

NULL_ONLY = Scalar("JSON", null_only=True)
UNTYPED = Scalar("JSON")


NOT_A_GRAPHQL_NAME = "is not a GraphQL name, or begins with '__', which GraphQL reserves"
"""Why a name :func:`is_graphql_name` refuses was left out, for warnings."""


def is_graphql_name(name: str) -> bool:
    """Whether ``name`` can name a GraphQL field, argument or type.

    Names beginning with ``__`` match the grammar but are reserved for
    introspection (``__typename``): a schema that declares one does not build.
    """
    return bool(_GRAPHQL_NAME.match(name)) and not name.startswith("__")


def shape_of(value: Any) -> Shape:
    """The shape of one JSON value (lists merge their items)."""
    if value is None:
        return NULL_ONLY
    if isinstance(value, bool):
        return Scalar("Boolean")
    if isinstance(value, int):
        return Scalar("Int") if -(2**31) <= value < 2**31 else Scalar("Float")
    if isinstance(value, float):
        return Scalar("Float")
    if isinstance(value, str):
        return Scalar("Date") if _DATE.match(value) else Scalar("String")
    if isinstance(value, list):
        item: Shape = NULL_ONLY  # an empty list stays [JSON]
        for element in value:
            item = merge_shapes(item, shape_of(element))
        return ListOf(item)
    if isinstance(value, dict):
        return Obj({str(k): shape_of(v) for k, v in value.items()})
    return UNTYPED


def _widen(a: Scalar, b: Scalar) -> Scalar:
    if a == b:
        return a
    if a.null_only:
        return b
    if b.null_only:
        return a
    if "JSON" in (a.name, b.name):
        return UNTYPED
    if {a.name, b.name} == {"Int", "Float"}:
        return Scalar("Float")
    return Scalar("String")


def merge_shapes(a: Shape, b: Shape) -> Shape:
    """One shape describing values of both shapes (field union, widened scalars)."""
    if a == NULL_ONLY:
        return b
    if b == NULL_ONLY:
        return a
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return _widen(a, b)
    if isinstance(a, ListOf) and isinstance(b, ListOf):
        return ListOf(merge_shapes(a.item, b.item))
    if isinstance(a, Obj) and isinstance(b, Obj):
        merged = dict(a.fields)
        for name, shape in b.fields.items():
            merged[name] = merge_shapes(merged[name], shape) if name in merged else shape
        return Obj(merged)
    return UNTYPED


def infer_shape(responses: list[Any]) -> Shape:
    """The merged shape of several example responses of one endpoint."""
    shape: Shape = NULL_ONLY
    for response in responses:
        shape = merge_shapes(shape, shape_of(response))
    return shape


@dataclass(frozen=True)
class RestField:
    """The ``Query`` field of one endpoint: name, arguments and ``@rest`` target."""

    function: str
    method: str  # upper case
    url: str  # absolute URL with ``$param;`` placeholders
    arguments: list[tuple[str, str]] = field(default_factory=list)  # (name, GraphQL type)
    headers: list[tuple[str, str]] = field(default_factory=list)  # (name, value)


def path_arguments(path: str) -> list[str]:
    """``"/tv/{tv_id}/season/{n}"`` -> ``["tv_id", "n"]``."""
    return _PATH_PARAM.findall(path)


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part) or "Field"


class _TypeWriter:
    """Names and renders the object types of one endpoint, StepZen style."""

    def __init__(self, function: str) -> None:
        self.function = function
        self.types: dict[str, list[str]] = {}
        self.paths: dict[str, str] = {}  # response path of each object written -> its type name
        self.skipped: list[str] = []

    def _fresh(self, base: str, suffix: str) -> str:
        number = 0
        while True:
            name = f"{self.function}_{base}{number or ''}{suffix}"
            if name not in self.types:
                return name
            number += 1

    def type_ref(self, shape: Shape, field_name: str, path: str) -> str:
        """The GraphQL type of a field of this shape, declaring object types as needed."""
        if isinstance(shape, Scalar):
            return shape.name
        if isinstance(shape, ListOf):
            item, depth = shape.item, 1
            while isinstance(item, ListOf):
                item, depth = item.item, depth + 1
            if isinstance(item, Obj) and item.fields:
                inner = self.object_type(item, self._fresh(_pascal(field_name), "Entry"), f"{path}[]")
            else:
                inner = "JSON" if isinstance(item, Obj) else item.name
            return "[" * depth + inner + "]" * depth
        if not shape.fields:
            return "JSON"
        return self.object_type(shape, self._fresh(_pascal(field_name), ""), path)

    def object_type(self, shape: Obj, name: str, path: str) -> str:
        """Declare ``name`` for this object; ``JSON`` if none of its fields can be written."""
        self.types[name] = []  # reserve the name before the children take theirs
        lines = []
        for field_name in sorted(shape.fields):
            where = f"{path}.{field_name}" if path else field_name
            if not is_graphql_name(field_name):
                self.skipped.append(where)
                continue
            child = shape.fields[field_name]
            type_text = self.type_ref(child, field_name, where)
            if child == NULL_ONLY:
                lines.append('  """')
                lines.append(f"  Field \"{field_name}\" is defined as JSON since its value was always 'null'")
                lines.append('  """')
            lines.append(f"  {field_name}: {type_text}")
        if not lines:
            del self.types[name]
            return "JSON"
        self.types[name] = lines
        self.paths[path] = name
        return name


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _query_field(rest: RestField, result_type: str) -> list[str]:
    args = ", ".join(f"{name}: {kind}" for name, kind in rest.arguments)
    head = f"  {rest.function}({args}): {result_type}" if args else f"  {rest.function}: {result_type}"
    if len(head) > 80 and rest.arguments:
        head = "\n".join([f"  {rest.function}(", *(f"    {n}: {k}" for n, k in rest.arguments), f"  ): {result_type}"])
    lines = [head, "    @rest("]
    if rest.method != "GET":
        lines.append(f"      method: {rest.method}")
    lines.append(f"      endpoint: {_quoted(rest.url)}")
    if rest.headers:
        lines.append("      headers: [")
        lines += [f"        {{ name: {_quoted(name)}, value: {_quoted(value)} }}" for name, value in rest.headers]
        lines.append("      ]")
    lines.append("    )")
    return lines


def render_endpoint_sdl(rest: RestField, shape: Shape) -> tuple[str, list[str]]:
    """SDL of one endpoint (its types, then its ``type Query`` block).

    Returns the text and the response fields left out because their names are
    not GraphQL names (e.g. ``"1080p"``), so callers can say so.
    """
    sdl, skipped, _ = render_endpoint_types(rest, shape)
    return sdl, skipped


def render_endpoint_types(rest: RestField, shape: Shape) -> tuple[str, list[str], dict[str, str]]:
    """:func:`render_endpoint_sdl`, plus the type each object's response path became (``""`` the root, ``items[]``...)."""
    writer = _TypeWriter(rest.function)
    root = f"{rest.function}_Root"
    if isinstance(shape, Obj) and shape.fields:
        result = writer.object_type(shape, root, "")
    elif isinstance(shape, ListOf) and isinstance(shape.item, Obj) and shape.item.fields:  # a top-level array
        result = f"[{writer.object_type(shape.item, root, '[]')}]"
    else:
        result = writer.type_ref(shape, "Root", "")
    blocks = [f"type {name} {{\n" + "\n".join(lines) + "\n}" for name, lines in sorted(writer.types.items())]
    blocks.append("type Query {\n" + "\n".join(_query_field(rest, result)) + "\n}")
    return "\n\n".join(blocks) + "\n", writer.skipped, writer.paths
