"""`gqlbench run --prompt tools` end to end against a real `vllm serve` of the bundled model (slow).

The server parses tool calls with vLLM's ``hermes`` parser; SmolLM2's own
chat template knows no tools, so it is started with
``tests/data/chatml_tools.jinja`` (ChatML that declares the tools in the
system message and renders calls as ``<tool_call>`` JSON). Whatever the
135M model does with the tools, the run must be complete and resumable.
Measured on 2 shared cores: about 25 s for the server to start, under 10 s for the run.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.cli_process import run_gqlbench
from tests.vllm_serve import vllm_serve

pytestmark = pytest.mark.slow

TEMPLATE = Path(__file__).parent / "data" / "chatml_tools.jinja"
RUN_TIMEOUT_S = 600


def _gqlbench(*args: str) -> subprocess.CompletedProcess[str]:
    return run_gqlbench(*args, timeout_s=RUN_TIMEOUT_S)


def test_a_tools_run_against_vllm_serve_is_complete_and_resumable(tmp_path: Path) -> None:
    extra = ("--enable-auto-tool-choice", "--tool-call-parser", "hermes", "--chat-template", str(TEMPLATE), "--seed", "0")
    with vllm_serve(max_model_len=8192, extra=extra, start_timeout_s=300, kv_cache_gib="1") as (url, _):
        tool = {"type": "function", "function": {"name": "GET_me", "description": "x", "parameters": {"type": "object", "properties": {}}}}
        chat = {"model": "smollm2", "messages": [{"role": "user", "content": "hi"}]}
        plain = httpx.post(f"{url.removesuffix('/v1')}/tokenize", json=chat, timeout=30).json()["count"]
        with_tool = httpx.post(f"{url.removesuffix('/v1')}/tokenize", json={**chat, "tools": [tool]}, timeout=30).json()["count"]
        assert with_tool > plain  # the template declares the tools

        out = tmp_path / "run"
        command = (
            "run",
            "--prompt",
            "tools",
            "--backend",
            "openai",
            "--base-url",
            url,
            "--model",
            "smollm2",
            "--limit",
            "2",
            "--max-steps",
            "2",
            "--max-new-tokens",
            "64",
            "--out",
            str(out),
        )
        first = _gqlbench(*command)
        assert first.returncode == 0, first.stderr[-2000:]
        lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
        assert len(lines) == 2 and not (out / "errors.jsonl").exists()
        assert all(line["finish_reason"] in {"final", "no_calls", "max_steps", "context"} for line in lines)
        assert all(line["tokens_in"] > 0 and "tool_arguments" in line["explanation"] for line in lines)
        results = json.loads((out / "results.json").read_text())
        assert results["metrics"]["overall"]["n_samples"] == 2
        config = json.loads((out / "config.json").read_text())
        assert config["prompt"] == "tools" and config["backend"]["backend"] == "openai"

        before = (out / "samples.jsonl").read_text()
        again = _gqlbench(*command)
        assert again.returncode == 0, again.stderr[-2000:]
        assert "already complete" in again.stderr and (out / "samples.jsonl").read_text() == before
