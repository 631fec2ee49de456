"""``gqlbench mock serve``: the mock API of a domain as a GraphQL server."""

from __future__ import annotations

import logging
from typing import Any

import click

from gqlbench.display import escape_controls
from gqlbench.mocks.server.limits import SEED_RANGE, QueryLimits

__all__ = ["mock"]

_LIMITS = QueryLimits()


def _limit(option: str, kind: click.ParamType, help: str) -> Any:
    """A ``--max-*`` option of ``mock serve``, its default the :class:`QueryLimits` field of the same name."""
    return click.option(option, type=kind, default=getattr(_LIMITS, option[2:].replace("-", "_")), show_default=True, help=help)


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
@_limit("--max-depth", click.IntRange(1), "Deepest field nesting a query may have (GraphiQL's introspection needs 15).")
@_limit("--max-aliases", click.IntRange(0), "Aliased fields a query may have (each aliased endpoint is one more call).")
@_limit("--max-cost", click.IntRange(1), "Cost a query may have: 1 per field, fragments expanded, plus 10 per endpoint call.")
@_limit("--max-tokens", click.IntRange(1), "Tokens of query text read before a request is refused.")
@_limit("--max-seconds", click.FloatRange(0, min_open=True), "Time budget of one request; past it the request ends with an error.")
@_limit("--max-body-bytes", click.IntRange(1), "Largest request body; a larger one is refused with 413 before it is read.")
@_limit("--max-argument-chars", click.IntRange(1), "Longest argument of a call (a list or object: as JSON); bounds what one write stores.")
@_limit("--max-answer-bytes", click.IntRange(1), "Largest answer, counted as it is built; past it the request ends with an error.")
@_limit(
    "--read-timeout",
    click.FloatRange(0, min_open=True),
    "Seconds a client has to send a request's head, then its body (else closed / 408).",
)
def serve(domain: str, port: int, host: str, seed: int, **limits: Any) -> None:
    """Serve DOMAIN's mock schema over HTTP until interrupted.

    Query it with any GraphQL client at http://HOST:PORT/ (or /graphql).
    Endpoints with a response schema are Query fields; the others are
    Mutation fields. The world persists for the server's life; reset it with
    `mutation { resetWorld }` or `POST /reset`.

    A query over a --max-* limit is refused with a GraphQL error naming the
    limit and its value (an argument over --max-argument-chars is a
    bad_arguments error, an answer over --max-answer-bytes ends the request
    with one error); a body over --max-body-bytes with 413, one not sent
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
