"""The mock server's edge: bodies bounded in size and in time, JSON bounded in depth, before GraphQL sees them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from gqlbench.mocks.server.http_edge import MAX_JSON_DEPTH, BadJSON, ReadLimits, load_json


async def _app(scope: Any, receive: Any, send: Any) -> None:
    body = (await receive())["body"]
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def _serve(edge: ReadLimits, messages: Any, headers: list[tuple[bytes, bytes]] | None = None) -> list[dict]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers or []}
    asyncio.run(edge(scope, messages, send))
    return sent


def test_a_chunked_body_is_refused_once_it_passes_the_limit_not_read_to_its_end() -> None:
    pulled: list[int] = []

    async def receive() -> dict:
        pulled.append(1)
        return {"type": "http.request", "body": b"x" * 65_536, "more_body": True}  # 64 KiB chunks, without end

    sent = _serve(ReadLimits(_app, max_body_bytes=1_000_000, read_timeout=60), receive)
    assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
    assert len(pulled) == 16  # 16 chunks are just over 1,000,000 bytes: not one more was read
    assert json.loads(sent[1]["body"])["error"].startswith("the request body is over the server's limit of 1,000,000 bytes")


def test_a_declared_length_over_the_limit_is_refused_before_reading_anything() -> None:
    pulled: list[int] = []

    async def receive() -> dict:
        pulled.append(1)
        return {"type": "http.request", "body": b"", "more_body": False}

    sent = _serve(ReadLimits(_app, max_body_bytes=100, read_timeout=60), receive, [(b"content-length", b"104857600")])
    assert sent[0]["status"] == 413 and pulled == []


def test_a_body_that_stops_arriving_is_answered_408() -> None:
    async def receive() -> dict:
        await asyncio.sleep(3600)  # a client that sent its head and stalls
        raise AssertionError("unreachable")

    sent = _serve(ReadLimits(_app, max_body_bytes=100, read_timeout=0.05), receive)
    assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
    assert "did not arrive within 0.05 s (--read-timeout)" in json.loads(sent[1]["body"])["error"]


def test_a_body_within_the_limits_reaches_the_app_whole() -> None:
    chunks = [{"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.request", "body": b"cd"}]

    async def receive() -> dict:
        return chunks.pop(0)

    sent = _serve(ReadLimits(_app, max_body_bytes=4, read_timeout=60), receive)
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"4"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, f"nests deeper than {MAX_JSON_DEPTH} levels"),
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), f"nests deeper than {MAX_JSON_DEPTH} levels"),
        ("1" * 5000, "a number too long to read"),
        ('{"a": Infinity}', "Infinity, which is not JSON"),
        ("{", "is not valid JSON (Expecting property name"),
        (b"\xff", "is not UTF-8 text"),
    ],
)
def test_bad_json_is_one_line_saying_what_is_wrong(text: str | bytes, says: str) -> None:
    with pytest.raises(BadJSON) as error:
        load_json(text)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_json_at_the_depth_limit_is_read() -> None:
    deepest = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert load_json(deepest) == json.loads(deepest)
