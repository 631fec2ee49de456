"""Prompt sizes of each harder setting on a split, in the bundled model's tokens (no engine is loaded).

Every prompt is built exactly as ``gqlbench run`` builds it (CoT, the default
shots, the prompt setting), rendered with the model's chat template and
counted by its tokenizer, first with an unlimited context (the full prompt:
how much a setting adds), then against the model's real context minus the
CoT generation budget: how many samples lose shots or descriptions and how
many cannot fit at all.

    .venv/bin/python bench/prompt_tokens.py --model smollm2 --out bench/prompt_tokens.json

``--prefix`` instead counts, per shot rule and domain, the prompt tokens a run
sends (within the real context) and how many of them repeat the start of an
earlier prompt of the run, which a perfect prefix cache would not compute:

    .venv/bin/python bench/prompt_tokens.py --model smollm2 --prefix

Performance figures belong in the README, never in unit tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from pathlib import Path
from typing import Any, cast

from gqlbench.generators.backends.backend import Backend
from gqlbench.generators.budget import PromptTooLong
from gqlbench.run.config import RunSettings
from gqlbench.run.dry_run import TokenCounter, token_counter
from gqlbench.run.generate import Generator
from gqlbench.run.runner import plan_samples

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
    return {
        "setting": label,
        "n": len(sizes),
        "mean": round(statistics.mean(sizes)),
        "max": max(sizes),
        "trimmed": trimmed,
        "too_long": too_long,
    }


def prefix_sharing(base: RunSettings, counter: TokenCounter, rule: str) -> list[dict[str, Any]]:
    """Per domain under shot rule ``rule``: prompts, tokens sent, tokens all prompts share, tokens a perfect prefix cache skips."""
    from gqlbench.generators.backends.models import encode_prompt
    from gqlbench.generators.backends.prefix import common_prefix_length

    settings = dataclasses.replace(base, shot_rule=rule)
    generator = Generator(settings, cast(Backend, counter), None, lambda: None)  # type: ignore[arg-type, return-value]
    by_domain: dict[str, list[list[int]]] = {}
    for sample in plan_samples(settings):
        try:
            text = generator.prompt(sample).text
        except PromptTooLong:
            continue
        by_domain.setdefault(sample.domain, []).append(list(encode_prompt(counter.tokenizer, text)))
    rows = []
    for domain, prompts in by_domain.items():
        skipped = sum(max((common_prefix_length(p, q) for q in prompts[:i]), default=0) for i, p in enumerate(prompts))
        common = min(common_prefix_length(prompts[0], p) for p in prompts)
        sent = sum(map(len, prompts))
        rows.append(
            {
                "rule": rule,
                "domain": domain,
                "prompts": len(prompts),
                "sent": sent,
                "shared_by_all": common,
                "cached": skipped,
                "computed": sent - skipped,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--split", default="test")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--prefix", action="store_true", help="shared prefixes per shot rule and domain instead")
    args = parser.parse_args()
    base = RunSettings(model=args.model, split=args.split)
    counter = token_counter(base)
    if args.prefix:
        print(f"{counter.how}; context {counter.max_model_len}, {base.new_tokens} kept for the answer")
        print("| shot rule | domain | prompts | tokens sent | shared by all | repeated (prefix cache) | to compute |")
        print("|---|---|---|---|---|---|---|")
        for rule in ("fixed", "similar"):
            for row in prefix_sharing(base, counter, rule):
                share = row["cached"] / row["sent"]
                print(
                    f"| `{rule}` | {row['domain']} | {row['prompts']} | {row['sent']:,} | {row['shared_by_all']:,} | "
                    f"{row['cached']:,} ({share:.0%}) | {row['computed']:,} |"
                )
        return
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
