"""The one exception type users see.

Every error a user can fix (a bad file, an unknown sample id, a missing model)
is raised as :class:`GqlbenchError` with a one-line message that names the
file, line or sample and says what to do. The CLI prints it without a
traceback and exits with status 2.
"""

from __future__ import annotations

__all__ = ["GqlbenchError"]


class GqlbenchError(Exception):
    """A problem with the user's input or environment, explained in one line."""
