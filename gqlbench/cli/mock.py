"""``gqlbench mock serve``: the mock API of a domain as a GraphQL server."""

from __future__ import annotations

from typing import Any

import click

from gqlbench.mocks.limits import QueryLimits

__all__ = ["mock"]

_LIMITS = QueryLimits()


@click.group()
def mock() -> None:
    """Mock APIs: deterministic worlds behind the catalog's GraphQL schemas."""


@mock.command()
@click.option("--domain", required=True, help="Domain to serve (see `gqlbench domains`).")
@click.option("--port", type=int, default=8080, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind; keep 127.0.0.1 unless others must reach it.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the world (same seed, same answers).")
@click.option("--max-depth", type=click.IntRange(1), default=_LIMITS.max_depth, show_default=True,
              help="Deepest field nesting a query may have (GraphiQL's introspection needs 15).")
@click.option("--max-aliases", type=click.IntRange(0), default=_LIMITS.max_aliases, show_default=True,
              help="Aliased fields a query may have (each aliased endpoint is one more call).")
@click.option("--max-cost", type=click.IntRange(1), default=_LIMITS.max_cost, show_default=True,
              help="Cost a query may have: 1 per field, fragments expanded, plus 10 per endpoint call.")
@click.option("--max-tokens", type=click.IntRange(1), default=_LIMITS.max_tokens, show_default=True,
              help="Tokens of query text read before a request is refused.")
@click.option("--max-seconds", type=click.FloatRange(0, min_open=True), default=_LIMITS.max_seconds, show_default=True,
              help="Time budget of one request; past it the request ends with an error.")
def serve(domain: str, port: int, host: str, seed: int, **limits: Any) -> None:
    """Serve DOMAIN's mock schema over HTTP until interrupted.

    Query it with any GraphQL client at http://HOST:PORT/ (or /graphql).
    Endpoints with a response schema are Query fields; the others are
    Mutation fields. The world persists for the server's life; reset it with
    `mutation { resetWorld }` or `POST /reset`.

    A query over a --max-* limit is refused with a GraphQL error naming the
    limit and its value. Requests run side by side (a heavy one does not
    hold up the others); SIGTERM or Ctrl+C stops running requests and exits.
    """
    import uvicorn

    from gqlbench.mocks.server import create_app

    app = create_app(domain, seed, QueryLimits(**limits))  # an unknown domain is a GqlbenchError naming the known ones
    click.echo(f"serving the {domain} mock (seed {seed}) at http://{host}:{port}/ ; reset: POST http://{host}:{port}/reset ; stop: Ctrl+C")

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            app.state.mock.stop()  # running requests end at their next field instead of finishing
            super().handle_exit(sig, frame)

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)).run()
