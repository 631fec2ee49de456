"""Responses as Python objects: attribute and index access, checked against the schema.

A program reads ``response.results[0].id`` or ``response["results"][0]["id"]``.
Objects are :class:`Response` (fields of a GraphQL object type), lists are
:class:`ResponseList` (a ``list`` whose out-of-range index names the path),
scalars are plain Python values. Reading a field the type does not declare
raises :class:`~gqlbench.mocks.errors.UnknownField` with the type, the field
and the closest valid fields, which is what a real client of the API would
need to fix the program. ``JSON``-typed values are plain data.

Nothing public is defined on these classes besides the fields themselves, so a
schema field can never be shadowed by a method. Nothing private can be read
either: every attribute starting with ``_`` (``r._data``, ``r.__class__``,
and the same through a format field such as ``"{0.__class__}"``) is refused,
so a response never leads a program to the classes, modules or world behind it.
The classes reach their own state through ``object.__getattribute__``.
"""

from __future__ import annotations

import json
from typing import Any

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLType

from gqlbench.errors import closest
from gqlbench.mocks.errors import MockError, UnknownField

__all__ = ["Response", "ResponseList", "wrap", "unwrap"]


def wrap(value: Any, graphql_type: GraphQLType | None, path: str) -> Any:
    """``value`` (GraphQL result data) as a Response tree of ``graphql_type``."""
    if isinstance(graphql_type, GraphQLNonNull):
        graphql_type = graphql_type.of_type
    if value is None or graphql_type is None:
        return value
    if isinstance(graphql_type, GraphQLList) and isinstance(value, list):
        return ResponseList([wrap(v, graphql_type.of_type, f"{path}[{i}]") for i, v in enumerate(value)], path)
    if isinstance(graphql_type, GraphQLObjectType) and isinstance(value, dict):
        return Response(value, graphql_type, path)
    return value


_get = object.__getattribute__


def _refuse_private(owner: str, name: str) -> None:
    if name.startswith("_"):
        raise AttributeError(f"{owner} has no attribute {name!r}: responses have only their data fields")


def unwrap(value: Any) -> Any:
    """Plain JSON data again (for arguments, traces and observations)."""
    if isinstance(value, Response):
        return {k: unwrap(v) for k, v in _get(value, "_data").items()}
    if isinstance(value, (list, tuple)):
        return [unwrap(v) for v in value]
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    return value


class Response:
    """One object of a response; its fields are its attributes (and keys)."""

    __slots__ = ("_data", "_type", "_path")

    def __init__(self, data: dict[str, Any], graphql_type: GraphQLObjectType, path: str) -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_type", graphql_type)
        object.__setattr__(self, "_path", path)

    def __getattribute__(self, name: str) -> Any:
        _refuse_private(_get(self, "_path"), name)
        return _field(self, name)  # nothing public but the fields

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return _field(self, key)
        path, graphql_type = _get(self, "_path"), _get(self, "_type")
        raise TypeError(
            f"{path} is a {graphql_type.name} object, not a list; read one of its fields ({', '.join(list(graphql_type.fields)[:8])})"
        )

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and _get(self, "_data").get(name) is not None

    def __iter__(self) -> Any:
        raise TypeError(f"{_get(self, '_path')} is a {_get(self, '_type').name} object, not a list; iterate over one of its list fields")

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError(f"responses are read-only ({_get(self, '_path')})")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Response):
            return unwrap(self) == unwrap(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        text = json.dumps(unwrap(self), ensure_ascii=False, default=str)
        return f"{_get(self, '_type').name}({text[:300]}{'...' if len(text) > 300 else ''})"

    __str__ = __repr__


def _field(response: Response, name: str) -> Any:
    """One field of ``response``: its value wrapped, or an error naming the type and the closest fields."""
    path, graphql_type, data = _get(response, "_path"), _get(response, "_type"), _get(response, "_data")
    fields = graphql_type.fields
    if name not in fields:
        near = closest(name, list(fields))
        hint = f"did you mean {', '.join(near)}?" if near else f"its fields are {', '.join(fields)}"
        raise UnknownField(f"{path}: type {graphql_type.name} has no field {name!r}; {hint}")
    if name not in data:
        raise MockError(f"{path}.{name} lies deeper than the mock's selection depth; read a shallower field")
    return wrap(data[name], fields[name].type, f"{path}.{name}")


class ResponseList(list[Any]):
    """A list from a response; an index out of range says which list and how long it is."""

    __slots__ = ("_path",)

    def __init__(self, items: list[Any], path: str) -> None:
        super().__init__(items)
        self._path = path

    def __getitem__(self, index: Any) -> Any:
        path = _get(self, "_path")
        if isinstance(index, slice):
            return ResponseList(list.__getitem__(self, index), path)
        if isinstance(index, str):
            raise TypeError(f"{path} is a list of {len(self)} items, not an object; index it with a number (e.g. {path}[0].{index})")
        try:
            return list.__getitem__(self, index)
        except IndexError:
            raise IndexError(f"{path} has {len(self)} items; index {index} is out of range") from None

    def __getattribute__(self, name: str) -> Any:
        _refuse_private(_get(self, "_path"), name)
        return _get(self, name)  # the list methods

    def __getattr__(self, name: str) -> Any:
        path = _get(self, "_path")
        _refuse_private(path, name)
        raise UnknownField(f"{path} is a list of {len(self)} items, not an object; index it first (e.g. {path}[0].{name})")
