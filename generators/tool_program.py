"""From a tool-calling trajectory to a program in the benchmark's form.

A native tool call carries values, not references: the model read an id in
an earlier tool result and typed it back. The scored program needs the
dataflow edge, so each argument value is looked up in the earlier responses
of the trajectory; where it occurs, the argument becomes a reference to that
field (``response_obj.results[0].id``). A value found at several paths keeps
all of them as candidates in the record; the program uses the first in this
order: the latest response first (a program reads a value from the call
that fetched it for that purpose), except that a response whose own call was
given the value (it echoes its input, as ``GET_playlist(id=x).id`` does) comes
after all others, latest first; within a response the shortest path, then the
path met first in the response's own order. A value the request itself
contains (the user typed it) stays a literal, as do booleans, null and
integers below :data:`SMALL_NUMBER` (counts, pages, limits and season numbers
are typed far more often than read; the worlds' ids are larger). Only fields
reachable by attribute and index access are candidates (a key that is not a
Python identifier cannot be written as a reference).
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SMALL_NUMBER",
    "Earlier",
    "argument_text",
    "literal",
    "value_paths",
    "argument_source",
    "call_line",
    "variable_name",
]


@dataclass(frozen=True)
class Earlier:
    """A response of an earlier successful call: the variable it is stored in and its JSON value."""

    variable: str
    value: Any
    arguments: tuple[Any, ...] = ()  # the values the call was given (a response that echoes one is not its origin)
    turn: int = 0  # the model turn that made the call (calls of one turn cannot read each other's responses)


def variable_name(index: int) -> str:
    """The benchmark's variable names: response_obj, response_obj1, response_obj2, ..."""
    return "response_obj" if index == 0 else f"response_obj{index}"


SMALL_NUMBER = 100  # integers below it (counts, pages, limits, season numbers) are typed, not read


def _searchable(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, int):
        return abs(value) >= SMALL_NUMBER
    return isinstance(value, float) and math.isfinite(value)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values of one kind (1 == True and "1" == 1 are not the same value)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if isinstance(a, str) != isinstance(b, str):
        return False
    return bool(a == b)


def value_paths(value: Any, tree: Any, prefix: str) -> list[str]:
    """Every path under ``prefix`` in ``tree`` whose leaf equals ``value``: shortest first, then in the tree's order."""
    found: list[tuple[int, int, str]] = []

    def walk(node: Any, path: str, depth: int) -> Iterator[None]:
        if isinstance(node, dict):
            for key, child in node.items():
                if isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key):
                    yield from walk(child, f"{path}.{key}", depth + 1)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                yield from walk(child, f"{path}[{i}]", depth + 1)
        elif _same(node, value):
            found.append((depth, len(found), path))
            yield None

    for _ in walk(tree, prefix, 0):
        pass
    return [path for _, _, path in sorted(found)]


def _typed_in(value: Any, request: str) -> bool:
    """Whether the user's request contains the value (then it is the user's, not a read field)."""
    text = str(value).strip().lower()
    return bool(text) and text in request.lower()


def argument_source(value: Any, earlier: Sequence[Earlier], request: str) -> list[str]:
    """The candidate references for an argument value (empty: it stays a literal), best first."""
    if not _searchable(value) or _typed_in(value, request):
        return []
    echoes = [r for r in earlier if any(_same(value, given) for given in r.arguments)]
    paths: list[str] = []
    for response in [*(r for r in reversed(earlier) if r not in echoes), *reversed(echoes)]:
        paths += value_paths(value, response.value, response.variable)
    return paths


def argument_text(value: Any, earlier: Sequence[Earlier], request: str) -> tuple[str, list[str]]:
    """The argument as program text and the candidates of a single value (lists and dicts: element by element).

    ``[{"uri": "spotify:track:x"}]`` read from a response becomes
    ``[{'uri': response_obj1.items[0].track.uri}]``; candidates are kept only
    for a single value (an element's alternatives are not recorded).
    """
    if isinstance(value, list):
        return f"[{', '.join(argument_text(v, earlier, request)[0] for v in value)}]", []
    if isinstance(value, dict):
        items = (f"{k!r}: {argument_text(v, earlier, request)[0]}" for k, v in value.items())
        return f"{{{', '.join(items)}}}", []
    candidates = argument_source(value, earlier, request)
    return (candidates[0] if candidates else literal(value)), candidates


def literal(value: Any) -> str:
    """A JSON value as a Python literal (``repr`` of the decoded value: strings, numbers, lists, dicts, True/False/None)."""
    return repr(value)


def call_line(variable: str | None, function: str, arguments: Sequence[tuple[str, str]]) -> str:
    """``variable = function(a=..., b=...)`` (no assignment when ``variable`` is None)."""
    call = f"{function}({', '.join(f'{name}={text}' for name, text in arguments)})"
    return f"{variable} = {call}" if variable else call
