"""What the mock server checks before a request reaches GraphQL: size, time to arrive, content type, JSON.

Every client of ``gqlbench mock serve`` is treated as hostile:

* a body over ``max_body_bytes`` is refused with 413 as soon as its
  ``Content-Length`` says so, or once that many bytes have arrived (chunked
  bodies have no length), so it is never held whole;
* a body must arrive within ``read_timeout`` seconds of its request head, else
  408 (a client that starts a request and stalls holds a connection, and
  uvicorn times out idle connections only between requests; the head's own
  deadline is :class:`DeadlineH11Protocol`);
* a GraphQL POST must be ``application/json`` (415 otherwise: multipart
  uploads need a library the mock does not use), and its JSON at most
  :data:`MAX_JSON_DEPTH` deep (a body nested 100,000 deep once ended in a
  ``RecursionError``).

Refusals answer with a one-line JSON ``{"error": ...}`` and close the
connection, so the rest of a refused body is never read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["MAX_JSON_DEPTH", "BadJSON", "DeadlineH11Protocol", "JSONOnly", "ReadLimits", "load_json"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a request's JSON may have (a query's variables need a few levels)."""


class BadJSON(ValueError):
    """A body that is not JSON the server can take; the message says why, in one line."""


def load_json(body: bytes | str, what: str = "the request body") -> Any:
    """``body`` parsed, or :class:`BadJSON` when it is not JSON or nests deeper than :data:`MAX_JSON_DEPTH`."""
    try:
        value = json.loads(body, parse_constant=_not_json)
    except RecursionError:
        raise BadJSON(f"{what} nests deeper than {MAX_JSON_DEPTH} levels; send flatter JSON") from None
    except json.JSONDecodeError as error:
        raise BadJSON(f"{what} is not valid JSON ({error})") from None
    except UnicodeDecodeError:
        raise BadJSON(f"{what} is not UTF-8 text") from None
    except ValueError as error:  # a number of more than 4,300 digits, NaN, Infinity
        raise BadJSON(f"{what} holds {'a number too long to read' if 'digits' in str(error) else error}; send plain JSON numbers") from None
    level = [value]
    for _ in range(MAX_JSON_DEPTH):
        level = [v for item in level if isinstance(item, (dict, list)) for v in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return value
    raise BadJSON(f"{what} nests deeper than {MAX_JSON_DEPTH} levels; send flatter JSON")


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant}, which is not JSON")


async def refuse(send: Send, status: int, message: str) -> None:
    """Answer ``{"error": message}`` with ``status`` and close the connection."""
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class ReadLimits:
    """ASGI middleware: the whole body read first, bounded in size and in time, then handed on."""

    def __init__(self, app: App, max_body_bytes: int, read_timeout: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.read_timeout = read_timeout

    def _too_large(self) -> str:
        return f"the request body is over the server's limit of {self.max_body_bytes:,} bytes (--max-body-bytes); send a smaller request"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lengths = [value for name, value in scope.get("headers", ()) if name.lower() == b"content-length"]
        if lengths and (not lengths[0].strip().isdigit() or int(lengths[0]) > self.max_body_bytes):
            await refuse(send, 413, self._too_large())
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.read_timeout
        body = bytearray()
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                await refuse(send, 408, f"the request body did not arrive within {self.read_timeout:g} s (--read-timeout); send it whole")
                return
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await refuse(send, 413, self._too_large())
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()  # after the body there is only the disconnect

        await self.app(scope, replay, send)


class JSONOnly:
    """ASGI middleware in front of the GraphQL app: a POST must say its body is JSON."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST":
            types = [value for name, value in scope.get("headers", ()) if name.lower() == b"content-type"]
            media = types[0].split(b";")[0].strip().lower() if types else b""
            if media != b"application/json":
                shown = media.decode("latin-1")[:60].encode("unicode_escape").decode() or "none"
                await refuse(
                    send,
                    415,
                    f'the content type is {shown}; send the GraphQL request as application/json ({{"query": ..., "variables": ...}})',
                )
                return
        await self.app(scope, receive, send)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request head does not arrive in time.

    uvicorn times out a connection idle between requests (``timeout_keep_alive``)
    but not one that has sent part of a head and stalls: thirty such clients
    stayed connected for good. Each head (the first, and each after a response)
    now has ``read_timeout`` seconds; the body's own deadline is :class:`ReadLimits`.
    """

    read_timeout: float = 10.0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_head_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_deadline()

    def _arm_head_deadline(self) -> None:
        waiting_for = self.cycle  # a new head makes a new cycle
        self.loop.call_later(self.read_timeout, self._head_deadline, waiting_for)

    def _head_deadline(self, waiting_for: Any) -> None:
        if self.cycle is waiting_for and not self.transport.is_closing():
            self.transport.close()

    @classmethod
    def with_timeout(cls, read_timeout: float) -> type[DeadlineH11Protocol]:
        """A subclass with this deadline (uvicorn takes a protocol class, not an instance)."""
        return type("DeadlineH11Protocol", (cls,), {"read_timeout": read_timeout})
