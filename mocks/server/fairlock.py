"""A lock handed over in the order it was asked for.

The mock server runs the world's handlers one at a time. With
:class:`threading.Lock` a request of many fields took the lock back the moment
it let it go (the waiting thread wakes up too late), so another client's
one-field query could wait for the whole of it; a :class:`FairLock` makes it
wait for the field running now at most.
"""

from __future__ import annotations

import threading
from types import TracebackType

__all__ = ["FairLock"]


class FairLock:
    """A first-come, first-served lock (a ticket lock); not reentrant."""

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self._next_ticket = 0
        self._serving = 0
        self._abandoned: set[int] = set()  # tickets of waits ended by an exception: skipped, not waited for

    def acquire(self) -> None:
        """Wait until every thread that asked before has had its turn."""
        with self._condition:
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                self._condition.wait_for(lambda: self._serving == ticket)
            except BaseException:
                if self._serving == ticket:
                    self._advance()
                else:
                    self._abandoned.add(ticket)
                raise

    def release(self) -> None:
        """Hand the lock to the thread that has waited longest."""
        with self._condition:
            self._advance()

    def _advance(self) -> None:
        self._serving += 1
        while self._serving in self._abandoned:
            self._abandoned.discard(self._serving)
            self._serving += 1
        self._condition.notify_all()

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        self.release()
