"""``gqlbench mock serve`` as a real process: limits from the command line, prompt stop on SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
from click.testing import CliRunner

from gqlbench.cli import cli


def _searches(count: int) -> str:
    return "{ " + " ".join(f'a{i}: GET_search_movie(query: "Titanic {i}", tmdb_access_token: "t") {{ results {{ id }} }}'
                           for i in range(count)) + " }"


def test_help_documents_the_limits_and_their_defaults() -> None:
    text = CliRunner().invoke(cli, ["mock", "serve", "--help"], terminal_width=200).output
    for option, default in [("--max-depth", "20"), ("--max-aliases", "100"), ("--max-cost", "5000"),
                            ("--max-tokens", "10000"), ("--max-seconds", "30")]:
        line = next(line for line in text.splitlines() if option in line)
        assert f"default: {default}" in line or f"default:\n{default}" in line, line


def test_sigterm_stops_a_server_busy_with_a_heavy_query_within_seconds() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = "from gqlbench.cli import main; main()"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "mock", "serve", "--domain", "tmdb", "--port", str(port),
         "--max-aliases", "5000", "--max-cost", "1000000", "--max-tokens", "1000000", "--max-seconds", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/graphql"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[0]
            try:
                httpx.post(url, json={"query": "{ __typename }"}, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not start within 60 s"
                time.sleep(0.2)
        heavy = threading.Thread(target=lambda: _post_ignoring_errors(url, _searches(2000)), daemon=True)
        heavy.start()
        time.sleep(1.5)  # the heavy query is running now (it takes far longer than this)
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        assert time.monotonic() - stopped < 8, "SIGTERM took too long to stop the server"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _post_ignoring_errors(url: str, query: str) -> None:
    try:
        httpx.post(url, json={"query": query}, timeout=120)
    except httpx.HTTPError:
        pass  # the server went away mid-request: that is the point
