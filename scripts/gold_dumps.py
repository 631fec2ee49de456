"""Dump what every bundled gold program does on the mock worlds, to prove a refactor of the engine changed nothing.

Every gold program of the human splits (``data/graphqlrestbench``) and of the
synthetic set (``data/synthetic``) runs in the sandbox on a fresh world (seed
0), as ``gqlbench exec`` runs it, with one difference: each call's record also
carries the SHA-256 of its whole response as the mock returned it (field
order included), so a change in any byte of any answer shows up, not only in
the ids a trace keeps. One JSON line per program: its calls, errors, stdout
and the final world digest.

    python scripts/gold_dumps.py dump /tmp/before.jsonl     # on the code before the change
    python scripts/gold_dumps.py dump /tmp/after.jsonl      # after it
    python scripts/gold_dumps.py compare /tmp/before.jsonl /tmp/after.jsonl

``compare`` names each program whose dump differs and exits 1 when any does.
``--data FOLDER`` (repeatable) adds the gold programs of another sample
folder (``test.jsonl``, ``train.jsonl``), e.g. an earlier synthetic set taken
out of git history, as fixed inputs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from gqlbench.dataset import load_samples
from gqlbench.mocks.endpoints import Runtime
from gqlbench.mocks.sandbox.pool import Job, SandboxPool

ROOT = Path(__file__).resolve().parent.parent
DATA = (ROOT / "data" / "graphqlrestbench", ROOT / "data" / "synthetic")


class HashingRuntime(Runtime):
    """The default runtime, with each response's SHA-256 appended to the call's ``response_ids``."""

    def _run(self, function: str, endpoint: Any, arguments: dict[str, Any]) -> Any:
        data = super()._run(function, endpoint, arguments)
        self._last = "sha256:" + hashlib.sha256(json.dumps(data, default=str).encode()).hexdigest()
        return data

    def call(self, function: str, *args: Any, **kwargs: Any) -> Any:
        self._last = None
        try:
            return super().call(function, *args, **kwargs)
        finally:
            if self._last is not None and self._calls and self._calls[-1].error is None:
                self._calls[-1].response_ids.append(self._last)


def make_runtime(domain: str, seed: int = 0, request: str = "") -> HashingRuntime:
    """The sandbox worker's entry point for this script's runtime."""
    return HashingRuntime(domain, seed, request=request)


def dump(out: Path, extra: tuple[Path, ...] = ()) -> int:
    named = [(f"{folder.name}:{s.id}", s) for folder in (*DATA, *extra) for s in load_samples(folder) if s.gold_code.strip()]
    samples = [s for _, s in named]
    runtime = f"{Path(__file__).resolve()}:make_runtime"
    jobs = [Job(code=s.gold_code, domain=s.domain, seed=0, sample_id=s.id, runtime=runtime, request=s.utterance) for s in samples]
    with SandboxPool(workers=2) as pool:
        traces = pool.run_many(jobs)
    with out.open("w", encoding="utf-8") as f:
        for (name, _), trace in zip(named, traces, strict=True):
            row = {"program": name, **trace.model_dump(mode="json", exclude={"elapsed_s"})}
            f.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"{len(samples)} gold programs dumped to {out}")
    return 0


def compare(before: Path, after: Path) -> int:
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    if len(old) != len(new):
        print(f"{len(old)} programs before, {len(new)} after")
        return 1
    differing = [json.loads(a)["program"] for a, b in zip(old, new, strict=True) if a != b]
    for sample in differing:
        print(f"differs: {sample}")
    print(f"{len(old) - len(differing)} of {len(old)} gold programs identical")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("dump")
    one.add_argument("out", type=Path)
    one.add_argument("--data", type=Path, action="append", default=[], help="another sample folder whose gold programs to add")
    pair = sub.add_parser("compare")
    pair.add_argument("before", type=Path)
    pair.add_argument("after", type=Path)
    args = parser.parse_args()
    return dump(args.out, tuple(args.data)) if args.command == "dump" else compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
