"""Build (``build``) or describe (``stats``) the bundled verified set ``data/synthetic/``.

``build`` runs ``generate_samples`` per domain with the seeds below (test
first; train then avoids every test skeleton, and keeps lines that share
neither utterance nor program with test) and writes both files; it prints the
drop counts and the seconds it took. Same command, same bytes.
``stats`` prints the datasheet's distributions (shape, calls, depth, edges per
domain) of the files as they are, so the README quotes measured numbers.

    python scripts/synthetic_set.py build [--force]
    python scripts/synthetic_set.py stats
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "synthetic"
DOMAINS = ("spotify", "tmdb")
TEST = {"n": 250, "seed": 1}
TRAIN = {"n": {"spotify": 60, "tmdb": 80}, "seed": 2}  # spotify has few skeletons left once test took its own
LABELS = ("shape", "calls", "depth", "edges")


def _normalize(text: str) -> str:
    from gqlbench.synthetic.human import normalize

    return normalize(text)


def build(force: bool = False) -> None:
    from gqlbench.synthetic.generate import generate_samples

    if not force and any((OUT / f"{s}.jsonl").exists() for s in ("test", "train")):
        sys.exit(f"{OUT}: test.jsonl or train.jsonl exists; pass --force to rebuild")
    started = time.perf_counter()
    test, train = [], []
    for domain in DOMAINS:
        made = generate_samples(domain, TEST["n"], TEST["seed"])
        print(f"test {domain}: {len(made.rows)} kept, dropped {dict(made.drops)}, {made.runs} sandbox runs")
        test += made.rows
    from gqlbench.synthetic.by_intent import skeleton

    texts = {_normalize(r["utterance"]) for r in test}
    codes = {r["output"] for r in test}
    avoid = {skeleton(r["output"]) for r in test}
    for domain in DOMAINS:
        made = generate_samples(domain, TRAIN["n"][domain], TRAIN["seed"], avoid_skeletons=avoid)
        fresh = [r for r in made.rows if _normalize(r["utterance"]) not in texts and r["output"] not in codes]
        print(f"train {domain}: {len(made.rows)} kept, {len(made.rows) - len(fresh)} shared with test, dropped {dict(made.drops)}")
        train += fresh
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rows in (("test", test), ("train", train)):
        (OUT / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(test)} test and {len(train)} train samples in {time.perf_counter() - started:.1f} s")


def stats() -> None:
    for split in ("test", "train"):
        rows = [json.loads(line) for line in (OUT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]
        print(f"## {split}: {len(rows)} samples")
        for domain in (*DOMAINS, "all"):
            mine = [r for r in rows if domain in ("all", r["domain"])]
            parts = []
            for label in LABELS:
                counts = Counter(r["synthetic"][label] for r in mine)
                parts.append(f"{label} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
            print(f"- {domain} ({len(mine)}): " + "; ".join(parts))


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "build":
        build(force="--force" in sys.argv)
    elif command == "stats":
        stats()
    else:
        sys.exit(__doc__)
