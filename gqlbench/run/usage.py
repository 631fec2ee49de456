"""What a run cost: tokens, latency, throughput and an estimate in USD.

Read from the lines of a run's ``samples.jsonl`` (every completion: each has
``tokens_in``, ``tokens_out`` and ``latency_s`` as the backend recorded them)
and the run's wall time (config.json ``generation_wall_s``: generating,
scoring and executing, summed over the sessions of a resumed run).

Per-completion latency is what the backend measured, which depends on how it
batches (``latency.attribution`` says which applies):

- ``request`` (openai): the completion's own request, retries included;
- ``batch`` (vllm, hf): the wall time of the batched call the completion was
  generated in; a batch is submitted and finishes together, so every
  completion of a batch gets the batch's time (the time a user waits for an
  answer at that batch size). ``wall_s_per_completion`` is the amortized share;
- ``steps``: a style with steps (ReAct) adds up the latency of its steps.

Prices are not run settings (they change no output): the cost is recomputed
by ``gqlbench report --price-in/--price-out/--gpu-hour-price``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError
from tabulate import tabulate

from gqlbench.records import SampleResult

__all__ = ["Prices", "ATTRIBUTION", "usage_blocks", "usage_problem", "recost", "usage_section", "usage_row", "usage_table", "USAGE_HEADERS"]

ATTRIBUTION: dict[str, str] = {"openai": "request", "vllm": "batch", "hf": "batch"}
_PER_MILLION = 1_000_000


@dataclass(frozen=True)
class Prices:
    """USD per million prompt / completion tokens, and USD per GPU hour (None: not given)."""

    price_in: float | None = None
    price_out: float | None = None
    gpu_hour: float | None = None

    def given(self) -> bool:
        return any(p is not None for p in (self.price_in, self.price_out, self.gpu_hour))


def _number(result: SampleResult, key: str) -> float | None:
    value = (result.model_extra or {}).get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _cost(tokens_in: int, tokens_out: int, wall_s: float | None, prices: Prices) -> dict[str, Any]:
    by_tokens = None
    if prices.price_in is not None or prices.price_out is not None:
        by_tokens = (tokens_in * (prices.price_in or 0.0) + tokens_out * (prices.price_out or 0.0)) / _PER_MILLION
    by_gpu = prices.gpu_hour * wall_s / 3600 if prices.gpu_hour is not None and wall_s is not None else None
    return {
        "price_in_usd_per_mtok": prices.price_in,
        "price_out_usd_per_mtok": prices.price_out,
        "gpu_hour_usd": prices.gpu_hour,
        "usd_by_tokens": by_tokens,
        "usd_by_gpu_hours": by_gpu,
        "usd": by_tokens if by_tokens is not None else by_gpu,
    }


def usage_blocks(
    completions: Sequence[SampleResult], *, wall_s: float | None, backend: str | None, steps: bool, prices: Prices = Prices()
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """results.json's ``cost`` and ``latency`` for a run's completion lines (None: the lines record no usage, e.g. evaluate)."""
    lines = [r for r in completions if _number(r, "tokens_in") is not None]
    if not lines:
        return None
    samples = len({r.id for r in lines})
    tokens_in = int(sum(_number(r, "tokens_in") or 0 for r in lines))
    tokens_out = int(sum(_number(r, "tokens_out") or 0 for r in lines))
    latencies = np.array([v for r in lines if (v := _number(r, "latency_s")) is not None], dtype=float)
    cost = {
        "prompt_tokens": tokens_in,
        "completion_tokens": tokens_out,
        "prompt_tokens_per_sample": tokens_in / samples,
        "completion_tokens_per_sample": tokens_out / samples,
        **_cost(tokens_in, tokens_out, wall_s, prices),
    }
    per = None
    if latencies.size:
        p50, p95 = np.percentile(latencies, [50, 95])
        per = {"mean": float(latencies.mean()), "p50": float(p50), "p95": float(p95)}
    rate = (lambda count: count / wall_s) if wall_s else (lambda count: None)
    latency = {
        "samples": samples,
        "completions": len(lines),
        "per_completion_s": per,
        "attribution": "steps" if steps else ATTRIBUTION.get(backend or "", "backend"),
        "wall_s": wall_s,
        "wall_s_per_completion": wall_s / len(lines) if wall_s else None,
        "samples_per_s": rate(samples),
        "completions_per_s": rate(len(lines)),
        "output_tokens_per_s": rate(tokens_out),
    }
    return cost, latency


def recost(cost: Mapping[str, Any], latency: Mapping[str, Any], prices: Prices) -> dict[str, Any]:
    """A run's ``cost`` block priced anew from its token counts and wall time (``gqlbench report --price-in ...``)."""
    wall = latency.get("wall_s")
    priced = _cost(int(cost["prompt_tokens"]), int(cost["completion_tokens"]), float(wall) if wall is not None else None, prices)
    return {**cost, **priced}


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


class _CostBlock(_Block):
    """The fields of a ``cost`` block that reports compute with (written by :func:`usage_blocks`)."""

    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_per_sample: float | None = None
    completion_tokens_per_sample: float | None = None
    usd: float | None = None


class _LatencyBlock(_Block):
    samples: int
    completions: int
    per_completion_s: dict[str, float | None] = {}
    attribution: str = ""
    wall_s: float | None = None
    samples_per_s: float | None = None
    output_tokens_per_s: float | None = None


def usage_problem(cost: Mapping[str, Any] | None, latency: Mapping[str, Any] | None) -> str | None:
    """``"cost.usd: Input should be a valid number"`` when a block read back from results.json has a field of the wrong type."""
    for name, model, block in (("cost", _CostBlock, cost), ("latency", _LatencyBlock, latency)):
        if block is None:
            continue
        try:
            model.model_validate(block)
        except ValidationError as exc:
            first = exc.errors()[0]
            return f"{name}.{'.'.join(map(str, first['loc']))}: {first['msg']}"
    return None


def _f(value: Any, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def usage_section(cost: Mapping[str, Any] | None, latency: Mapping[str, Any] | None) -> list[str]:
    """report.md lines for the cost and latency blocks (none when the run recorded no usage)."""
    if not cost or not latency:
        return []
    per = latency.get("per_completion_s") or {}
    usd = cost.get("usd")
    lines = [
        "",
        "## Cost and latency",
        "",
        f"- tokens: {cost['prompt_tokens']:,} prompt, {cost['completion_tokens']:,} completion "
        f"({_f(cost['prompt_tokens_per_sample'], 1)} and {_f(cost['completion_tokens_per_sample'], 1)} per sample"
        + (", all its completions together)" if latency["completions"] > latency["samples"] else ")"),
        f"- latency per completion ({latency['attribution']}): mean {_f(per.get('mean'))} s, p50 {_f(per.get('p50'))} s, "
        f"p95 {_f(per.get('p95'))} s",
        f"- throughput: {_f(latency.get('samples_per_s'), 3)} samples/s, {_f(latency.get('output_tokens_per_s'), 1)} output tokens/s "
        f"over {_f(latency.get('wall_s'), 1)} s wall time",
        f"- cost: {'$' + _f(usd, 4) if usd is not None else 'no prices given (--price-in/--price-out or --gpu-hour-price)'}",
    ]
    return lines


USAGE_HEADERS = [
    "Model",
    "Prompt",
    "Split",
    "Tokens in",
    "Tokens out",
    "In/sample",
    "Out/sample",
    "Latency mean s",
    "p50 s",
    "p95 s",
    "Samples/s",
    "Out tok/s",
    "USD",
]


def usage_row(label: Sequence[str], cost: Mapping[str, Any] | None, latency: Mapping[str, Any] | None) -> list[str]:
    """One row of ``gqlbench report``'s cost and latency table."""
    if not cost or not latency:
        return [*label, *["-"] * (len(USAGE_HEADERS) - len(label))]
    per = latency.get("per_completion_s") or {}
    return [
        *label,
        f"{cost['prompt_tokens']:,}",
        f"{cost['completion_tokens']:,}",
        _f(cost["prompt_tokens_per_sample"], 1),
        _f(cost["completion_tokens_per_sample"], 1),
        _f(per.get("mean")),
        _f(per.get("p50")),
        _f(per.get("p95")),
        _f(latency.get("samples_per_s"), 3),
        _f(latency.get("output_tokens_per_s"), 1),
        _f(cost.get("usd"), 4),
    ]


def usage_table(rows: Sequence[Sequence[str]], fmt: str = "github") -> str:
    return tabulate(rows, headers=USAGE_HEADERS, tablefmt=fmt, disable_numparse=True)
