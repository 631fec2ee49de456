"""``gqlbench mock serve``: the mock API of a domain as a GraphQL server."""

from __future__ import annotations

import logging
from typing import Any

import click

from gqlbench.display import escape_controls
from gqlbench.mocks.server.limits import SEED_RANGE, QueryLimits

__all__ = ["mock"]

_LIMITS = QueryLimits()


class _EscapedRecord(logging.Filter):
    """Log records with every control character escaped: a client's query must not drive the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = escape_controls(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = escape_controls(record.exc_text)
        if record.stack_info:
            record.stack_info = escape_controls(record.stack_info)
        return True


def escape_server_logs() -> None:
    """Escape what the mock server and uvicorn log (both can carry text a client sent)."""
    for name in ("gqlbench.mocks.server.server", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _EscapedRecord) for f in logger.filters):
            logger.addFilter(_EscapedRecord())


@click.group()
def mock() -> None:
    """Mock APIs: deterministic worlds behind the catalog's GraphQL schemas."""


@mock.command()
@click.option("--domain", required=True, help="Domain to serve (see `gqlbench domains`).")
@click.option("--port", type=int, default=8080, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind; keep 127.0.0.1 unless others must reach it.")
@click.option("--seed", type=click.IntRange(*SEED_RANGE), default=0, show_default=True, help="Seed of the world (same seed, same answers).")
@click.option(
    "--max-depth",
    type=click.IntRange(1),
    default=_LIMITS.max_depth,
    show_default=True,
    help="Deepest field nesting a query may have (GraphiQL's introspection needs 15).",
)
@click.option(
    "--max-aliases",
    type=click.IntRange(0),
    default=_LIMITS.max_aliases,
    show_default=True,
    help="Aliased fields a query may have (each aliased endpoint is one more call).",
)
@click.option(
    "--max-cost",
    type=click.IntRange(1),
    default=_LIMITS.max_cost,
    show_default=True,
    help="Cost a query may have: 1 per field, fragments expanded, plus 10 per endpoint call.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(1),
    default=_LIMITS.max_tokens,
    show_default=True,
    help="Tokens of query text read before a request is refused.",
)
@click.option(
    "--max-seconds",
    type=click.FloatRange(0, min_open=True),
    default=_LIMITS.max_seconds,
    show_default=True,
    help="Time budget of one request; past it the request ends with an error.",
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(1),
    default=_LIMITS.max_body_bytes,
    show_default=True,
    help="Largest request body; a larger one is refused with 413 before it is read.",
)
@click.option(
    "--max-argument-chars",
    type=click.IntRange(1),
    default=_LIMITS.max_argument_chars,
    show_default=True,
    help="Longest argument of a call (a list or object: as JSON); bounds what one write stores.",
)
@click.option(
    "--max-answer-bytes",
    type=click.IntRange(1),
    default=_LIMITS.max_answer_bytes,
    show_default=True,
    help="Largest answer, counted as it is built; past it the request ends with an error.",
)
@click.option(
    "--read-timeout",
    type=click.FloatRange(0, min_open=True),
    default=_LIMITS.read_timeout,
    show_default=True,
    help="Seconds a client has to send a request's head, then its body (else closed / 408).",
)
def serve(domain: str, port: int, host: str, seed: int, **limits: Any) -> None:
    """Serve DOMAIN's mock schema over HTTP until interrupted.

    Query it with any GraphQL client at http://HOST:PORT/ (or /graphql).
    Endpoints with a response schema are Query fields; the others are
    Mutation fields. The world persists for the server's life; reset it with
    `mutation { resetWorld }` or `POST /reset`.

    A query over a --max-* limit is refused with a GraphQL error naming the
    limit and its value; a body over --max-body-bytes with 413, one not sent
    within --read-timeout with 408 (a stalled request head: the connection
    is closed). Requests run side by side (a heavy one does not
    hold up the others); SIGTERM or Ctrl+C stops running requests and exits.
    """
    import uvicorn

    from gqlbench.mocks.server.http_edge import DeadlineH11Protocol
    from gqlbench.mocks.server.server import create_app

    escape_server_logs()
    query_limits = QueryLimits(**limits)
    app = create_app(domain, seed, query_limits)  # an unknown domain is a GqlbenchError naming the known ones
    click.echo(f"serving the {domain} mock (seed {seed}) at http://{host}:{port}/ ; reset: POST http://{host}:{port}/reset ; stop: Ctrl+C")

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            app.state.mock.stop()  # running requests end at their next field instead of finishing
            super().handle_exit(sig, frame)

    protocol = DeadlineH11Protocol.with_timeout(query_limits.read_timeout)
    Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2, http=protocol)).run()
