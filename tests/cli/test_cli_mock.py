"""``gqlbench mock serve`` as a real process: limits from the command line, prompt stop on SIGTERM."""

from __future__ import annotations

import io
import json
import logging
import shutil
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

import gqlbench.schemas as schemas_package
import gqlbench.specs as specs_package
from gqlbench.cli import cli, main
from tests.cli_process import serve_mock

_RESULT_FIELDS = (
    "adult backdrop_path genre_ids id original_language original_title overview popularity "
    "poster_path release_date title video vote_average vote_count"
)


def _searches(count: int) -> str:
    """``count`` aliased movie searches with every result field: 5,000 run for about 19 s on 2 idle AVX2 cores."""
    return (
        "{ "
        + " ".join(
            f'a{i}: GET_search_movie(query: "Titanic {i}", tmdb_access_token: "t") {{ page total_pages results {{ {_RESULT_FIELDS} }} }}'
            for i in range(count)
        )
        + " }"
    )


def test_help_documents_the_limits_and_their_defaults() -> None:
    text = CliRunner().invoke(cli, ["mock", "serve", "--help"], terminal_width=200).output
    for option, default in [
        ("--max-depth", "20"),
        ("--max-aliases", "100"),
        ("--max-cost", "5000"),
        ("--max-tokens", "10000"),
        ("--max-seconds", "30"),
        ("--max-body-bytes", "1048576"),
        ("--read-timeout", "10"),
    ]:
        lines = [line for line in text.splitlines() if line.lstrip().startswith(option)]
        assert lines, text
        line = lines[0]
        assert f"default: {default}" in line or f"default:\n{default}" in line, line


def test_sigterm_stops_a_server_busy_with_a_heavy_query_before_the_query_ends() -> None:
    limits = ("--max-aliases", "5000", "--max-cost", "100000000", "--max-tokens", "100000000", "--max-seconds", "600")
    with serve_mock("--domain", "tmdb", *limits) as (port, process):
        url = f"http://127.0.0.1:{port}/graphql"
        answers: list[httpx.Response] = []
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


def _post_keeping_the_answer(url: str, query: str, answers: list[httpx.Response]) -> None:
    try:
        answers.append(httpx.post(url, json={"query": query}, timeout=120))
    except httpx.HTTPError:
        pass  # the server went away mid-request: the stop abandoned it


def _read_all(connection: socket.socket) -> bytes:
    """What the server sends until it closes the connection (socket.timeout if it never does)."""
    data = b""
    while chunk := connection.recv(65_536):
        data += chunk
    return data


def test_stalled_requests_are_closed_and_a_huge_declared_body_is_refused_unread() -> None:
    # 30 connections that never finished their request stayed open for good. Now a request head has
    # --read-timeout seconds to arrive (else the connection is closed) and a body as long again (else 408).
    # The 30 s socket timeouts only bound the test if the server never closes (it closes after about 1 s).
    with serve_mock("--domain", "library", "--read-timeout", "1", "--max-body-bytes", "100000") as (port, _process):
        heads, bodies = [], []
        for _ in range(25):
            connection = socket.create_connection(("127.0.0.1", port), timeout=30)
            connection.sendall(b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
            heads.append(connection)
        for _ in range(5):
            connection = socket.create_connection(("127.0.0.1", port), timeout=30)
            connection.sendall(
                b'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query": '
            )  # 10 of 100 bytes, then nothing
            bodies.append(connection)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as huge:
            huge.sendall(
                b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 104857600\r\n\r\n" + b" " * 1000
            )
            assert _read_all(huge).startswith(b"HTTP/1.1 413 ")
        answer = httpx.post(f"http://127.0.0.1:{port}/", json={"query": "{ __typename }"}, timeout=30)
        assert answer.json() == {"data": {"__typename": "Query"}}  # others are served meanwhile
        closed = [_read_all(c) for c in heads]
        timed_out = [_read_all(c) for c in bodies]
        for connection in heads + bodies:
            connection.close()
        assert closed == [b""] * 25
        assert [answer.split(b"\r\n", 1)[0] for answer in timed_out] == [b"HTTP/1.1 408 Request Timeout"] * 5
        assert b"did not arrive within 1 s (--read-timeout)" in timed_out[0]


def test_client_text_in_what_the_server_logs_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    # A query and an operationName carrying OSC/CSI sequences reached the operator's terminal raw. A client's
    # own mistake is no longer logged at all; a resolver's failure is, escaped.
    from starlette.testclient import TestClient

    from gqlbench.cli.mock import escape_server_logs
    from gqlbench.mocks.server import server as server_module
    from gqlbench.mocks.server.server import create_app

    escape_server_logs()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("gqlbench.mocks.server.server")
    logger.addHandler(handler)
    try:
        client = TestClient(create_app("tmdb", 0), raise_server_exceptions=False)
        hostile = "\x1b]0;owned\x07\x1b[2J\x9b31m"
        client.post("/graphql", json={"query": "{ " + hostile + " }"})
        client.post("/graphql", json={"query": "{ __typename }", "operationName": hostile})

        def crash(_spec: object, _args: object, kwargs: dict) -> None:
            raise RuntimeError(f"handler failed on {kwargs['query']}")

        monkeypatch.setattr(server_module, "check_arguments", crash)
        answer = client.post(
            "/graphql",
            json={
                "query": 'query Q($q: String!) { GET_search_movie(query: $q, tmdb_access_token: "t") { page } }',
                "variables": {"q": hostile},
            },
        )
        assert answer.json()["errors"][0]["message"].startswith("handler failed on")
    finally:
        logger.removeHandler(handler)
    logged = stream.getvalue()
    assert "handler failed on" in logged and "Traceback" in logged  # the server's own fault is shown ...
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x9b31m" in logged  # ... with the client's text escaped
    assert not any(character in logged for character in "\x1b\x07\x9b")


def test_a_seed_outside_graphqls_int_is_refused_before_anything_starts() -> None:
    result = CliRunner().invoke(cli, ["mock", "serve", "--domain", "no-such-domain", "--seed", str(2**31)])
    assert result.exit_code == 2 and "2147483648 is not in the range -2147483648<=x<=2147483647" in result.output


@pytest.mark.parametrize(
    ("world", "saying"),
    [
        ({"endpoints": {"POST_loans": {"respond": {"$numbers": 10**9}}}}, "endpoints.POST_loans.respond.$numbers: 1,000,000,000 is over"),
        ({"make": {"book": {"key": ["$title"], "defaults": {"x": {"$make": "book"}}}}}, "make.book: makes its own kind (book -> book)"),
    ],
)
def test_a_world_file_over_a_bound_stops_the_server_before_it_starts_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], world: dict[str, Any], saying: str
) -> None:
    # A world file is someone else's data, and mock serve runs it outside the sandbox: 1e9 numbers took 10 GB.
    specs = json.loads((Path(specs_package.__file__).parent / "library.json").read_text(encoding="utf-8"))
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "shelf.json").write_text(json.dumps({**specs, "domain": "shelf"}), encoding="utf-8")
    shutil.copytree(Path(schemas_package.__file__).parent / "library", tmp_path / "schemas" / "shelf")
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "shelf.json").write_text(json.dumps(world), encoding="utf-8")
    monkeypatch.setenv("GQLBENCH_CATALOG", str(tmp_path))
    assert main(["mock", "serve", "--domain", "shelf", "--port", "1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: {tmp_path / 'worlds' / 'shelf.json'}: {saying}"), line
