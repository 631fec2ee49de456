"""Text made safe for the page: escaping, light Python highlighting, side-by-side diffs.

Everything a model wrote or a program printed passes through :func:`esc`:
HTML-escaped, control characters shown as ``\\xNN`` escapes (they are invalid
in HTML and can hide text), lone surrogates as U+FFFD (they cannot be encoded
as UTF-8, so the file could not be written otherwise).
"""

from __future__ import annotations

import difflib
import re
from html import escape

from gqlbench.display import escape_controls
from gqlbench.specs.names import HTTP_METHODS

__all__ = ["clean", "esc", "highlight_line", "side_by_side"]

_TOKEN = re.compile(
    r"(?P<comment>#.*)"
    r"|(?P<string>[rbfuRBFU]{0,2}(?:'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?))"
    r"|(?P<number>\b\d[\d_]*(?:\.\d+)?\b)"
    rf"|(?P<api>\b(?:{'|'.join(m.upper() for m in HTTP_METHODS)})_\w*)"  # endpoint names (gqlbench.specs.names)
    r"|(?P<keyword>\b(?:and|as|assert|break|class|continue|def|del|elif|else|except|False|finally|for|from|if|import|in|is|lambda|None|not|or|pass|raise|return|True|try|while|with|yield)\b)"
)


def clean(text: object) -> str:
    """``text`` as a string that UTF-8 can encode and HTML can hold (before escaping)."""
    return escape_controls(str(text))  # the terminal's rule: controls as \xNN, lone surrogates as U+FFFD


def esc(text: object) -> str:
    """HTML-escaped, cleaned text (see :func:`clean`)."""
    return escape(clean(text), quote=True)


def highlight_line(line: str) -> str:
    """One line of Python as escaped HTML with ``<span class="tok-...">`` around tokens."""
    out, last = [], 0
    for match in _TOKEN.finditer(line):
        out.append(esc(line[last : match.start()]))
        out.append(f'<span class="tok-{match.lastgroup}">{esc(match.group())}</span>')
        last = match.end()
    out.append(esc(line[last:]))
    return "".join(out)


def _cells(number: int | None, line: str | None, kind: str) -> str:
    if line is None:
        return '<td class="ln"></td><td class="code blank"></td>'
    return f'<td class="ln">{number}</td><td class="code {kind}">{highlight_line(line)}</td>'


def side_by_side(left: str, right: str, left_title: str = "gold", right_title: str = "predicted") -> str:
    """A two-column table of two programs; deleted, inserted and changed lines are marked (difflib)."""
    a, b = left.splitlines(), right.splitlines()
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        span = max(i2 - i1, j2 - j1)
        for k in range(span):
            i, j = i1 + k, j1 + k
            left_line = a[i] if i < i2 else None
            right_line = b[j] if j < j2 else None
            kind = {"equal": "same", "replace": "chg", "delete": "del", "insert": "ins"}[tag]
            rows.append(
                f'<tr class="{kind}">{_cells(i + 1, left_line, kind)}{_cells(j + 1, right_line, kind)}</tr>'
            )
    head = f'<tr><th colspan="2">{esc(left_title)}</th><th colspan="2">{esc(right_title)}</th></tr>'
    cols = '<colgroup><col class="ln"><col><col class="ln"><col></colgroup>'
    return f'<table class="diff">{cols}{head}{"".join(rows)}</table>'
