"""Seconds for one tool-calling turn of N calls on the mock world: a sandbox job per call vs. one job per turn.

Until issue #34, each call of a turn was its own sandbox job that replayed
the sample's earlier calls on a fresh world, so a turn of N calls ran
N * (N + 1) / 2 statements in N jobs. Now a turn is one job (``Job.steps``):
the earlier calls are replayed once and the turn's calls run after them in
the same world, each reported. Both ways run here side by side, on the same
sandbox pool and the same calls (``GET_search`` on the Spotify world, the
first call of test/0's gold program):

- *a job per call* (main's way, as ``run_calls`` ran it): call k is
  ``MockObserver.observe_many([(sample, calls[:k], calls[k])])``, the same
  job main's tool loop sent: the k earlier calls replayed, then call k;
- *a job per turn*: ``MockObserver.run_turns([(sample, [], calls)])``;
- *end to end*: ``run_tools`` with a scripted backend that makes the N calls
  in one turn and then answers (the tool loop, provenance and the sandbox),
  which is the figure to compare with main's own run (see docs/performance.md).

    .venv/bin/python bench/tool_turn.py
    .venv/bin/python bench/tool_turn.py --calls 8,16,32 --rounds 3

Figures depend on the machine and its load; this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence

from gqlbench.dataset import get_sample
from gqlbench.generators.backends.backend import GenerationConfig
from gqlbench.generators.tools import ToolCall, ToolReply, ToolRequest, run_tools, tools_messages
from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.records import Prompt, Sample
from gqlbench.run.observers import MockObserver

ARGUMENTS = {"q": "Mariah Carey", "type": "track"}


class OneTurn:
    """A tool backend that makes ``calls`` calls of ``GET_search`` in its first turn, then answers."""

    name = "one-turn"
    max_model_len = 32768

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def generate_tools(self, requests: Sequence[ToolRequest], config: GenerationConfig) -> Iterator[ToolReply]:
        for request in requests:
            called = any(m["role"] == "tool" for m in request.messages)
            calls = () if called else tuple(ToolCall(f"c{i}", "GET_search", json.dumps(ARGUMENTS)) for i in range(self.calls))
            yield ToolReply(request.sample_id, "Done." if called else "", calls)


def per_call(observer: MockObserver, sample: Sample, lines: list[str]) -> None:
    for k, line in enumerate(lines):
        observer.observe_many([(sample, lines[:k], line)])


def per_turn(observer: MockObserver, sample: Sample, lines: list[str]) -> None:
    observer.run_turns([(sample, [], lines)])


def end_to_end(observer: MockObserver, sample: Sample, calls: int) -> None:
    prompt = Prompt(sample_id=sample.id, style="tools", messages=tools_messages(sample))
    (completion,) = run_tools([(sample, prompt)], OneTurn(calls), GenerationConfig(), observer, max_steps=3)
    assert completion.finish_reason == "final" and sum(s.observation is not None for s in completion.steps) == calls


def seconds(work: Callable[[], None], rounds: int) -> float:
    """The median of ``rounds`` timings of ``work``."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", default="8,16,32", help="calls per turn, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="timings per figure (the median is shown)")
    args = parser.parse_args()
    sample = get_sample("test/0")
    line = f"response_obj = GET_search(q={ARGUMENTS['q']!r}, type={ARGUMENTS['type']!r})"
    with SandboxPool(workers=1, wall_seconds=600, cpu_seconds=600) as pool:
        observer = MockObserver(pool=lambda: pool)
        per_turn(observer, sample, [line])  # start the worker and build the world's schema once
        print("| calls in the turn | a job per call (main) | a job per turn | ratio | end to end (run_tools) |")
        print("|---|---|---|---|---|")
        for calls in map(int, args.calls.split(",")):
            print(row(pool, sample, line, calls, args.rounds))


def row(pool: SandboxPool, sample: Sample, line: str, calls: int, rounds: int) -> str:
    """One line of the table: a turn of ``calls`` calls of ``line`` each way, a fresh observer each time (nothing remembered)."""
    lines = [line] * calls
    before = seconds(lambda: per_call(MockObserver(pool=lambda: pool), sample, lines), rounds)
    after = seconds(lambda: per_turn(MockObserver(pool=lambda: pool), sample, lines), rounds)
    whole = seconds(lambda: end_to_end(MockObserver(pool=lambda: pool), sample, calls), rounds)
    return f"| {calls} | {before:.2f} s | {after:.2f} s | **{before / after:.1f}x** | {whole:.2f} s |"


if __name__ == "__main__":
    main()
