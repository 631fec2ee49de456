"""Count the samples whose gold makes a write that changes nothing in the mock world (issue #32, round 2).

    python scripts/synthetic_idle_writes.py data/synthetic/test.jsonl [more.jsonl ...]

A write is idle when the world digest after it equals the one before it
(:func:`gqlbench.synthetic.by_intent.idle_write`): following an artist already
followed, unsaving a song not saved. The datasheet quotes these counts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gqlbench.mocks.sandbox.pool import SandboxPool
from gqlbench.synthetic.by_intent import idle_write


def main(paths: list[str]) -> None:
    with SandboxPool(workers=1) as pool:
        for path in paths:
            rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
            writes = idle = 0
            for row in rows:
                world_seed = row.get("synthetic", {}).get("world_seed", 0)
                found, runs = idle_write(row["output"], row["utterance"], row["domain"], pool, world_seed)
                writes += runs > 0
                idle += found
            print(f"{path} ({len(rows)} items): {writes} with a write, {idle} with a write that changes nothing")


if __name__ == "__main__":
    main(sys.argv[1:])
