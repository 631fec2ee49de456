"""`gqlbench run --prompt tools` end to end on the in-process backends (vllm, hf) with the bundled model (slow).

SmolLM2's own chat template knows no tools, so the runs pass
``chat_template=tests/data/chatml_tools.jinja`` (ChatML declaring the tools,
calls as ``<tool_call>`` JSON) and the hermes parser (vLLM's for the vllm
backend, gqlbench's for hf). Whatever the 135M model does with the tools,
the run must be complete and a second run must find it complete. Measured on
2 heavily shared cores: the vllm case about 18 minutes (engine start-up
included), one hf turn of 16 tokens about 1.5 minutes per sample.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import run_gqlbench

pytestmark = pytest.mark.slow

TEMPLATE = Path(__file__).parent / "data" / "chatml_tools.jinja"
RUN_TIMEOUT_S = 1200


def _gqlbench(*args: str) -> subprocess.CompletedProcess[str]:
    return run_gqlbench(*args, timeout_s=RUN_TIMEOUT_S)


# transformers on CPU decodes one prompt at a time: on 2 loaded cores 8 tokens of a 2,000-token prompt took 49 s
@pytest.mark.parametrize("backend,limit,new_tokens", [("vllm", 3, 64), ("hf", 2, 16)])
def test_a_local_tools_run_is_complete_and_resumable(tmp_path: Path, backend: str, limit: int, new_tokens: int) -> None:
    if backend == "vllm":
        pytest.importorskip("vllm")
    out = tmp_path / "run"
    command = (
        "run",
        "--prompt",
        "tools",
        "--backend",
        backend,
        "--model",
        "smollm2",
        "--model-args",
        f"tool_parser=hermes,chat_template={TEMPLATE}",
        "--limit",
        str(limit),
        "--max-steps",
        "2",
        "--max-new-tokens",
        str(new_tokens),
        "--out",
        str(out),
    )
    first = _gqlbench(*command)
    assert first.returncode == 0, first.stderr[-2000:]
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == limit and not (out / "errors.jsonl").exists()
    assert all(line["finish_reason"] in {"final", "no_calls", "max_steps", "context"} for line in lines)
    assert all(line["tokens_in"] > 0 and "tool_arguments" in line["explanation"] for line in lines)
    assert json.loads((out / "results.json").read_text())["metrics"]["overall"]["n_samples"] == limit
    config = json.loads((out / "config.json").read_text())
    assert config["prompt"] == "tools" and config["backend"]["backend"] == backend
    assert config["backend"]["tools"]["tool_parser"] == "hermes" and config["backend"]["tools"]["chat_template_file_sha256"]

    before = (out / "samples.jsonl").read_text()
    again = _gqlbench(*command)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "already complete" in again.stderr and (out / "samples.jsonl").read_text() == before


def test_a_template_without_tools_is_refused_in_one_line(tmp_path: Path) -> None:
    result = _gqlbench(
        "run",
        "--prompt",
        "tools",
        "--backend",
        "hf",
        "--model",
        "smollm2",
        "--model-args",
        "tool_parser=hermes",
        "--limit",
        "1",
        "--out",
        str(tmp_path / "run"),
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "does not declare tools; pass --model-args chat_template=FILE" in result.stderr
