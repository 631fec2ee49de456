"""Code extraction: from a model's raw answer to the program that is scored.

Models wrap code in Markdown fences and surround it with prose. The rule is
deliberately simple, so that a score never depends on a guess about which
text the model "meant": if the answer contains fenced code blocks, the program
is their contents joined by newlines, in order; otherwise it is the whole text.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["extract_code"]

# An opening fence (``` or ```python, optionally indented) up to the next closing
# fence. A final block left open (generation cut off at the token budget) runs to
# the end of the text rather than being dropped.
_FENCED_BLOCK = re.compile(
    r"^[ \t]*```[^\n`]*\n(?P<body>.*?)(?:^[ \t]*```[ \t]*$|\Z)",
    re.DOTALL | re.MULTILINE,
)


def extract_code(text: str) -> str:
    """The program inside a raw model answer (see the module docstring)."""
    blocks = [textwrap.dedent(m.group("body")).strip("\n") for m in _FENCED_BLOCK.finditer(text)]
    if not blocks:
        return text
    return "\n".join(blocks) + "\n"
