"""How much of a predicted program the analysis reads, so that one answer cannot stall a whole split.

The dataflow analysis costs about 0.2 to 0.8 ms per line with LibCST (a
100,000-line prediction took over a minute), and inlining variables can double
an argument with every line (``a1 = [a0, a0]; a2 = [a1, a1]; ...``: twenty
lines took 20 s). A predicted program beyond any bound of :class:`Limits` is not
analysed and not run: it scores 0 on every metric, and its explanation says
which bound it passed (``explanation.too_large``).

.. note:: The bounds are counts, not timings, so a score never depends on the
   machine that computed it. They sit far above any real answer: the largest
   gold program of GraphQLRestBench has 475 characters, 5 lines and 5 calls,
   and a 512-token answer is about 2,000 characters. Within them, a program
   is analysed in well under a second (see the README's measurements).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "DEFAULT_LIMITS", "source_too_large"]


@dataclass(frozen=True)
class Limits:
    """Bounds on one predicted program; ``None`` in place of a ``Limits`` means unbounded (gold programs)."""

    max_chars: int = 20_000
    """Characters of the extracted program (after code fences are taken out)."""
    max_lines: int = 1_000
    """Lines of the extracted program."""
    max_calls: int = 200
    """API calls found in it."""
    max_expanded: int = 50_000
    """Syntax nodes of all its call arguments together, once variables are inlined."""


DEFAULT_LIMITS = Limits()


def source_too_large(code: str, limits: Limits) -> str | None:
    """Why ``code`` is too large to analyse by its size alone, or ``None`` when it is not."""
    lines = code.count("\n") + (not code.endswith("\n"))
    over = []
    if lines > limits.max_lines:
        over.append(f"{lines:,} lines (the limit is {limits.max_lines:,})")
    if len(code) > limits.max_chars:
        over.append(f"{len(code):,} characters (the limit is {limits.max_chars:,})")
    return f"the program has {' and '.join(over)}" if over else None
