"""JSONL and JSON text at the edges: decoding what users give, encoding what runs write.

Input files come from anywhere: a Windows tool adds a byte-order mark, a
broken exporter leaves bytes that are not UTF-8. :func:`read_lines` accepts the
first and reports the second as a :class:`~gqlbench.errors.GqlbenchError` naming
the file, the line and the byte, never as a ``UnicodeDecodeError`` traceback.

Text that reaches our files can hold lone surrogates (``"\\ud800"`` is valid
JSON, and a program can print ``chr(0xD800)``), which UTF-8 cannot encode and
pydantic's JSON parser refuses to read back. :func:`utf8_text` and
:func:`utf8_data` replace each lone surrogate with U+FFFD (a valid pair is
joined into its character), so every file gqlbench writes is valid UTF-8 that
any JSON reader accepts.

.. note:: Replacing is lossy by design: the replaced character was never
   representable in UTF-8, so no score can depend on its exact value.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError

__all__ = ["BOM", "read_lines", "decode_line", "utf8_text", "utf8_data"]

BOM = b"\xef\xbb\xbf"


def decode_line(data: bytes, where: str, offset: int) -> str:
    """One line as text; invalid UTF-8 names the byte, its offset in the file (0-based) and in the line (1-based)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GqlbenchError(
            f"{where}: not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {offset + exc.start} of the file "
            f"(byte {exc.start + 1} of the line); save the file as UTF-8"
        ) from None


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for each line of a UTF-8 file (a leading byte-order mark is skipped).

    The file is read as bytes and split at ``\\n`` only, so a decoding problem
    is reported on its own line and no other character ends a line.
    """
    offset = 0
    with path.open("rb") as fh:
        for number, data in enumerate(fh, start=1):
            start, offset = offset, offset + len(data)
            if number == 1 and data.startswith(BOM):
                data, start = data[len(BOM) :], start + len(BOM)
            yield number, decode_line(data, f"{path}:{number}", start)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def utf8_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged, and not copied, when it has none)."""
    if not _has_surrogate(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def utf8_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, scalars) with :func:`utf8_text` applied to every string, keys included."""
    if isinstance(value, str):
        return utf8_text(value)
    if isinstance(value, dict):
        return {utf8_data(k): utf8_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [utf8_data(v) for v in value]
    return value
