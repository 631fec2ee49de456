"""The mock API as a real GraphQL endpoint (ariadne's ASGI app, served by uvicorn).

``gqlbench mock serve --domain tmdb`` answers any GraphQL client from one
world that lives as long as the server:

* every endpoint with a response schema is a ``Query`` field, as in the
  catalog's SDL (``GET_search_movie(query: "Titanic") { results { id } }``);
  its arguments are checked like a Python call's (access-token arguments of
  the StepZen SDL are accepted and ignored);
* endpoints without a response schema are ``Mutation`` fields returning
  ``Acknowledgement { ok status_code }``;
* ``mutation { resetWorld(seed: 0) }`` or ``POST /reset`` (optional JSON body
  ``{"seed": 0}``) puts the world back to its fresh state; a seed is an
  integer in GraphQL's ``Int`` range (:data:`~gqlbench.mocks.server.limits.SEED_RANGE`).

One request cannot take the server down: its body is bounded in size and in
the time it takes to arrive (:mod:`gqlbench.mocks.server.http_edge`); it is refused
before it runs when it exceeds the :class:`~gqlbench.mocks.server.limits.QueryLimits`
(depth, aliases, cost, tokens); it runs in a worker thread so the server keeps
answering others; the world's handlers run one at a time under a lock handed
over first come, first served (:class:`~gqlbench.mocks.server.fairlock.FairLock`), so
a long request waits its turn between its fields; and it stops with a GraphQL
error when it runs over its time budget or the server is told to stop
(:meth:`MockServer.stop`, on SIGTERM or Ctrl+C), checked before each field and
inside a lookup endpoint's searches and lookups (:attr:`World.interrupt`). A
write is checked before it changes anything and, once made, is answered: a
request stopped after a write keeps that write's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from ariadne import MutationType, format_error, graphql_sync
from ariadne.asgi import GraphQL
from ariadne.asgi.handlers import GraphQLHTTPHandler
from ariadne.exceptions import HttpBadRequestError
from graphql import GraphQLError, get_named_type, is_leaf_type
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.endpoints import check_arguments
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.errors import MockError
from gqlbench.mocks.server.explorer import OfflineExplorer
from gqlbench.mocks.server.fairlock import FairLock
from gqlbench.mocks.server.http_edge import BadJSON, JSONOnly, ReadLimits, load_json
from gqlbench.mocks.server.limits import SEED_RANGE, QueryLimits, answer_bytes, check_argument_sizes, parse_limited, validate_limited
from gqlbench.mocks.server.resolvers import build_mock_schema
from gqlbench.records import FunctionSpec

__all__ = ["MockServer", "create_app", "parse_seed"]

T = TypeVar("T")
_GRAPHQL_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_GRAPHQL_TYPES = {"string": "String", "integer": "Int", "number": "Float", "boolean": "Boolean"}


def parse_seed(value: Any) -> int | None:
    """A seed from a client (None: keep the current one), or ValueError saying what a seed must be."""
    if value is None:
        return None
    low, high = SEED_RANGE
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    raise ValueError(f"seed must be an integer from {low} to {high}, or left out to keep the current one")


def _coerce(value: Any, json_type: str) -> Any:
    """A GraphQL argument as the JSON type the signature wants (StepZen typed ids as String)."""
    if json_type == "integer" and isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    if json_type == "number" and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


class MockServer:
    """One world behind a GraphQL schema; :meth:`reset` starts it afresh."""

    def __init__(self, domain: str, seed: int = 0, limits: QueryLimits | None = None) -> None:
        from gqlbench.specs import load_specs

        self.domain = domain
        self.seed = seed
        self.limits = limits or QueryLimits()
        self.lock = FairLock()  # the world's handlers run one at a time, in the order they asked
        self.stopping = threading.Event()
        self.specs: dict[str, FunctionSpec] = load_specs(domain)
        self.world = World.create(domain, seed)
        mutation = MutationType()
        mutation.set_field("resetWorld", lambda _obj, _info, seed=None: self._reset(seed))  # the guard holds the lock
        lines = [
            "type Acknowledgement {\n  ok: Boolean\n  status_code: Int\n}",
            "type Mutation {",
            '  "Put the world back to its fresh state (optionally with another seed)."',
            "  resetWorld(seed: Int): Boolean!",
        ]
        from gqlbench.schemas import build_schema

        query_type = build_schema(domain).query_type  # None when no endpoint of the domain has a response schema
        with_schema = set(query_type.fields if query_type else {})
        for name, spec in self.specs.items():
            if name in with_schema:
                continue
            args = [f"{p}: {_GRAPHQL_TYPES.get(s.type, 'JSON')}" for p, s in spec.parameters.properties.items() if _GRAPHQL_NAME.match(p)]
            lines.append(f"  {name}{'(' + ', '.join(args) + ')' if args else ''}: Acknowledgement")
            mutation.set_field(name, self._acknowledging(name))
        lines.append("}")
        self.schema = build_mock_schema(domain, "\n".join(lines), (mutation,), specs=self.specs)

    def reset(self, seed: int | None = None) -> bool:
        """A fresh world (with ``seed`` when given), once the requests ahead have had their turn."""
        with self.lock:
            return self._reset(seed)

    def _reset(self, seed: int | None) -> bool:
        if seed is not None:
            self.seed = seed
        self.world = World.create(self.domain, self.seed)
        return True

    def stop(self) -> None:
        """Make every running request end at its next field (the process is shutting down)."""
        self.stopping.set()

    def prepare(self, function: str, graphql_args: dict[str, Any]) -> dict[str, Any]:
        """GraphQL arguments -> checked call arguments (raises BadArguments like a Python call)."""
        spec = self.specs[function]
        check_argument_sizes(graphql_args, self.limits)
        properties = spec.parameters.properties
        kwargs = {
            k: (_coerce(v, properties[k].type) if k in properties else v)
            for k, v in graphql_args.items()
            if not k.endswith("_access_token")
        }
        return check_arguments(spec, (), kwargs)

    def _acknowledging(self, function: str) -> Any:
        def resolve(_obj: Any, _info: Any, **graphql_args: Any) -> dict[str, Any]:
            handler = self.world.handler(function)
            if handler is not None:
                handler(self.world, self.prepare(function, graphql_args))
            return {"ok": True, "status_code": 200}

        return resolve

    def context(self, _request: Any, _data: Any = None) -> dict[str, Any]:
        return {"world": self.world, "prepare": self.prepare, "deadline": time.monotonic() + self.limits.max_seconds}

    def _check(self, info: Any, clock: bool = True) -> None:
        """Raise the request's one error when its answer is over its size or (with ``clock``) it is over its time
        budget or the server is stopping."""
        context = info.context
        if context.get("answer_bytes", 0) > self.limits.max_answer_bytes:
            context["over_budget"] = True
            raise GraphQLError(
                f"the answer is over the server's limit of {self.limits.max_answer_bytes:,} bytes (--max-answer-bytes); "
                "ask for fewer fields or aliases",
                path=info.path.as_list(),
                extensions={"kind": "limit", "limit": "max_answer_bytes"},
            )
        if clock and (self.stopping.is_set() or time.monotonic() > context["deadline"]):
            context["over_budget"] = True
            # Every field left raises this error. With a path and no nodes graphql-core keeps it as it is: locating
            # it would scan the query's text up to the field, which made stopping 5,000 aliases take minutes.
            path = info.path.as_list()
            if self.stopping.is_set():
                raise GraphQLError(
                    "the server is stopping; send the request again when it is back", path=path, extensions={"kind": "stopping"}
                )
            raise GraphQLError(
                f"the request ran over its time budget of {self.limits.max_seconds:g} s (--max-seconds); split it into smaller requests",
                path=path,
                extensions={"kind": "limit", "limit": "max_seconds"},
            )

    def guard(self, next_: Any, root: Any, info: Any, **args: Any) -> Any:
        """graphql-core middleware: the time budget and the stop signal before each field, the lock around calls.

        A lookup endpoint (``GET_``) is also checked inside, at each search
        candidate and lookup: its handler only adds or completes records, so
        stopping it there leaves the world consistent. A write is checked once
        it holds the lock, before it changes anything, and then runs to its
        end: the fields of its answer are answered whatever the clock says, so
        a write is never reported as failed after it changed the world.
        """
        context = info.context
        written = context.get("written")
        self._check(info, clock=not written or _root_key(info) not in written)
        if info.parent_type is info.schema.query_type or info.parent_type is info.schema.mutation_type:
            with self.lock:
                self._check(info)  # the wait for the lock counts: nothing runs past the budget
                world = context["world"] = self.world  # a reset since the request began is seen
                reading = info.field_name.startswith("GET_")
                if reading:
                    world.interrupt = lambda: self._check(info)
                try:
                    result = next_(root, info, **args)
                finally:
                    world.interrupt = None
                if not reading:
                    context.setdefault("written", set()).add(info.path.key)
        else:
            result = next_(root, info, **args)
        context["answer_bytes"] = context.get("answer_bytes", 0) + answer_bytes(result, is_leaf_type(get_named_type(info.return_type)))
        self._check(info, clock=False)
        return result


def _root_key(info: Any) -> Any:
    """The response key of the root field a field is part of."""
    path = info.path
    while path.prev is not None:
        path = path.prev
    return path.key


_LOGGER = logging.getLogger("gqlbench.mocks.server.server")


def _is_client_error(record: logging.LogRecord) -> bool:
    error = record.exc_info[1] if record.exc_info else None
    if not isinstance(error, GraphQLError):
        return False
    if (error.extensions or {}).get("kind") in ("limit", "stopping"):
        return True
    # without a path it is the request's own (not a JSON object, syntax, validation, variables), not a resolver's
    return error.path is None or isinstance(error.original_error, MockError)


# A client's mistake (a malformed request, unknown id, bad argument, a query over a limit) is answered, not
# logged as a server fault: what is logged is a resolver's own failure.
_LOGGER.addFilter(lambda record: not _is_client_error(record))


MAX_ERROR_CHARS = 1_000
"""Longest error message sent back: a message quotes the value it refuses, and 100 aliases quoting a 1 MB
variable made one request's answer 100 MB."""


def _format_error(error: GraphQLError, debug: bool = False) -> dict[str, Any]:
    """Ariadne's error format plus ``extensions.kind`` for the mock's own errors, its message bounded."""
    formatted = format_error(error, debug)
    if isinstance(error.original_error, MockError):
        formatted.setdefault("extensions", {})["kind"] = error.original_error.kind
    message = formatted.get("message")
    if isinstance(message, str) and len(message) > MAX_ERROR_CHARS:
        formatted["message"] = f"{message[:MAX_ERROR_CHARS]}... ({len(message):,} characters, cut)"
    return formatted


def _function(method: Any) -> Any:
    """graphql-core takes middleware that is a plain function (or has ``resolve``), not a bound method."""

    def middleware(next_: Any, root: Any, info: Any, **args: Any) -> Any:
        return method(next_, root, info, **args)

    return middleware


async def _in_daemon_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function`` in a daemon thread, as many at once as Starlette's thread pool allows.

    A pool thread would hold a stopping server until its request ends, and parsing or validating a
    large query cannot be interrupted: a request still there when the server stops is abandoned.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Any, error: BaseException | None) -> None:
        if done.done():  # the request was cancelled meanwhile
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(outcome)

    def work() -> None:
        try:
            outcome, error = function(*args, **kwargs), None
        except BaseException as exc:  # handed to the awaiting request
            outcome, error = None, exc
        with contextlib.suppress(RuntimeError):  # the server stopped and closed its loop meanwhile
            loop.call_soon_threadsafe(settle, outcome, error)

    async with anyio.to_thread.current_default_thread_limiter():
        threading.Thread(target=work, name="gqlbench mock request", daemon=True).start()
        return await done


class _ThreadedHandler(GraphQLHTTPHandler):
    """Runs each request in a worker thread, so the event loop keeps answering other clients.

    Its JSON body is read by :func:`load_json`: a body nested too deep is a
    400, not a ``RecursionError``. (GET only shows the explorer: ariadne's
    ``execute_get_queries`` is off.)
    """

    async def extract_data_from_json_request(self, request: Request) -> Any:
        try:
            return load_json(await request.body())
        except BadJSON as error:
            raise HttpBadRequestError(str(error)) from None

    async def execute_graphql_query(self, request: Any, data: Any, *, context_value: Any = None, query_document: Any = None) -> Any:
        if context_value is None:
            context_value = await self.get_context_for_request(request, data)
        middleware = await self.get_middleware_for_request(request, context_value)
        if self.schema is None:
            raise GqlbenchError("the mock GraphQL handler was used before the app gave it a schema")
        success, result = await _in_daemon_thread(
            graphql_sync,
            self.schema,
            data,
            context_value=context_value,
            query_parser=self.query_parser,
            query_validator=self.query_validator,
            query_document=query_document,
            require_query=getattr(request, "method", "") == "GET",
            debug=self.debug,
            introspection=self.introspection,
            logger=self.logger,
            error_formatter=self.error_formatter,
            middleware=middleware,
        )
        if isinstance(context_value, dict) and context_value.get("over_budget") and isinstance(result, dict):
            # one error for the whole request, not one per field that did not run; the answers of writes made are kept
            errors = result.get("errors", [])
            first = next(
                (e for e in errors if e.get("extensions", {}).get("kind") in ("limit", "stopping")), {"message": "the request was stopped"}
            )
            result = {"data": result.get("data") if context_value.get("written") else None, "errors": [first]}
        return success, result


def create_app(domain: str, seed: int = 0, limits: QueryLimits | None = None) -> Starlette:
    """The ASGI app: GraphQL at ``/`` (and ``/graphql``), ``POST /reset``."""
    server = MockServer(domain, seed, limits)
    graphql_app = GraphQL(
        server.schema,
        context_value=server.context,
        debug=False,
        logger=_LOGGER.name,
        error_formatter=_format_error,
        query_parser=parse_limited(server.limits),
        query_validator=validate_limited(server.limits),
        http_handler=_ThreadedHandler(middleware=[_function(server.guard)]),
        explorer=OfflineExplorer(f"{domain} mock (seed {seed})"),
    )  # no CDN: works offline

    async def reset(request: Request) -> JSONResponse:
        body = await request.body()
        try:
            data = load_json(body) if body.strip() else {}
            if not isinstance(data, dict):
                raise BadJSON('the body must be empty or a JSON object like {"seed": 0}')
            seed_value = parse_seed(data.get("seed"))
        except ValueError as error:  # BadJSON too
            return JSONResponse({"error": str(error)}, status_code=400)
        # in a thread: the lock may be held by a running request, and the event loop must go on meanwhile
        await anyio.to_thread.run_sync(server.reset, seed_value)
        return JSONResponse({"reset": True, "domain": domain, "seed": server.seed})

    graphql_json = JSONOnly(graphql_app)
    routes = [Route("/reset", reset, methods=["POST"]), Mount("/graphql", graphql_json), Mount("/", graphql_json)]
    edge = Middleware(ReadLimits, max_body_bytes=server.limits.max_body_bytes, read_timeout=server.limits.read_timeout)
    app = Starlette(routes=routes, middleware=[edge])
    app.state.mock = server
    return app
