"""The one exception type users see.

Every error a user can fix (a bad file, an unknown sample id, a missing model)
is raised as :class:`GqlbenchError` with a one-line message that names the
file, line or sample and says what to do. The CLI prints it without a
traceback and exits with status 2.
"""

from __future__ import annotations

import difflib  # at import: a sandbox worker may import nothing once its set-up is over (mocks/sandbox/limits.py)
from collections.abc import Iterable

__all__ = ["GqlbenchError", "closest"]


class GqlbenchError(Exception):
    """A problem with the user's input or environment, explained in one line."""


def closest(name: str, options: Iterable[str], n: int = 3, cutoff: float = 0.5) -> list[str]:
    """Up to ``n`` of ``options`` nearest to ``name``, best first: the "did you mean" of every message.

    One helper for the catalog, the metrics and the mocks, so a misspelt
    function, field, parameter or domain is matched the same way everywhere.
    """
    return difflib.get_close_matches(name, list(options), n=n, cutoff=cutoff)
