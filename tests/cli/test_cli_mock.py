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

_RESULT_FIELDS = ("adult backdrop_path genre_ids id original_language original_title overview popularity "
                  "poster_path release_date title video vote_average vote_count")


def _searches(count: int) -> str:
    """``count`` aliased movie searches with every result field: 5,000 run for about 19 s on 2 idle AVX2 cores."""
    return "{ " + " ".join(f'a{i}: GET_search_movie(query: "Titanic {i}", tmdb_access_token: "t") '
                           f"{{ page total_pages results {{ {_RESULT_FIELDS} }} }}" for i in range(count)) + " }"


def test_help_documents_the_limits_and_their_defaults() -> None:
    text = CliRunner().invoke(cli, ["mock", "serve", "--help"], terminal_width=200).output
    for option, default in [("--max-depth", "20"), ("--max-aliases", "100"), ("--max-cost", "5000"),
                            ("--max-tokens", "10000"), ("--max-seconds", "30")]:
        line = next(line for line in text.splitlines() if option in line)
        assert f"default: {default}" in line or f"default:\n{default}" in line, line


def test_sigterm_stops_a_server_busy_with_a_heavy_query_before_the_query_ends() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = "from gqlbench.cli import main; import sys; sys.exit(main())"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "mock", "serve", "--domain", "tmdb", "--port", str(port),
         "--max-aliases", "5000", "--max-cost", "100000000", "--max-tokens", "100000000", "--max-seconds", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/graphql"
    answers: list[httpx.Response] = []
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
        heavy = threading.Thread(target=lambda: _post_keeping_the_answer(url, _searches(5000), answers), daemon=True)
        heavy.start()
        time.sleep(1.5)  # the query is being parsed, validated or run: all three take far longer than this
        process.send_signal(signal.SIGTERM)
        # Stopped at this point, the server once ran on for minutes: its worker thread went on validating the
        # query, then located an error for each of its 75,000 fields. Now it exits in about 5 s on 2 idle cores.
        output = process.communicate(timeout=30)[0]
        heavy.join(timeout=30)
        assert process.returncode == 143 and output.rstrip().endswith("terminated"), output
        # the query did not run to its end: the stop cut it short, answered with the "stopping" error,
        # or abandoned it in parsing or validation (uvicorn's 500 once its graceful shutdown ran out)
        answer = answers[0] if answers else None
        assert answer is None or answer.status_code != 200 or answer.json()["data"] is None, answer.text[:300]
        if answer is not None and answer.status_code == 200:
            assert [error["extensions"]["kind"] for error in answer.json()["errors"]] == ["stopping"]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _post_keeping_the_answer(url: str, query: str, answers: list[httpx.Response]) -> None:
    try:
        answers.append(httpx.post(url, json={"query": query}, timeout=120))
    except httpx.HTTPError:
        pass  # the server went away mid-request: the stop abandoned it
