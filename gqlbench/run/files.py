"""Writing a run folder's files without ever following a symbolic link.

Run folders are shared between people and resumed, so a file in one may be a
link somebody put there (``samples.jsonl -> ~/.bashrc``). Every write of a run
file goes through this module: appends and in-place edits open with
``O_NOFOLLOW``; whole-file writes are staged in a new temporary file (created
with ``O_EXCL | O_NOFOLLOW``) and renamed over the target, which is refused
when the target is a link. A link is a one-line error naming the file, never
written through and never silently replaced.

.. note:: ``O_NOFOLLOW`` guards the last part of the path only: the run folder
   itself may be a link (``runs/latest``), the files in it may not.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from gqlbench.errors import GqlbenchError
from gqlbench.jsonl import utf8_text

__all__ = ["open_run_file", "write_files", "write_json", "json_text", "refuse_link"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows, where links need privileges to make
_FLAGS = {
    "a": os.O_WRONLY | os.O_APPEND | os.O_CREAT,  # appends; also the lock file, which must not be truncated
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,  # a new file, never an existing one
    "r+": os.O_RDWR,
}


def refuse_link(path: Path) -> None:
    """Raise the run folder's one-line error when ``path`` is a symbolic link."""
    if path.is_symlink():
        raise GqlbenchError(_link_message(path))


def _link_message(path: Path) -> str:
    return (
        f"{path}: is a symbolic link; gqlbench never writes through a link in a run folder "
        "(replace it with a plain file, or use another --out)"
    )


def open_run_file(path: Path, mode: str) -> IO[Any]:
    """``open(path, mode)`` that refuses a symbolic link; ``mode`` is ``a``, ``w``, ``x`` or ``r+``, with ``b`` for bytes."""
    binary = mode.endswith("b")
    flags = _FLAGS[mode.removesuffix("b")] | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if path.is_symlink():  # ELOOP on Linux, EMLINK or EFTYPE elsewhere
            raise GqlbenchError(_link_message(path)) from None
        raise exc
    raw: IO[Any] = os.fdopen(fd, ("r+" if mode.startswith("r+") else "a" if mode.startswith("a") else "w") + "b")
    return raw if binary else io.TextIOWrapper(raw, encoding="utf-8")


def _stage(path: Path, chunks: Iterable[str]) -> Path:
    """Write ``chunks`` to a new temporary file next to ``path`` and sync it; returns the temporary file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # per process, created with the usual permissions
    tmp.unlink(missing_ok=True)  # a stale one (or a link planted under its name): removed, never written through
    try:
        with open_run_file(tmp, "x") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def write_files(files: Mapping[Path, Iterable[str]]) -> None:
    """Replace every file once all of them are written in full, so a failure changes none.

    Each rename is atomic; only a kill in the instant between two renames can
    leave complete old and new files side by side, never a truncated one. A
    target that is a link is refused before anything is written.
    """
    for path in files:
        refuse_link(path)
    staged: list[tuple[Path, Path]] = []
    try:
        for path, chunks in files.items():
            staged.append((_stage(path, chunks), path))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        tmp.replace(path)


def json_text(payload: Any) -> str:
    """A run folder's JSON file: indented, UTF-8 (a lone surrogate becomes U+FFFD), one final newline.

    What is not JSON (a path, a date) is written as its ``str``.
    """
    return utf8_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str)) + "\n"


def write_json(path: Path, payload: Any) -> None:
    """Replace ``path`` with ``payload`` as JSON (:func:`json_text`), atomically and never through a link."""
    write_files({path: [json_text(payload)]})
