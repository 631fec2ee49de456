"""A mistake in a world file, as a record: where it is (a field path) and what is wrong.

Checks of a world file (:mod:`gqlbench.mocks.engine.worldfile`) never stop at the
first mistake: each returns its :class:`FileProblem` records and the loader reports
them all at once, each on its own line with the file and the line the path is
written on (:mod:`gqlbench.mocks.engine.jsonpos`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gqlbench.errors import closest

__all__ = ["Path", "FileProblem", "did_you_mean", "dotted"]

Path = tuple[str | int, ...]
"""A field path in the file: object keys and list indexes (``("endpoints", "GET_x", "respond", 0)``)."""


@dataclass(frozen=True)
class FileProblem:
    """One mistake: ``path`` is what the message names, ``at`` (default: ``path``) where its line is read.

    ``unknown_name`` is the name a template uses that its scope does not have, when that is the mistake.
    """

    path: Path
    message: str
    at: Path | None = None
    unknown_name: str | None = None

    def line_path(self) -> Path:
        return self.path if self.at is None else self.at


def dotted(path: Path) -> str:
    """``("views", "track", "fields", 0)`` -> ``views.track.fields[0]``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """``"; did you mean 'do'?"`` when an option is near ``name``, else the options (a short list) or nothing."""
    options = sorted(set(options))
    near = closest(name, options, n=1)
    if near:
        return f"; did you mean {near[0]!r}?"
    return f"; use one of {', '.join(options)}" if options and len(options) <= 12 else ""
