"""Responses as Python objects: attribute and index access, checked against the schema.

A program reads ``response.results[0].id`` or ``response["results"][0]["id"]``.
Objects are :class:`Response` (fields of a GraphQL object type), lists are
:class:`ResponseList` (a ``list`` whose out-of-range index names the path),
scalars are plain Python values. Reading a field the type does not declare
raises :class:`~gqlbench.mocks.errors.UnknownField` with the type, the field
and the closest valid fields, which is what a real client of the API would
need to fix the program. ``JSON``-typed values are plain data.

Nothing public is defined on these classes besides the fields themselves, so a
schema field can never be shadowed by a method.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLType

from gqlbench.mocks.errors import MockError, UnknownField

__all__ = ["Response", "ResponseList", "wrap", "unwrap", "closest"]


def closest(name: str, options: list[str], n: int = 3) -> list[str]:
    """The valid names nearest to ``name`` (difflib), for "did you mean" messages."""
    return difflib.get_close_matches(name, options, n=n, cutoff=0.5)


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


def unwrap(value: Any) -> Any:
    """Plain JSON data again (for arguments, traces and observations)."""
    if isinstance(value, Response):
        return {k: unwrap(v) for k, v in object.__getattribute__(value, "_data").items()}
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

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._field(name)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self._field(key)
        raise TypeError(f"{self._path} is a {self._type.name} object, not a list; read one of its fields "
                        f"({', '.join(list(self._type.fields)[:8])})")

    def _field(self, name: str) -> Any:
        fields = self._type.fields
        if name not in fields:
            near = closest(name, list(fields))
            hint = f"did you mean {', '.join(near)}?" if near else f"its fields are {', '.join(fields)}"
            raise UnknownField(f"{self._path}: type {self._type.name} has no field {name!r}; {hint}")
        if name not in self._data:
            raise MockError(f"{self._path}.{name} lies deeper than the mock's selection depth; read a shallower field")
        return wrap(self._data[name], fields[name].type, f"{self._path}.{name}")

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._data.get(name) is not None

    def __iter__(self) -> Any:
        raise TypeError(f"{self._path} is a {self._type.name} object, not a list; iterate over one of its list fields")

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError(f"responses are read-only ({self._path})")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Response):
            return unwrap(self) == unwrap(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        text = json.dumps(unwrap(self), ensure_ascii=False, default=str)
        return f"{self._type.name}({text[:300]}{'...' if len(text) > 300 else ''})"

    __str__ = __repr__


class ResponseList(list):  # type: ignore[type-arg]
    """A list from a response; an index out of range says which list and how long it is."""

    __slots__ = ("_path",)

    def __init__(self, items: list[Any], path: str) -> None:
        super().__init__(items)
        self._path = path

    def __getitem__(self, index: Any) -> Any:  # type: ignore[override]
        if isinstance(index, slice):
            return ResponseList(list.__getitem__(self, index), self._path)
        if isinstance(index, str):
            raise TypeError(f"{self._path} is a list of {len(self)} items, not an object; index it with a number "
                            f"(e.g. {self._path}[0].{index})")
        try:
            return list.__getitem__(self, index)
        except IndexError:
            raise IndexError(f"{self._path} has {len(self)} items; index {index} is out of range") from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnknownField(f"{self._path} is a list of {len(self)} items, not an object; "
                           f"index it first (e.g. {self._path}[0].{name})")
