"""What a tool-calling turn may bring in: bounded, escaped and read where it enters.

A server or a model is untrusted input. Everything of a turn that the loop
keeps (its text, each call's name, id and arguments) passes through here once,
before anything reads it, so that no answer can make the harness work or
store more than a bound allows, or fail a sample on every resume:

- text is cut at :data:`MAX_TURN_CHARS` and a call's arguments at
  :data:`MAX_ARGUMENTS_CHARS`, with the full length kept next to the cut text;
- a lone surrogate (which JSON's ``\\ud800`` escape can carry but UTF-8 cannot)
  is stored as the escape text ``\\ud800``, so the record can be written, read
  back and sent to the server again;
- arguments are read as a JSON object at most :data:`MAX_ARGUMENT_DEPTH`
  levels deep (a deeper one is refused before any recursive code sees it);
- a turn may make :data:`MAX_CALLS_PER_TURN` calls, and a sample
  :data:`MAX_CALLS_PER_SAMPLE` over all its turns (a turn runs as one sandbox
  job that replays the sample's earlier calls, so these bound one job's
  statements and a sample's replays).

The bounds are far above what a benchmark task needs: the gold programs make
at most six calls, and their largest argument is a list of track URIs of a
few kilobytes.
"""

from __future__ import annotations

import json
import math
from typing import Any

from gqlbench.records import MAX_COMPLETION_CHARS, escape_surrogates

__all__ = [
    "MAX_ARGUMENTS_CHARS",
    "MAX_ARGUMENT_DEPTH",
    "MAX_CALLS_PER_SAMPLE",
    "MAX_CALLS_PER_TURN",
    "MAX_NAME_CHARS",
    "MAX_TURN_CHARS",
    "RefusedArguments",
    "bounded",
    "read_arguments",
]

MAX_TURN_CHARS = MAX_COMPLETION_CHARS  # a turn's text, as a completion's
MAX_ARGUMENTS_CHARS = 20_000  # the JSON text of one call's arguments
MAX_NAME_CHARS = 200  # a tool name or a call id
MAX_ARGUMENT_DEPTH = 20  # nesting of lists and objects in one call's arguments
MAX_CALLS_PER_TURN = 32
MAX_CALLS_PER_SAMPLE = 64  # over all turns: each turn's job replays the sample's earlier calls


class RefusedArguments(ValueError):
    """Arguments the harness does not read; the message says why, for the model and the record."""


def bounded(text: str, limit: int) -> tuple[str, int | None]:
    """``text`` escaped and cut to ``limit`` characters, and its full length when it was cut (else None)."""
    if len(text) <= limit:
        return escape_surrogates(text), None
    return escape_surrogates(text[:limit]), len(text)


def read_arguments(text: str) -> dict[str, Any]:
    """A call's arguments as a JSON object of at most :data:`MAX_ARGUMENT_DEPTH` levels, its strings escaped.

    Raises :class:`RefusedArguments` for anything else: text that is not JSON,
    ``NaN``, ``Infinity`` or ``1e400``, a value that is not an object, or one nested too deep.
    """
    try:
        value = json.loads(text or "{}", parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:  # the decoder's own guard, thousands of levels down
        raise RefusedArguments(f"the arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels") from None
    except ValueError as exc:
        raise RefusedArguments(f"the arguments are not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise RefusedArguments("the arguments must be a JSON object of parameter names and values")
    if _depth(value) > MAX_ARGUMENT_DEPTH:
        raise RefusedArguments(f"the arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels")
    result: dict[str, Any] = _escaped_value(value)
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number as a float; ``1e400`` (infinite as a float, ``inf`` in a program) is refused."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is too large for a number")
    return value


def _depth(value: Any) -> int:
    """How many lists and objects deep ``value`` is, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack += [(child, depth + 1) for child in children]
    return deepest


def _escaped_value(value: Any) -> Any:
    """``value`` with every string (keys too) :func:`~gqlbench.records.escape_surrogates`; called on values whose depth is bounded."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, list):
        return [_escaped_value(v) for v in value]
    if isinstance(value, dict):
        return {escape_surrogates(k): _escaped_value(v) for k, v in value.items()}
    return value
