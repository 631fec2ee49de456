"""Run the ``gqlbench`` command in a fresh Python process: what a user's shell would see.

For what an in-process ``main()`` cannot show: a signal or a kill mid-run and the resume after it, a second
process writing the same folder, output bytes through a real pipe, a server a browser or client talks to, and the
slow end-to-end runs.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

_MAIN = "import sys; from gqlbench.cli import main; sys.exit(main())"


def gqlbench_command(*args: str) -> list[str]:
    """The command line of ``gqlbench ARGS`` with this interpreter (the venv's code, whatever ``PATH`` holds)."""
    return [sys.executable, "-c", _MAIN, *args]


def run_gqlbench(
    *args: str, timeout_s: float = 600, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``gqlbench ARGS`` run to its end; output captured as text."""
    return subprocess.run(gqlbench_command(*args), capture_output=True, text=True, timeout=timeout_s, env=env, cwd=cwd)


def start_gqlbench(*args: str) -> subprocess.Popen[str]:
    """``gqlbench ARGS`` started and left running, to signal, kill or race it; stdout and stderr piped as text."""
    return subprocess.Popen(gqlbench_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextmanager
def serve_mock(*options: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """``gqlbench mock serve OPTIONS`` on a free local port, once it answers: ``(port, process)``, stopped at the end.

    stdout and stderr share one text pipe (``process.communicate()[0]``); a server that never answers fails the test
    with what it printed.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        gqlbench_command("mock", "serve", "--port", str(port), *options),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[0]
            try:
                httpx.post(f"http://127.0.0.1:{port}/", json={"query": "{ __typename }"}, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not start within 60 s"
                time.sleep(0.2)
        yield port, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
