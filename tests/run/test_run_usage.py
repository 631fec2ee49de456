"""Cost and latency blocks from a run's completion lines."""

from __future__ import annotations

import pytest

from gqlbench.records import SampleResult, Scores
from gqlbench.run.usage import Prices, recost, usage_blocks, usage_row, usage_section


def _line(sample_id: str, tokens_in: int, tokens_out: int, latency: float, completion: int | None = None) -> SampleResult:
    extra = {"tokens_in": tokens_in, "tokens_out": tokens_out, "latency_s": latency}
    if completion is not None:
        extra["completion"] = completion
    return SampleResult.model_validate({"id": sample_id, "domain": "spotify", "scores": Scores().model_dump(), **extra})


LINES = [
    _line("test/0", 1000, 100, 1.0, 0),
    _line("test/0", 1000, 300, 3.0, 1),
    _line("test/1", 2000, 200, 2.0, 0),
    _line("test/1", 2000, 400, 10.0, 1),
]


def test_tokens_latency_and_throughput() -> None:
    blocks = usage_blocks(LINES, wall_s=8.0, backend="vllm", steps=False)
    assert blocks is not None
    cost, latency = blocks
    assert (cost["prompt_tokens"], cost["completion_tokens"]) == (6000, 1000)
    assert (cost["prompt_tokens_per_sample"], cost["completion_tokens_per_sample"]) == (3000, 500)  # K completions per sample
    assert cost["usd"] is None
    assert latency["per_completion_s"] == {"mean": 4.0, "p50": 2.5, "p95": pytest.approx(10.0 - 0.05 * 3 * 7)}
    assert latency["attribution"] == "batch" and latency["completions"] == 4 and latency["samples"] == 2
    assert (latency["samples_per_s"], latency["completions_per_s"], latency["output_tokens_per_s"]) == (0.25, 0.5, 125.0)
    assert latency["wall_s_per_completion"] == 2.0


def test_cost_from_token_prices_or_gpu_hours() -> None:
    cost, _ = usage_blocks(LINES, wall_s=1800.0, backend="openai", steps=False, prices=Prices(2.0, 10.0)) or ({}, {})
    assert cost["usd_by_tokens"] == pytest.approx((6000 * 2 + 1000 * 10) / 1e6) and cost["usd"] == cost["usd_by_tokens"]
    cost, latency = usage_blocks(LINES, wall_s=1800.0, backend="openai", steps=True, prices=Prices(gpu_hour=3.0)) or ({}, {})
    assert cost["usd_by_gpu_hours"] == pytest.approx(1.5) and cost["usd"] == pytest.approx(1.5)
    assert latency["attribution"] == "steps"
    again = recost(cost, latency, Prices(price_out=1.0))
    assert again["usd"] == pytest.approx(1000 / 1e6) and again["usd_by_gpu_hours"] is None and again["prompt_tokens"] == 6000


def test_lines_without_usage_give_no_blocks_and_no_report_lines() -> None:
    bare = SampleResult(id="test/0", domain="spotify", scores=Scores())
    assert usage_blocks([bare], wall_s=None, backend=None, steps=False) is None
    assert usage_section(None, None) == []
    assert usage_row(["m", "cot", "test"], None, None)[3:] == ["-"] * 10


def test_report_lines_say_what_is_missing() -> None:
    cost, latency = usage_blocks(LINES, wall_s=None, backend="mystery", steps=False) or ({}, {})
    text = "\n".join(usage_section(cost, latency))
    assert "6,000 prompt" in text and "(backend)" in text and "no prices given" in text
    assert latency["samples_per_s"] is None
