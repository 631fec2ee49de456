"""The harness's own time per tool-calling turn (tool execution, provenance) as a fraction of a model turn.

Runs ``--prompt tools`` on the test split against the scripted server of the
tests (tests/tool_server.py: it follows each sample's gold program and answers
at once, so almost all the time left is the harness's). Each turn of a sample
that called tools costs the harness: turning the calls into program lines
(provenance: looking every argument value up in the earlier responses) and
running them on the sample's mock world in the sandbox. Both are timed by
wrapping ``gqlbench.generators.tools._prepare`` and ``_run_turn``; the first
batch (sandbox start-up) is reported apart. The fraction is taken of a model
turn of ``--model-turn-s`` seconds, or of the mean turn of a real tools run
(``--run DIR``: its samples' ``latency_s`` over their model turns).

    .venv/bin/python bench/tools_overhead.py --limit 40
    .venv/bin/python bench/tools_overhead.py --run runs/<a real tools run>

Goal: the harness stays a small fraction (< 10%) of a model turn. Figures
depend on the machine and its load; this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gqlbench.generators.tools as tools
from gqlbench.run.runner import RunOptions, RunSettings, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from tool_server import ToolServer  # noqa: E402


class Timer:
    """Seconds spent inside a wrapped function, per call."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.calls.append(time.perf_counter() - started)

        return timed


def real_turn_seconds(run_dir: Path) -> float:
    """Mean seconds per model turn of a real tools run (a turn: one reply, with or without tool calls)."""
    latency = turns = 0.0
    for line in map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines()):
        steps = line.get("steps") or []
        latency += line.get("latency_s") or 0.0
        turns += max(1, sum(1 for s in steps if s.get("tokens_in") or s.get("tokens_out")))  # a turn's first step carries its tokens
    if not turns:
        raise SystemExit(f"{run_dir}: no samples")
    return latency / turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=40, help="samples of the test split")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--model-turn-s", type=float, default=1.0, help="a model turn's seconds, when no --run is given")
    parser.add_argument("--run", type=Path, help="a real --prompt tools run folder: its mean turn is the reference")
    args = parser.parse_args()
    reference = real_turn_seconds(args.run) if args.run else args.model_turn_s

    prepare, turn = Timer(), Timer()
    turns_made: list[int] = []
    original_run_turn = tools._run_turn

    def counted_run_turn(runner: Any, batch: Any, max_chars: int) -> None:
        turns_made.append(len(batch))
        original_run_turn(runner, batch, max_chars)

    tools._prepare = prepare.wrap(tools._prepare)  # type: ignore[assignment]
    tools._run_turn = turn.wrap(counted_run_turn)  # type: ignore[assignment]
    server = ToolServer("gold")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = RunSettings(
                model="m", backend="openai", base_url=server.url, prompt="tools", split="test", limit=args.limit, execute=False
            )
            started = time.perf_counter()
            run(settings, RunOptions(runs_root=Path(tmp), quiet=True, batch_size=args.batch_size))
            wall = time.perf_counter() - started
    finally:
        server.close()

    first, rest = turn.calls[:1], turn.calls[1:]
    sample_turns = sum(turns_made[1:])
    harness = sum(rest) / sample_turns if sample_turns else 0.0
    provenance = sum(prepare.calls) / max(1, len(prepare.calls))
    print(
        f"{args.limit} samples, {sum(turns_made)} sample turns with tool calls, {len(prepare.calls)} tool calls, "
        f"{len(server.bodies)} server requests; wall {wall:.1f} s"
    )
    print(f"first batch (sandbox start-up included): {first[0] if first else 0.0:.3f} s for {turns_made[0] if turns_made else 0} turns")
    print(f"harness per turn (tool execution + provenance), after the first batch: {harness * 1000:.1f} ms")
    print(f"provenance per tool call: {provenance * 1000:.2f} ms")
    print(
        f"reference model turn: {reference:.3f} s ({'mean of ' + str(args.run) if args.run else '--model-turn-s'}); "
        f"harness = {harness / reference:.1%} of a turn"
    )


if __name__ == "__main__":
    main()
