"""What stopping at the CoT answer's closing fence saves, on real runs of the first ``--n`` test samples.

Two ``gqlbench run``s of the same samples with the same backend, dtype and
settings, one with the CoT stops as shipped (the closing fence ends the
completion) and one without that stop (the old behaviour: the model writes on
to EOS or the token limit). For each: engine load time, generation + scoring
time, tokens generated, completions that hit the limit, and the process's
CPU time (user + sys of this process and its children, which is less
sensitive than wall time to other load on a shared machine). Then whether any
scored program differs between the two runs.

    .venv/bin/python bench/early_stop.py --n 16 --out bench/early_stop.json

Performance figures belong in the README, never in unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gqlbench.generators.backends.backend import Backend
from gqlbench.generators.backends.factory import parse_model_args
from gqlbench.generators.cot import CLOSING_FENCE
from gqlbench.run import runner


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (vLLM's engine process counts once it exits)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed_factory(times: dict[str, float]) -> Callable[[runner.RunSettings], Backend]:
    def build(settings: runner.RunSettings) -> Backend:
        started = time.perf_counter()
        backend = runner.load_backend(settings)
        times["load_s"] = round(time.perf_counter() - started, 1)
        return backend

    return build


def one_run(settings: runner.RunSettings, out: Path, fence_stop: bool) -> dict[str, Any]:
    shipped = runner.cot_stop
    if not fence_stop:
        runner.cot_stop = lambda: tuple(s for s in shipped() if s != CLOSING_FENCE)  # type: ignore[assignment]
    times: dict[str, float] = {}
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    try:
        outcome = runner.run(settings, runner.RunOptions(out=out, overwrite=True, quiet=True), backend_factory=timed_factory(times))
    finally:
        runner.cot_stop = shipped  # type: ignore[assignment]
    wall = time.perf_counter() - wall0
    samples = out / "samples.jsonl"
    rows = [json.loads(line) for line in samples.read_text().splitlines()] if samples.is_file() else []
    errors = out / "errors.jsonl"
    if outcome.missing and errors.is_file():
        print(f"{len(outcome.missing)} failed generations, first: {errors.read_text().splitlines()[0][:500]}")
    return {
        "fence_stop": fence_stop,
        "stop": json.loads((out / "config.json").read_text()).get("generation", {}).get("stop"),
        "load_s": times.get("load_s"),
        "generate_and_score_s": round(wall - times.get("load_s", 0.0), 1),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu_seconds() - cpu0, 1),
        "tokens_in": sum(r.get("tokens_in") or 0 for r in rows),
        "tokens_out": sum(r.get("tokens_out") or 0 for r in rows),
        "at_limit": sum(r.get("finish_reason") == "length" for r in rows),
        "missing": outcome.missing,
        "code": {r["id"]: r.get("code") for r in rows},
        "metrics": outcome.metrics.get("overall", {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--model-args", default="")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--runs", default=None, help="keep the two run folders here (default: a temporary folder)")
    args = parser.parse_args()
    settings = runner.RunSettings(
        model=args.model,
        backend=args.backend,
        prompt="cot",
        split="test",
        limit=args.n,
        execute=False,
        model_args=parse_model_args(args.model_args),
    )
    with tempfile.TemporaryDirectory(prefix="gqlbench-early-stop-") as tmp:
        root = Path(args.runs or tmp)
        runs = [one_run(settings, root / name, fence) for name, fence in (("stop", True), ("nostop", False))]
    stopped, full = runs
    changed = sorted(i for i in full["code"] if full["code"][i] != stopped["code"].get(i))
    for r in runs:
        r.pop("code")
    result = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_avg": os.getloadavg()},
        "settings": {"model": args.model, "backend": args.backend, "n": args.n, "model_args": args.model_args},
        "runs": runs,
        "tokens_saved": full["tokens_out"] - stopped["tokens_out"],
        "scored_programs_changed": changed,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
