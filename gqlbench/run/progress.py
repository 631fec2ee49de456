"""The progress bar of a run: completions written, and what moves inside a batch before they are.

The bar counts completions once they are scored and written, so a resumed
run starts where it stopped. Its postfix says what moves before that:
``batch``, the requests finished of the backend call now running (from a
backend that reports progress: :mod:`gqlbench.generators.backends.progress`),
``generated``, the completions handed to the run in this session,
``tok/s``, this session's output tokens per second, those of requests still
in the engine included, and ``failed``, the failed generations. The bar is
drawn on the console stream the run is given, and not at all with ``--quiet``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any

from gqlbench.generators.backends.progress import BatchProgress
from gqlbench.records import Completion

__all__ = ["RunBar"]

REFRESH_S = 0.5  # at most this often for token counts alone; a finished request always shows at once


class RunBar:
    """The run's tqdm bar and the counts behind its postfix."""

    def __init__(
        self,
        total: int,
        initial: int,
        pending: int,
        *,
        quiet: bool,
        stream: IO[str] | None = None,
        unit: str = "sample",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=total, initial=initial, unit=unit, disable=quiet, file=stream or sys.stderr, dynamic_ncols=True, desc="gqlbench run"
        )
        self.pending = pending
        self.clock = clock
        self.started = clock()
        self.completions = 0  # handed to the run in this session, scored or not yet
        self.tokens_out = 0  # theirs
        self.failed = 0
        self.calls: dict[float, BatchProgress] = {}  # the backend's calls of this session not yet folded into closed_tokens
        self.closed_tokens = 0
        self.latest: BatchProgress | None = None
        self._shown_at = float("-inf")

    def written(self) -> None:
        """A completion was scored and written."""
        self.bar.update(1)
        self._show(refresh=False)

    def count_failure(self) -> None:
        """A generation failed."""
        self.failed += 1
        self._show(refresh=False)

    def generated(self, completion: Completion) -> None:
        """The backend handed over ``completion``, before its batch is scored."""
        self.completions += 1
        self.tokens_out += completion.tokens_out or 0
        self._show(refresh=True)

    def progressed(self, progress: BatchProgress) -> None:
        """The backend's call moved (a listener for ``on_progress``); a finished request shows at once."""
        latest = self.latest
        moved = latest is None or (progress.started, progress.done) != (latest.started, latest.done)
        if progress.started not in self.calls:  # a new call: fold the finished ones
            for started, call in list(self.calls.items()):
                if call.done >= call.total:
                    self.closed_tokens += call.tokens_out
                    del self.calls[started]
        self.calls[progress.started] = progress
        self.latest = progress
        if moved or self.clock() - self._shown_at >= REFRESH_S:
            self._show(refresh=True)

    def fields(self) -> dict[str, Any]:
        """The postfix: the current call's requests (once a backend reported one), then the session's counts."""
        reported = self.closed_tokens + sum(call.tokens_out for call in self.calls.values())
        rate = max(reported, self.tokens_out) / max(self.clock() - self.started, 1e-9)
        batch = {"batch": f"{self.latest.done}/{self.latest.total} requests"} if self.latest is not None else {}
        return {**batch, "generated": f"{self.completions}/{self.pending}", "tok/s": f"{rate:.1f}", "failed": self.failed}

    def close(self) -> None:
        self.bar.close()

    def _show(self, refresh: bool) -> None:
        self._shown_at = self.clock()
        self.bar.set_postfix(self.fields(), refresh=refresh)
