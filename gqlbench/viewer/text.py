"""Text made safe for the page: escaping, light Python highlighting, side-by-side diffs.

Everything a model wrote or a program printed passes through :func:`esc`:
HTML-escaped, control characters shown as ``\\xNN`` escapes (they are invalid
in HTML and can hide text), lone surrogates as U+FFFD (they cannot be encoded
as UTF-8, so the file could not be written otherwise). Everything read from a
run folder is untrusted: a value is text to escape, never markup, and names
derived from it for the page's own use (SVG ids) go through :func:`safe_id`.
Long texts are cut by :func:`clip` with a visible note, so one sample cannot
make the page huge.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from html import escape

from gqlbench.display import escape_controls
from gqlbench.specs.names import HTTP_METHODS

__all__ = ["CELL_CHARS", "TEXT_CHARS", "bounded", "clean", "clip", "esc", "highlight_line", "safe_id", "side_by_side", "truncation_note"]

_TOKEN = re.compile(
    r"(?P<comment>#.*)"
    r"|(?P<string>[rbfuRBFU]{0,2}(?:'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?))"
    r"|(?P<number>\b\d[\d_]*(?:\.\d+)?\b)"
    rf"|(?P<api>\b(?:{'|'.join(m.upper() for m in HTTP_METHODS)})_\w*)"  # endpoint names (gqlbench.specs.names)
    r"|(?P<keyword>\b(?:and|as|assert|break|class|continue|def|del|elif|else|except|False|finally|for|from|if|import|in|is|lambda|None|not|or|pass|raise|return|True|try|while|with|yield)\b)"
)


# What the page embeds of one text at most (samples.jsonl keeps everything): the report's size grows with the
# number of samples, not with what one program printed or passed.
CELL_CHARS = 1_000  # one table cell: an argument's JSON, an expected or got value, an error message
TEXT_CHARS = 20_000  # one block: a program, stdout, the raw model text, a ReAct observation

_MAX_DIGITS = 4300  # Python's default limit on int -> str conversion (sys.get_int_max_str_digits)


def clean(text: object) -> str:
    """``text`` as a string that UTF-8 can encode and HTML can hold (before escaping).

    An integer too long for ``str`` (over 4,300 digits, e.g. from a hand-edited
    file) is described instead of raising.
    """
    if isinstance(text, int) and text.bit_length() > _MAX_DIGITS * 3:  # a digit is 3.3 bits: below this every int converts
        try:
            return escape_controls(str(text))
        except ValueError:
            return f"(an integer of about {int(text.bit_length() * 0.30103)} digits)"
    return escape_controls(str(text))  # the terminal's rule: controls as \xNN, lone surrogates as U+FFFD


def clip(text: str, limit: int, lines: int | None = None) -> tuple[str, str | None]:
    """``text`` cut to ``limit`` characters (and to ``lines`` lines), and the note that says so (None when it fits)."""
    cut = text[:limit]
    if lines is not None and cut.count("\n") >= lines:
        cut = "\n".join(cut.split("\n", lines)[:lines])
    if len(cut) == len(text):
        return text, None
    return cut, f"truncated: {len(cut):,} of {len(text):,} characters shown; the run folder's samples.jsonl has the rest"


def bounded(value: object, limit: int = CELL_CHARS) -> str:
    """``value`` as escaped text of at most ``limit`` characters, with a visible note when it was cut."""
    text, note = clip(value if isinstance(value, str) else clean(value), limit)
    return esc(text) + (f' <span class="truncated">[{esc(note)}]</span>' if note else "")


def truncation_note(note: str | None) -> str:
    """The visible line saying a text was cut (empty when it was not)."""
    return f'<p class="truncated">[{esc(note)}]</p>' if note else ""


def safe_id(*parts: object) -> str:
    """An HTML/SVG id derived from ``parts`` (a sample id, a run index) that holds only ``[0-9a-f]``.

    A sample id is text from the run folder; used raw in ``id="..."`` or
    ``url(#...)`` it could close the attribute. A digest names it instead.
    """
    digest = hashlib.sha256("\x00".join(clean(p) for p in parts).encode("utf-8")).hexdigest()
    return "i" + digest[:16]


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
            rows.append(f'<tr class="{kind}">{_cells(i + 1, left_line, kind)}{_cells(j + 1, right_line, kind)}</tr>')
    head = f'<tr><th colspan="2">{esc(left_title)}</th><th colspan="2">{esc(right_title)}</th></tr>'
    cols = '<colgroup><col class="ln"><col><col class="ln"><col></colgroup>'
    return f'<table class="diff">{cols}{head}{"".join(rows)}</table>'
