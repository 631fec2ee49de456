"""``gqlbench mock serve``: the mock API of a domain as a GraphQL server."""

from __future__ import annotations

import click

__all__ = ["mock"]


@click.group()
def mock() -> None:
    """Mock APIs: deterministic worlds behind the catalog's GraphQL schemas."""


@mock.command()
@click.option("--domain", required=True, help="Domain to serve (see `gqlbench domains`).")
@click.option("--port", type=int, default=8080, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind; keep 127.0.0.1 unless others must reach it.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the world (same seed, same answers).")
def serve(domain: str, port: int, host: str, seed: int) -> None:
    """Serve DOMAIN's mock schema over HTTP until interrupted.

    Query it with any GraphQL client at http://HOST:PORT/ (or /graphql).
    Endpoints with a response schema are Query fields; the others are
    Mutation fields. The world persists for the server's life; reset it with
    `mutation { resetWorld }` or `POST /reset`.
    """
    import uvicorn

    from gqlbench.mocks.server import create_app

    app = create_app(domain, seed)  # an unknown domain is a GqlbenchError naming the known ones
    click.echo(f"serving the {domain} mock (seed {seed}) at http://{host}:{port}/ ; reset: POST http://{host}:{port}/reset ; stop: Ctrl+C")
    uvicorn.run(app, host=host, port=port, log_level="warning")
