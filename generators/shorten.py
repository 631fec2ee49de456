"""What a model is shown of a long JSON response: shortened, still JSON, saying inside it what was left out.

A tool result (``--prompt tools``) or a ReAct observation from the mock world
(``--observe mock``) is the response as compact JSON. When it is longer than
the bound, :func:`shorten` leaves parts out until it fits, and every place it
left something out says so in the JSON, so the model reads a valid document
whose remaining fields keep their paths:

- a list keeps its first items and ends with one string, ``"... 37 of 50 items not shown"``;
- a list or object nested too deep to fit becomes one string, ``"[50 items not shown]"``
  or ``"{12 fields not shown}"``;
- an object keeps its first fields and gets one more, ``"...": "12 of 20 fields not shown"``
  (the key is no identifier, so no reference is ever written to it);
- a long string keeps its start and ends with ``"... (9,000 more characters not shown)"``.

The steps, each taken only when the one before does not fit: strings longer
than :data:`LONG_STRING` are cut to it (descriptions and lyrics matter less
than the ids a later call reads); every list keeps at most its first k items,
k the largest that fits (whole items, so a later call's field is where the
schema says); with one item per list, lists and objects below the deepest
nesting that fits become notes; strings are cut to :data:`SHORT_STRING`; the
whole value's fields are cut. A value that still does not fit (only with a
bound of a few dozen characters) is shown as one JSON string: the start of
its text and how much is left out.

:func:`result_chars` is the default bound of ``--prompt tools``, from the
model's context.
"""

from __future__ import annotations

import dataclasses
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

CHARS_PER_TOKEN = 2  # the mock worlds' responses as compact JSON: 2.3 characters per token with SmolLM2's tokenizer
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
    """How much of the value is kept (None: all)."""

    items: int | None = None  # items of each list
    depth: int | None = None  # lists and objects nested deeper (the whole value is depth 0) become a note
    fields: int | None = None  # fields of each object
    string: int | None = None  # characters of each string


def _capped(value: Any, caps: _Caps) -> Shortened:
    """``value`` within ``caps``, each cut saying so in the JSON (``chars`` is left 0 for the caller to fill in)."""
    counts = [0, 0]  # entries left out, characters left out

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, (list, dict)) and caps.depth is not None and depth > caps.depth and node:
            counts[0] += len(node)
            return f"[{len(node)} items not shown]" if isinstance(node, list) else f"{{{len(node)} fields not shown}}"
        if isinstance(node, list):
            keep = len(node) if caps.items is None else min(len(node), caps.items)
            kept = [walk(child, depth + 1) for child in node[:keep]]
            if keep < len(node):
                counts[0] += len(node) - keep
                kept.append(f"... {len(node) - keep} of {len(node)} items not shown")
            return kept
        if isinstance(node, dict):
            keys = list(node)
            keep = len(keys) if caps.fields is None else min(len(keys), caps.fields)
            fields = {key: walk(node[key], depth + 1) for key in keys[:keep]}
            if keep < len(keys):
                counts[0] += len(keys) - keep
                fields[NOT_SHOWN_KEY] = f"{len(keys) - keep} of {len(keys)} fields not shown"
            return fields
        if isinstance(node, str) and caps.string is not None and len(node) > caps.string + _NOTE:  # the note must pay for itself
            counts[1] += len(node) - caps.string
            return f"{node[: caps.string]}... ({len(node) - caps.string:,} more characters not shown)"
        return node

    text = _dumps(walk(value, 0))
    return Shortened(text, 0, *counts)


def _shape(value: Any) -> tuple[int, int, int]:
    """The most items of a list, the most fields of an object, and the deepest nesting in ``value``."""
    items = fields = deepest = 0
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list):
            items, deepest = max(items, len(node)), max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
        elif isinstance(node, dict):
            fields, deepest = max(fields, len(node)), max(deepest, depth)
            stack.extend((child, depth + 1) for child in node.values())
    return items, fields, deepest


MAX_DEPTHS = 12  # nestings tried (the mock worlds' responses nest about 6 deep)


def shorten(value: Any, max_chars: int) -> Shortened:
    """``value`` as compact JSON of at most ``max_chars`` characters (from 50 up; see the module docstring); always valid JSON.

    The number of items kept per list is found by bisection and the depth by
    trying from the deepest, so the work is at most about log2 of the longest
    list plus :data:`MAX_DEPTHS` passes over the value, never one per item.
    """
    text = _dumps(value)
    if len(text) <= max_chars:
        return Shortened(text, len(text))
    items, fields, deepest = _shape(value)

    def fitting(caps: _Caps) -> Shortened | None:
        shown = _capped(value, caps)
        return dataclasses.replace(shown, chars=len(text)) if len(shown.text) <= max_chars else None

    def most_items(string: int) -> Shortened | None:
        """The most items per list that fit, found by bisection (a longer cap is a longer text but for the few
        characters of a note, so this finds the largest cap or one close to it)."""
        best, low, high = None, 1, max(1, items)
        while low <= high:
            middle = (low + high) // 2
            found = fitting(_Caps(items=middle, string=string))
            if found is None:
                high = middle - 1
            else:
                best, low = found, middle + 1
        return best

    def deepest_fitting(string: int) -> Shortened | None:
        """One item per list, and lists and objects below the deepest nesting that fits replaced by a note."""
        depths = range(min(deepest, MAX_DEPTHS) - 1, -1, -1)
        return next((f for d in depths if (f := fitting(_Caps(items=1, depth=d, string=string))) is not None), None)

    steps: tuple[Callable[[], Shortened | None], ...] = (
        lambda: fitting(_Caps(string=LONG_STRING)),
        lambda: most_items(LONG_STRING),
        lambda: deepest_fitting(LONG_STRING),
        lambda: deepest_fitting(SHORT_STRING),
        lambda: fitting(_Caps(items=1, depth=0, fields=max(1, fields // 8), string=SHORT_STRING)),
        lambda: fitting(_Caps(items=1, depth=0, fields=1, string=SHORT_STRING)),
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
