"""What a model is shown of a long JSON response: shortened, still JSON, saying inside it what was left out.

A tool result (``--prompt tools``) or a ReAct observation from the mock world
(``--observe mock``) is the response as compact JSON. When it is longer than
the bound, :func:`shorten` leaves parts out until it fits, and every place it
left something out says so in the JSON, so the model reads a valid document
whose remaining fields keep their paths:

- a list keeps its first items and ends with one string, ``"... 37 of 50 items not shown"``;
- an object keeps its first fields and gets one more, ``"...": "12 of 20 fields not shown"``
  (the key is no identifier, so no reference is ever written to it);
- a long string keeps its start and ends with ``"... (9,000 more characters not shown)"``.

The steps, each taken only when the one before does not fit: strings longer
than :data:`LONG_STRING` are cut to it (descriptions and lyrics matter less
than the ids a later call reads); every list keeps at most its first k items,
k the largest that fits; strings are cut to :data:`SHORT_STRING`; every object
keeps at most its first k fields. A value that still does not fit (only with a
bound of a few dozen characters) is shown as one JSON string: the start of
its text and how much is left out.

:func:`result_chars` is the default bound of ``--prompt tools``, from the
model's context.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CHARS_PER_TOKEN",
    "CONTEXT_SHARE",
    "MIN_RESULT_CHARS",
    "LONG_STRING",
    "SHORT_STRING",
    "NOT_SHOWN_KEY",
    "Shortened",
    "shorten",
    "result_chars",
]

CHARS_PER_TOKEN = 3  # compact JSON of the mock worlds' responses: about 3 characters per token (SmolLM2's tokenizer)
CONTEXT_SHARE = 4  # one result may take a quarter of the context: a trajectory reads a few responses
MIN_RESULT_CHARS = 1000  # below this a result shows too little to read an id from
LONG_STRING = 200
SHORT_STRING = 20
NOT_SHOWN_KEY = "..."
_NOTE = 40  # characters of a string's note: a shorter string is never cut


def result_chars(max_model_len: int) -> int:
    """The default bound of a tool result: a quarter of the context, at :data:`CHARS_PER_TOKEN`, at least :data:`MIN_RESULT_CHARS`."""
    return max(MIN_RESULT_CHARS, max_model_len * CHARS_PER_TOKEN // CONTEXT_SHARE)


@dataclass(frozen=True)
class Shortened:
    """The JSON text shown, the length of the whole response's JSON, and what was left out of it."""

    text: str
    chars: int  # characters of the whole response as compact JSON
    items_left_out: int = 0  # list items and object fields
    chars_left_out: int = 0  # characters cut from strings (or from the text, when it was shown as one string)

    @property
    def shortened(self) -> bool:
        return self.items_left_out > 0 or self.chars_left_out > 0


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class _Caps:
    """How much of each list, object and string is kept (None: all)."""

    items: int | None = None
    fields: int | None = None
    string: int | None = None


def _capped(value: Any, caps: _Caps) -> tuple[Any, int, int]:
    """A copy of ``value`` within ``caps``, each cut saying so in the JSON; and the entries and characters left out."""
    left_out = [0, 0]

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            keep = len(node) if caps.items is None else min(len(node), caps.items)
            kept = [walk(child) for child in node[:keep]]
            if keep < len(node):
                left_out[0] += len(node) - keep
                kept.append(f"... {len(node) - keep} of {len(node)} items not shown")
            return kept
        if isinstance(node, dict):
            keys = list(node)
            keep = len(keys) if caps.fields is None else min(len(keys), caps.fields)
            fields = {key: walk(node[key]) for key in keys[:keep]}
            if keep < len(keys):
                left_out[0] += len(keys) - keep
                fields[NOT_SHOWN_KEY] = f"{len(keys) - keep} of {len(keys)} fields not shown"
            return fields
        if isinstance(node, str) and caps.string is not None and len(node) > caps.string + _NOTE:  # the note must pay for itself
            left_out[1] += len(node) - caps.string
            return f"{node[: caps.string]}... ({len(node) - caps.string:,} more characters not shown)"
        return node

    return walk(value), left_out[0], left_out[1]


def _largest(value: Any, kind: type) -> int:
    """The most entries a list (``kind`` list) or object (dict) in ``value`` has."""
    most = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, dict)):
            if isinstance(node, kind):
                most = max(most, len(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return most


def shorten(value: Any, max_chars: int) -> Shortened:
    """``value`` as compact JSON of at most ``max_chars`` characters (from 50 up; see the module docstring); always valid JSON.

    Each step keeps the most that fits: the number of items kept per list,
    then of fields per object, is found by bisection (a dozen passes over the
    value at most), so the work grows as n log n with the response's size.
    """
    text = _dumps(value)
    if len(text) <= max_chars:
        return Shortened(text, len(text))

    def attempt(caps: _Caps) -> Shortened | None:
        copy, items, chars = _capped(value, caps)
        shown = _dumps(copy)
        return Shortened(shown, len(text), items, chars) if len(shown) <= max_chars else None

    def most(make: Callable[[int], _Caps], high: int) -> Shortened | None:
        """The attempt with about the largest cap in 1..high that fits, or None (a longer cap is longer text, but for
        the few characters of a note, so bisection finds the largest or one close to it)."""
        best, low = None, 1
        while low <= high:
            middle = (low + high) // 2
            found = attempt(make(middle))
            if found is None:
                high = middle - 1
            else:
                best, low = found, middle + 1
        return best

    lists, objects = _largest(value, list), _largest(value, dict)
    steps = (
        lambda: attempt(_Caps(string=LONG_STRING)),
        lambda: most(lambda k: _Caps(items=k, string=LONG_STRING), lists),
        lambda: most(lambda k: _Caps(items=k, string=SHORT_STRING), lists),
        lambda: most(lambda k: _Caps(items=1, fields=k, string=SHORT_STRING), objects),
    )
    for step in steps if not isinstance(value, str) else ():
        found = step()
        if found is not None:
            return found
    source = value if isinstance(value, str) else text  # a string is cut as itself, anything else as its JSON text
    keep = max(0, max_chars - 50)
    while True:  # escaping may lengthen the start, so it is shortened until it fits
        note = _dumps(f"{source[:keep]}... ({len(source) - keep:,} more characters not shown)")
        if len(note) <= max_chars or keep == 0:
            return Shortened(note, len(text), 0, len(source) - keep)
        keep = keep * 3 // 4
