"""Where each value of a JSON text is written: a field path -> its line.

:mod:`json` gives values, not positions, so an error about ``views.track.fields.name``
could not say which line to fix. :func:`value_lines` scans a text that
:func:`json.loads` has already accepted and records the line of every object
member's key and every list item. It is run only when a world file has a
mistake to report.
"""

from __future__ import annotations

import bisect
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2, untyped in typeshed

from gqlbench.mocks.engine.problems import Path

__all__ = ["duplicate_members", "line_of", "value_lines"]

_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null")


def value_lines(text: str) -> dict[Path, int]:
    """The 1-based line of each path of a valid JSON text (a member's key line, an item's first line)."""
    return _scan(text)[0]


def duplicate_members(text: str) -> list[tuple[Path, int]]:
    """Each member of a valid JSON text whose key its object already has, with its line (JSON keeps only the last)."""
    return _scan(text)[1]


def _scan(text: str) -> tuple[dict[Path, int], list[tuple[Path, int]]]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    lines: dict[Path, int] = {(): 1}
    again: list[tuple[Path, int]] = []

    def line(pos: int) -> int:
        return bisect.bisect_right(starts, pos)

    def skip(pos: int) -> int:
        match = _SPACE.match(text, pos)
        return match.end() if match else pos

    def value(pos: int, path: Path) -> int:
        pos = skip(pos)
        char = text[pos]
        if char == "{":
            pos = skip(pos + 1)
            while text[pos] != "}":
                key, after = scanstring(text, pos + 1)
                if (*path, key) in lines:  # the object has it already: what the first one held is forgotten, as json forgets it
                    again.append(((*path, key), line(pos)))
                    for gone in [p for p in lines if p[: len(path) + 1] == (*path, key)]:
                        del lines[gone]
                lines[(*path, key)] = line(pos)
                pos = skip(value(skip(after) + 1, (*path, key)))  # past the ':'
                pos = skip(pos + 1) if text[pos] == "," else pos
            return pos + 1
        if char == "[":
            pos, n = skip(pos + 1), 0
            while text[pos] != "]":
                lines[(*path, n)] = line(skip(pos))
                pos = skip(value(pos, (*path, n)))
                pos, n = (skip(pos + 1) if text[pos] == "," else pos), n + 1
            return pos + 1
        if char == '"':
            return scanstring(text, pos + 1)[1]
        match = _SCALAR.match(text, pos)
        if match is None:
            raise ValueError(f"not JSON at character {pos}")
        return match.end()

    value(0, ())
    return lines, again


def line_of(lines: dict[Path, int], path: Path) -> int:
    """The line of ``path``, else of its nearest written ancestor (a path a check made up, e.g. a missing key)."""
    while path not in lines:
        path = path[:-1]
    return lines[path]
