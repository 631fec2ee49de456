"""Term indexes over one entity table, so a search does not scan the whole world.

A search asks "which records contain every query word as a substring of their
text" (``"tit" in "titanic"``), and a listing asks "which albums name this
artist". A linear scan costs the size of the table, and every search for
something new adds records, so N searches in one world cost N squared (5,000
aliased searches in one GraphQL request took minutes). A :class:`TermIndex`
maps each term of a record (a three-character piece of its lowered text, or an
id it refers to) to the record's position; the candidates of a question are
the intersection of its terms' postings, and the caller checks every candidate
against the current record, so an index never adds a false match.

It stays exact under the world's rules: records are only appended between
mutations (GET handlers add or complete records, they never rename one or
change its links), and :class:`~gqlbench.mocks.engine.world.World` drops its indexes
whenever a non-GET endpoint runs, so the next question rebuilds from the
current state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

__all__ = ["TermIndex", "trigrams"]

GRAM = 3


def trigrams(text: str) -> set[str]:
    """Every ``GRAM``-character piece of ``text`` (none for shorter text)."""
    return {text[i : i + GRAM] for i in range(len(text) - GRAM + 1)}


class TermIndex:
    """Postings of one table's record terms, extended as records are appended."""

    def __init__(self, terms_of: Callable[[dict[str, Any]], Iterable[str]]) -> None:
        self.terms_of = terms_of
        self.keys: list[str] = []  # table keys in insertion order; a posting holds positions in it
        self.postings: dict[str, set[int]] = {}

    def sync(self, table: dict[str, dict[str, Any]], step: Callable[[], None] | None = None) -> None:
        """Index the records appended to ``table`` since the last call.

        ``step`` is called before each record and may raise to stop: a record's
        key is kept only once its postings are in, so the next call goes on
        where this one stopped.
        """
        new = len(table) - len(self.keys)
        if new < 0:
            raise ValueError("records left a table without a mutation; rebuild the index")
        for key in reversed(list(islice(reversed(table), new))):
            if step is not None:
                step()
            position = len(self.keys)
            for term in self.terms_of(table[key]):
                self.postings.setdefault(term, set()).add(position)
            self.keys.append(key)

    def candidates(
        self, table: dict[str, dict[str, Any]], terms: Iterable[str], step: Callable[[], None] | None = None
    ) -> list[dict[str, Any]]:
        """Records that have every term (all records when ``terms`` is empty), in insertion order."""
        self.sync(table, step)
        pieces = sorted((self.postings.get(t, set()) for t in set(terms)), key=len)
        positions: Iterable[int] = set(pieces[0]).intersection(*pieces[1:]) if pieces else range(len(self.keys))
        records = (table.get(self.keys[p]) for p in sorted(positions))
        return [r for r in records if r is not None]
