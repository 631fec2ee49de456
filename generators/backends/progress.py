"""Progress inside one ``generate`` call: requests finished and output tokens, told to whoever listens.

A run's progress bar counts samples once they are scored and written, so on a
slow machine it stood still for as long as one batch generated (minutes on a
CPU). A backend with an ``on_progress`` attribute tells that listener how far
its current call is, as :class:`BatchProgress` records: at the start, at each
finished request and, where it is cheap, at each generation step. The run
shows them (:mod:`gqlbench.run.generate`); with no listener (``None``, library
use) nothing is counted or shown.

vLLM reports through the public ``use_tqdm`` argument of ``LLM.generate``,
which takes a callable building a tqdm-like bar: :func:`engine_bar` builds
one that forwards to the listener instead of drawing vLLM's own bar on stderr.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["BatchProgress", "ProgressListener", "CallProgress", "engine_bar", "listening"]


@dataclass(frozen=True)
class BatchProgress:
    """How far one ``generate`` call is."""

    started: float  # ``time.perf_counter()`` when the call began: tells calls apart
    done: int  # requests of the call that finished (failed ones too)
    total: int  # requests in the call
    tokens_out: int  # output tokens the call produced so far
    elapsed_s: float  # since the call began

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_out / self.elapsed_s if self.elapsed_s > 0 else 0.0


ProgressListener = Callable[[BatchProgress], None]


class CallProgress:
    """One call's progress, told to ``listener`` as it moves (nothing at all when the listener is None)."""

    def __init__(self, listener: ProgressListener | None, total: int, clock: Callable[[], float] = time.perf_counter) -> None:
        self.listener = listener
        self.total = total
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.tokens_out = 0
        self._tell()

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def finished(self, requests: int = 1, tokens_out: int = 0) -> None:
        """``requests`` more requests ended, with ``tokens_out`` output tokens between them."""
        self.settle(self.done + requests, self.tokens_out + tokens_out)

    def generated(self, tokens_out: int) -> None:
        """A generation step produced ``tokens_out`` tokens of requests still running."""
        if tokens_out:
            self.settle(self.done, self.tokens_out + tokens_out)

    def settle(self, done: int, tokens_out: int) -> None:
        """The call's counts as they now stand (exact ones at its end replace estimates)."""
        self.done, self.tokens_out = min(done, self.total), tokens_out
        self._tell()

    def _tell(self) -> None:
        if self.listener is not None:
            self.listener(BatchProgress(self.started, self.done, self.total, self.tokens_out, self.elapsed_s))


# vLLM's bar postfix: "est. speed input: 123.45 toks/s, output: 6.78 toks/s"
_OUTPUT_SPEED = re.compile(r"output:\s*([0-9.]+)\s*toks/s")


class _EngineBar:
    """The parts of a tqdm bar vLLM's ``LLM.generate`` uses, forwarded to a :class:`CallProgress`.

    vLLM builds a bar twice per call: around the prompts it renders (an
    iterable, passed through untouched) and for its engine loop (``total=`` the
    requests), where each finished request sets ``postfix`` to its estimated
    speeds (tokens so far / ``format_dict["elapsed"]``) and then calls
    ``update(n)`` with the request's completion count. One ``update`` is one
    request; the output tokens are the output speed times the elapsed time this
    bar gave vLLM (the run replaces the estimate by the exact count when the call ends).
    """

    def __init__(self, call: CallProgress, iterable: Iterable[Any] | None = None, *_: Any, **kwargs: Any) -> None:
        self._call = call
        self._iterable = iterable
        self.total = kwargs.get("total")
        self.n = 0
        self._elapsed = 0.0
        self._tokens_out = call.tokens_out
        self._postfix = str(kwargs.get("postfix") or "")

    def __iter__(self) -> Iterator[Any]:
        return iter(self._iterable if self._iterable is not None else ())

    @property
    def format_dict(self) -> dict[str, Any]:
        self._elapsed = max(self._call.elapsed_s, 1e-6)
        return {"elapsed": self._elapsed, "n": self.n, "total": self.total}

    @property
    def postfix(self) -> str:
        return self._postfix

    @postfix.setter
    def postfix(self, text: Any) -> None:
        self._postfix = str(text)
        speed = _OUTPUT_SPEED.search(self._postfix)
        if speed is not None and self._elapsed:
            self._tokens_out = round(float(speed.group(1)) * self._elapsed)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._call.settle(self._call.done + 1, self._tokens_out)

    def refresh(self, *_: Any, **__: Any) -> None:
        pass

    def close(self) -> None:
        pass


def engine_bar(call: CallProgress) -> Callable[..., Any]:
    """What to pass as vLLM's ``use_tqdm``: bars that tell ``call`` each finished request and its tokens."""
    return lambda *args, **kwargs: _EngineBar(call, *args, **kwargs)


@contextlib.contextmanager
def listening(backend: object, listener: ProgressListener | None) -> Iterator[bool]:
    """While the block runs, ``backend`` tells ``listener`` its progress; yields whether it reports progress at all.

    A backend reports progress when it has an ``on_progress`` attribute; it is
    set back to ``None`` after the block, so later library use shows nothing.
    """
    reports = listener is not None and hasattr(backend, "on_progress")
    if not reports:
        yield False
        return
    backend.on_progress = listener  # type: ignore[attr-defined]
    try:
        yield True
    finally:
        backend.on_progress = None  # type: ignore[attr-defined]
