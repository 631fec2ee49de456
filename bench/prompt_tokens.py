"""Prompt sizes of each harder setting on a split, in the bundled model's tokens (no engine is loaded).

Every prompt is built exactly as ``gqlbench run`` builds it (CoT, the default
shots, the prompt setting), rendered with the model's chat template and
counted by its tokenizer, first with an unlimited context (the full prompt:
how much a setting adds), then against the model's real context minus the
CoT generation budget: how many samples lose shots or descriptions and how
many cannot fit at all.

    .venv/bin/python bench/prompt_tokens.py --model smollm2 --out bench/prompt_tokens.json

Performance figures belong in the README, never in unit tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from pathlib import Path
from typing import Any, cast

from gqlbench.dry_run import TokenCounter, token_counter
from gqlbench.generate import Generator
from gqlbench.generators.backend import Backend
from gqlbench.generators.budget import PromptTooLong
from gqlbench.run_config import RunSettings
from gqlbench.runner import plan_samples

SETTINGS: list[dict[str, str]] = [
    {},
    {"functions": "distractors:5"},
    {"functions": "distractors:10"},
    {"functions": "distractors:10:connected"},
    {"functions": "domain"},
    {"obfuscate": "all"},
    {"functions": "distractors:10", "obfuscate": "all"},
    {"schema": "types-only"},
    {"schema": "none"},
]


def measure(base: RunSettings, counter: TokenCounter, change: dict[str, str]) -> dict[str, Any]:
    """Token counts of every sample's prompt under ``change``, unlimited and within the real context."""
    settings = dataclasses.replace(base, **change)
    samples = plan_samples(settings)
    unlimited = dataclasses.replace(counter, max_model_len=10**9)
    full = Generator(settings, cast(Backend, unlimited), None, lambda: None)  # type: ignore[arg-type, return-value]
    real = Generator(settings, cast(Backend, counter), None, lambda: None)  # type: ignore[arg-type, return-value]
    sizes, trimmed, too_long = [], 0, 0
    for sample in samples:
        sizes.append(full.prompt(sample).n_tokens or 0)
        try:
            trimmed += bool(real.prompt(sample).dropped)
        except PromptTooLong:
            too_long += 1
    label = " ".join(f"--{k} {v}" for k, v in change.items()) or "(paper: gold)"
    return {"setting": label, "n": len(sizes), "mean": round(statistics.mean(sizes)), "max": max(sizes),
            "trimmed": trimmed, "too_long": too_long}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--split", default="test")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    base = RunSettings(model=args.model, split=args.split)
    counter = token_counter(base)
    rows = [measure(base, counter, change) for change in SETTINGS]
    reserve = base.new_tokens
    print(f"{counter.how}; context {counter.max_model_len}, {reserve} kept for the answer")
    print("| setting | mean | max | samples trimmed | samples that cannot fit |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| `{row['setting']}` | {row['mean']} | {row['max']} | {row['trimmed']} | {row['too_long']} |")
    if args.out:
        args.out.write_text(json.dumps({"tokens": counter.how, "context": counter.max_model_len, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
