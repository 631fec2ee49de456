"""Text from programs and input files, made safe to show on a terminal or in a Markdown report.

A generated program can print anything; shown as is, ``"\\x1b]0;title\\x07"``
retitles the user's terminal and other escape sequences move the cursor,
rewrite earlier lines or hide text. :func:`escape_controls` writes every
control character as a visible escape instead, so the sequence is shown, not
obeyed. A lone surrogate (which no encoder can write) becomes U+FFFD, as in
the results files.
"""

from __future__ import annotations

import re

__all__ = ["escape_controls"]

# C0 except tab and newline, DEL, C1 (CSI and OSC have 8-bit forms there), the bidirectional
# overrides and isolates (they reorder what the reader sees), and lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_REPLACEMENT = "\ufffd"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return _REPLACEMENT
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with each control character and bidi override written as ``\\xNN``/``\\uNNNN``, lone surrogates as U+FFFD.

    Newlines and tabs are kept. ESC becomes ``\\x1b``, so an escape sequence
    (CSI, OSC, ...) loses its effect and stays readable.
    """
    return _UNSAFE.sub(_escape, text)
