"""Count the patterns the independent readings of issue #32 (rounds 1 and 2) found, per samples file (the datasheet quotes them).

    python scripts/synthetic_patterns.py data/synthetic/test.jsonl [more.jsonl ...]

The patterns and how each is detected: :mod:`gqlbench.synthetic.patterns`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gqlbench.synthetic.patterns import PATTERNS, count


def main(paths: list[str]) -> None:
    for path in paths:
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        counts = count(rows)
        print(f"{path} ({len(rows)} items): " + ", ".join(f"{p} {counts[p]}" for p in PATTERNS))


if __name__ == "__main__":
    main(sys.argv[1:])
