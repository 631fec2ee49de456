"""The least time this machine needs for a run's prefill: its FLOPs over the rate this CPU multiplies matrices at.

Counts the prompt of every sample as ``gqlbench run`` builds it (CoT, default
shots and rule, fit to the model's context; the model's own tokenizer, no
engine), then the arithmetic of prefilling them once with no prefix reuse:
the weight matrices (2 x non-embedding parameters per token) and causal
attention (2 x layers x hidden x n^2 per prompt of n tokens, QK^T and AV).
The rate is measured, not assumed: a float32 matmul of a prefill chunk's shape
(4096 tokens x hidden by hidden x intermediate) on all of torch's threads,
best of ``--repeats``. Floor = FLOPs / rate. Decoding, sampling, the
scheduler and memory traffic come on top, so a real run is slower; how much
slower is the engine's efficiency on this CPU.

    .venv/bin/python bench/compute_floor.py --model smollm2

Performance figures belong in the README, never in unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any, cast

from gqlbench.generators.backends.backend import Backend
from gqlbench.run.config import RunSettings
from gqlbench.run.dry_run import token_counter
from gqlbench.run.generate import Generator
from gqlbench.run.runner import plan_samples


def prompt_lengths(settings: RunSettings) -> list[int]:
    """Each sample's prompt in the model's tokens, as the run would send it (shots dropped to fit, as it would)."""
    counter = token_counter(settings)
    generator = Generator(settings, cast(Backend, counter), None, lambda: None)  # type: ignore[arg-type, return-value]
    return [generator.prompt(sample).n_tokens or 0 for sample in plan_samples(settings)]


def model_shape(model_dir: Path) -> dict[str, int]:
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    return {
        k: int(config[k])
        for k in ("num_hidden_layers", "hidden_size", "intermediate_size", "vocab_size", "num_attention_heads", "num_key_value_heads")
    }


def prefill_flops(lengths: list[int], shape: dict[str, int]) -> dict[str, float]:
    """Weights and attention FLOPs of prefilling every prompt from scratch (logits only for the last token)."""
    layers, hidden, inter = shape["num_hidden_layers"], shape["hidden_size"], shape["intermediate_size"]
    kv = hidden * shape["num_key_value_heads"] // shape["num_attention_heads"]
    per_layer = hidden * hidden * 2 + hidden * kv * 2 + 3 * hidden * inter  # q, o; k, v; gate, up, down
    weights = 2 * layers * per_layer * sum(lengths) + 2 * hidden * shape["vocab_size"] * len(lengths)
    attention = 2 * layers * hidden * sum(n * n for n in lengths)  # causal: half of 2 x (QK^T + AV)
    return {"weights": float(weights), "attention": float(attention)}


def matmul_rate(hidden: int, inter: int, repeats: int) -> float:
    """float32 FLOP/s of a (4096 x hidden) @ (hidden x inter) matmul on torch's threads, best of ``repeats``."""
    import torch

    a, b = torch.randn(4096, hidden), torch.randn(hidden, inter)
    torch.mm(a, b)  # warm-up
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - started)
    return 2 * 4096 * hidden * inter / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--split", default="test")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    import torch

    from gqlbench.generators.backends.models import resolve_model

    settings = RunSettings(model=args.model, split=args.split)
    lengths = prompt_lengths(settings)
    shape = model_shape(Path(resolve_model(args.model)))
    flops = prefill_flops(lengths, shape)
    rate = matmul_rate(shape["hidden_size"], shape["intermediate_size"], args.repeats)
    total = sum(flops.values())
    figures: dict[str, Any] = {
        "samples": len(lengths),
        "prompt_tokens": sum(lengths),
        "max_prompt": max(lengths),
        "tflop_weights": round(flops["weights"] / 1e12, 1),
        "tflop_attention": round(flops["attention"] / 1e12, 1),
        "gflops_fp32_matmul": round(rate / 1e9, 1),
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "floor_s": round(total / rate),
    }
    print(
        f"{figures['samples']} prompts, {figures['prompt_tokens']:,} tokens: {figures['tflop_weights']} TFLOP in the "
        f"weights + {figures['tflop_attention']} in attention; float32 matmul {figures['gflops_fp32_matmul']} GFLOP/s on "
        f"{figures['torch_threads']} threads -> prefill floor {figures['floor_s']} s"
    )
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
