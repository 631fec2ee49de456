"""Where a run's wall time goes: one clock per run, split by stage.

A run is start-up (planning, the run folder, config.json), loading the
engine, building prompts (shots, context budget), generation (prefill and
decode, with the token counts), static scoring, sandboxed execution, writing
the results, and closing the engine. Knowing which one dominates on a given
machine is what tells a user whether a faster CPU, a GPU or fewer shots will
help; the stages are recorded in ``results.json`` (``timings``) and printed
as one line at the end of ``gqlbench run``. They cover one invocation: a
resumed run times only what it did itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["STAGES", "StageClock", "format_timings"]

STAGES: tuple[str, ...] = (
    "startup", "engine_load", "prompts", "generation", "scoring", "execution", "writing", "engine_close",
)
_LABELS = {"startup": "start-up", "engine_load": "engine load", "engine_close": "engine close"}


class StageClock:
    """Seconds per stage and token counts, accumulated over a run; ``total_s`` is the wall time since creation."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.tokens = {"tokens_in": 0, "tokens_out": 0}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the body as ``name`` (one of :data:`STAGES`); nested stages are the caller's mistake."""
        if name not in self.seconds:
            raise ValueError(f"unknown stage {name!r}; one of {', '.join(STAGES)}")
        began = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - began

    def mark(self, name: str) -> None:
        """Add to ``name`` the wall time so far that no stage has claimed (e.g. start-up, up to the engine load)."""
        self.seconds[name] += max(0.0, time.perf_counter() - self.started - sum(self.seconds.values()))

    def count(self, tokens_in: int, tokens_out: int) -> None:
        self.tokens["tokens_in"] += tokens_in
        self.tokens["tokens_out"] += tokens_out

    def to_dict(self) -> dict[str, Any]:
        """``{"<stage>_s": seconds, ..., "total_s": wall, "tokens_in": n, "tokens_out": n}``, seconds rounded to ms."""
        figures: dict[str, Any] = {f"{name}_s": round(value, 3) for name, value in self.seconds.items()}
        figures["total_s"] = round(time.perf_counter() - self.started, 3)
        return figures | self.tokens


def format_timings(timings: dict[str, Any]) -> str:
    """One line: each stage that took time, the generation's tokens, and the wall time."""
    parts = []
    for name in STAGES:
        seconds = float(timings.get(f"{name}_s", 0.0))
        if seconds < 0.05 and name != "generation":
            continue
        label = _LABELS.get(name, name)
        if name == "generation":
            label += f" ({timings.get('tokens_in', 0):,} tokens in, {timings.get('tokens_out', 0):,} out)"
        parts.append(f"{label} {seconds:.1f} s")
    return f"time: {', '.join(parts)}; total {float(timings.get('total_s', 0.0)):.1f} s"
