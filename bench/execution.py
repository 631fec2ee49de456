"""Programs per second through the sandbox pool vs. a fresh Python process per program.

Runs the gold programs of every split (both sides do the same work: the same
worker entry point, static check, limits and runtime) and prints both rates
and their ratio, measured in the same run. The fresh-process side starts one
worker process per program, with as many running at once as the pool has
workers, so the comparison isolates what reusing workers saves.

    .venv/bin/python bench/execution.py                     # the real mock runtime
    .venv/bin/python bench/execution.py --runtime tests/mocks/echo_runtime.py:echo_runtime   # sandbox cost alone

Goal on a 2-core machine: >= 50 programs/s through the pool and >= 10x the
fresh-process rate. Figures depend on the machine and its load; this is a
script, not a test.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from gqlbench.dataset import load_samples
from gqlbench.mocks.sandbox.pool import DEFAULT_RUNTIME, Job, SandboxPool
from gqlbench.records import Trace


def gold_jobs(runtime: str) -> list[Job]:
    return [Job(code=s.gold_code, domain=s.domain, sample_id=s.id, runtime=runtime) for s in load_samples()]


def pooled(jobs: Sequence[Job], workers: int, repeat: int) -> tuple[float, float, list[Trace]]:
    """(start-up seconds, steady-state seconds, traces of the last round)."""
    started = time.perf_counter()
    with SandboxPool(workers=workers) as pool:
        pool.run_many(jobs[:workers])  # wait until every worker is up
        startup = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(repeat):
            traces = pool.run_many(jobs)
        return startup, time.perf_counter() - started, traces


def fresh(jobs: Sequence[Job], workers: int) -> float:
    def one(job: Job) -> Trace:
        with SandboxPool(workers=1) as pool:
            return pool.run(job)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as threads:
        list(threads.map(one, jobs))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", default=DEFAULT_RUNTIME, help="runtime factory 'module:function' or 'path/to/file.py:function'")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="rounds over all gold programs through the pool")
    parser.add_argument("--fresh", type=int, default=30, help="programs run with a fresh process each")
    args = parser.parse_args()

    jobs = gold_jobs(args.runtime)
    startup, pool_seconds, traces = pooled(jobs, args.workers, args.repeat)
    fresh_jobs = (jobs * (1 + args.fresh // len(jobs)))[: args.fresh]
    fresh_seconds = fresh(fresh_jobs, args.workers)

    pool_rate = len(jobs) * args.repeat / pool_seconds
    fresh_rate = len(fresh_jobs) / fresh_seconds
    outcomes = Counter(t.error.kind if t.error else "ok" for t in traces)
    print(f"runtime: {args.runtime}   workers: {args.workers}   gold programs: {len(jobs)}")
    print(f"outcomes per round: {dict(outcomes.most_common())}")
    print(f"pool start-up (once):     {startup:7.2f} s")
    print(f"pool:          {len(jobs) * args.repeat:5d} programs in {pool_seconds:6.2f} s = {pool_rate:7.1f} programs/s")
    print(f"fresh process: {len(fresh_jobs):5d} programs in {fresh_seconds:6.2f} s = {fresh_rate:7.1f} programs/s")
    print(f"speed-up: {pool_rate / fresh_rate:.1f}x")


if __name__ == "__main__":
    main()
