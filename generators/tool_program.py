"""From a tool-calling trajectory to a program in the benchmark's form.

A native tool call carries values, not references: the model read an id in
an earlier tool result and typed it back. The scored program needs the
dataflow edge, so each argument value is looked up in the earlier responses
of the trajectory; where it occurs, the argument becomes a reference to that
field (``response_obj.results[0].id``). A value found at several paths keeps
them as candidates in the record (the first :data:`MAX_CANDIDATES`); the
program uses the first in this order: the latest response first (a program
reads a value from the call that fetched it for that purpose), except that a
response whose own call was given the value (it echoes its input, as
``GET_playlist(id=x).id`` does) comes after all others, latest first; within
a response the shortest path, then the path met first in the response's own
order. A value the request itself
contains (the user typed it) stays a literal, as do booleans, null and
integers below :data:`SMALL_NUMBER` (counts, pages, limits and season numbers
are typed far more often than read; the worlds' ids are larger). Only fields
reachable by attribute and index access are candidates (a key that is not a
Python identifier cannot be written as a reference).
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from typing import Any

__all__ = [
    "SMALL_NUMBER",
    "MAX_CANDIDATES",
    "Earlier",
    "argument_text",
    "literal",
    "value_paths",
    "argument_source",
    "call_line",
    "variable_name",
]


@dataclass(frozen=True, eq=False)
class Earlier:
    """A response of an earlier successful call: the variable it is stored in and its JSON value.

    Its leaves are indexed by value once, on the first lookup (:attr:`paths`), so looking up the
    thousands of elements of one list argument costs one walk of the response, not one walk each.
    """

    variable: str
    value: Any
    arguments: tuple[Any, ...] = ()  # the values the call was given (a response that echoes one is not its origin)
    turn: int = 0  # the model turn that made the call (calls of one turn cannot read each other's responses)

    @cached_property
    def paths(self) -> dict[tuple[str, Any], list[str]]:
        """Every readable path of the response by the value of its leaf (:func:`_leaf_key`), each list shortest first."""
        return _paths_by_value(self.value, self.variable)


def variable_name(index: int) -> str:
    """The benchmark's variable names: response_obj, response_obj1, response_obj2, ..."""
    return "response_obj" if index == 0 else f"response_obj{index}"


SMALL_NUMBER = 100  # integers below it (counts, pages, limits, season numbers) are typed, not read
MAX_CANDIDATES = 20  # references kept for one value (a value at thousands of paths, "track" say, keeps the best 20)


def _searchable(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, int):
        return abs(value) >= SMALL_NUMBER
    return isinstance(value, float) and math.isfinite(value)


def _leaf_key(value: Any) -> tuple[str, Any] | None:
    """What a leaf is looked up by: its kind and value, so two leaves are the same value as JSON values of one kind
    when their keys are equal (1 == True and "1" == 1 are not the same value; 1 and 1.0 are). None: no leaf to look up."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return ("str", value)
    return ("number", value) if isinstance(value, (int, float)) else None


def _paths_by_value(tree: Any, prefix: str) -> dict[tuple[str, Any], list[str]]:
    """The paths under ``prefix`` of every leaf of ``tree``, by :func:`_leaf_key`: shortest first, then in the tree's order.

    One walk without recursion (a response's depth is the world's to choose).
    """
    found: dict[tuple[str, Any], list[tuple[int, int, str]]] = {}
    stack: list[tuple[Any, str, int]] = [(tree, prefix, 0)]
    order = 0
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, dict):
            readable = [(k, v) for k, v in node.items() if isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k)]
            stack += [(child, f"{path}.{key}", depth + 1) for key, child in reversed(readable)]
        elif isinstance(node, list):
            stack += [(node[i], f"{path}[{i}]", depth + 1) for i in range(len(node) - 1, -1, -1)]
        elif (key := _leaf_key(node)) is not None:
            found.setdefault(key, []).append((depth, order, path))
            order += 1
    return {key: [path for _, _, path in sorted(paths)] for key, paths in found.items()}


def value_paths(value: Any, tree: Any, prefix: str) -> list[str]:
    """Every path under ``prefix`` in ``tree`` whose leaf equals ``value``: shortest first, then in the tree's order."""
    key = _leaf_key(value)
    return list(_paths_by_value(tree, prefix).get(key, [])) if key is not None else []


def _typed_in(value: Any, request: str) -> bool:
    """Whether the user's request contains the value (then it is the user's, not a read field)."""
    text = str(value).strip().lower()
    return bool(text) and text in request.lower()


def argument_source(value: Any, earlier: Sequence[Earlier], request: str, limit: int = MAX_CANDIDATES) -> list[str]:
    """The first ``limit`` candidate references for an argument value (empty: it stays a literal), best first."""
    key = _leaf_key(value)
    if key is None or not _searchable(value) or _typed_in(value, request):
        return []
    echoes = {id(r) for r in earlier if any(_leaf_key(given) == key for given in r.arguments)}
    order = [r for r in reversed(earlier) if id(r) not in echoes] + [r for r in reversed(earlier) if id(r) in echoes]
    return list(islice((path for response in order for path in response.paths.get(key, ())), limit))


def argument_text(value: Any, earlier: Sequence[Earlier], request: str) -> tuple[str, list[str]]:
    """The argument as program text and the candidates of a single value (lists and dicts: element by element).

    ``[{"uri": "spotify:track:x"}]`` read from a response becomes
    ``[{'uri': response_obj1.items[0].track.uri}]``; candidates are kept only
    for a single value (an element's alternatives are not recorded).
    """
    if isinstance(value, (list, dict)):
        return _element_text(value, earlier, request), []
    candidates = argument_source(value, earlier, request)
    return (candidates[0] if candidates else literal(value)), candidates


def _element_text(value: Any, earlier: Sequence[Earlier], request: str) -> str:
    """A value inside a list or dict as program text: its best reference (one, so an element costs one lookup per response)."""
    if isinstance(value, list):
        return f"[{', '.join(_element_text(v, earlier, request) for v in value)}]"
    if isinstance(value, dict):
        return f"{{{', '.join(f'{k!r}: {_element_text(v, earlier, request)}' for k, v in value.items())}}}"
    best = argument_source(value, earlier, request, limit=1)
    return best[0] if best else literal(value)


def literal(value: Any) -> str:
    """A JSON value as a Python literal (``repr`` of the decoded value: strings, numbers, lists, dicts, True/False/None)."""
    return repr(value)


def call_line(variable: str | None, function: str, arguments: Sequence[tuple[str, str]]) -> str:
    """``variable = function(a=..., b=...)`` (no assignment when ``variable`` is None)."""
    call = f"{function}({', '.join(f'{name}={text}' for name, text in arguments)})"
    return f"{variable} = {call}" if variable else call
