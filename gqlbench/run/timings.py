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
    "startup",
    "engine_load",
    "prompts",
    "generation",
    "scoring",
    "execution",
    "writing",
    "engine_close",
)
_LABELS = {"startup": "start-up", "engine_load": "engine load", "engine_close": "engine close"}


class StageClock:
    """Seconds per stage and token counts, accumulated over a run; ``total_s`` is the wall time since creation."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.tokens = {"tokens_in": 0, "tokens_out": 0}
        self.engine: dict[str, int] = {}  # the engine's own counters over this run (prefix-cache hits, preemptions)

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

    def add_engine_counters(self, before: dict[str, int], after: dict[str, int]) -> None:
        """Add what the engine counted between two readings (:func:`gqlbench.generators.backends.backend.engine_counters`)."""
        for key, value in after.items():
            self.engine[key] = self.engine.get(key, 0) + value - before.get(key, 0)

    def to_dict(self) -> dict[str, Any]:
        """``{"<stage>_s": seconds, ..., "total_s": wall, "tokens_in": n, "tokens_out": n}``, seconds rounded to ms.

        With an engine that counts, ``"engine"`` holds its counters over the run.
        """
        figures: dict[str, Any] = {f"{name}_s": round(value, 3) for name, value in self.seconds.items()}
        figures["total_s"] = round(time.perf_counter() - self.started, 3)
        figures |= self.tokens
        if self.engine:
            figures["engine"] = dict(self.engine)
        return figures


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
    line = f"time: {', '.join(parts)}; total {float(timings.get('total_s', 0.0)):.1f} s"
    return line + _engine_note(timings.get("engine") or {})


def _engine_note(counters: dict[str, int]) -> str:
    """What the engine's counters say about the speed: prompt share found in the prefix cache, preemptions."""
    notes = []
    queried = counters.get("prefix_cache_queried_tokens", 0)
    if queried:
        notes.append(f"prefix cache {counters.get('prefix_cache_hit_tokens', 0) / queried:.0%} of prompt tokens")
    preempted = counters.get("preemptions", 0)
    if preempted:
        notes.append(
            f"{preempted} preemptions (KV cache full: prompts computed again; "
            "a larger kv_cache_memory_bytes or a smaller --batch-size avoids them)"
        )
    return f"; {'; '.join(notes)}" if notes else ""
