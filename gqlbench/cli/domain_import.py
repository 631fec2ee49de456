"""``gqlbench domains import-openapi`` and ``gqlbench domains infer-schema``.

Both write a domain into a catalog folder (``DIR/specs/NAME.json`` and
``DIR/schemas/NAME/<function>.graphql``) through
:mod:`gqlbench.schemas.domain_import`; these commands parse options and print.
The default folder is the current directory, which in a source checkout is the
bundled catalog; elsewhere, point ``GQLBENCH_CATALOG`` at the folder so the
other commands find the domain. Nothing is overwritten silently: a file that
exists with other content stops the command (before anything is written)
unless ``--force`` is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from gqlbench.display import escape_controls
from gqlbench.schemas.domain_import import import_openapi_domain, infer_endpoint_schema
from gqlbench.schemas.infer import NOT_A_GRAPHQL_NAME

__all__ = ["import_openapi", "infer_schema"]


def _where_note(out: Path) -> str:
    return (
        f"to use it from anywhere: export GQLBENCH_CATALOG={out.resolve()}"
        if not (out / "specs" / "__init__.py").is_file()
        else "written into the bundled catalog of this checkout"
    )


@click.command("import-openapi")
@click.argument("openapi_file", type=click.Path(path_type=Path))
@click.option("--name", required=True, help="Domain name, e.g. openlibrary (letters, digits, _).")
@click.option("--endpoints", default=None, help='Operations to import, e.g. "GET /a/{id},POST /b" (default: all).')
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Catalog folder that receives specs/NAME.json and schemas/NAME/.",
)
@click.option("--force", is_flag=True, help="Overwrite existing files whose content differs.")
@click.option("--allow-empty", is_flag=True, help="Write the domain even if the file defines no operations (default: an error).")
def import_openapi(openapi_file: Path, name: str, endpoints: str | None, out: Path, force: bool, allow_empty: bool) -> None:
    """Make a domain's signatures and response SDL from an OpenAPI 3.0/3.1 file (JSON or YAML).

    Writes OUT/specs/NAME.json (signatures in the dataset's format), one
    OUT/schemas/NAME/<function>.graphql per operation that returns JSON, and
    a starter mock world OUT/worlds/NAME.json unless one exists. A file whose
    `paths` has no operations is an error unless --allow-empty.
    """
    from gqlbench.mocks.engine.fixtures import starter_fixture_files

    def starter_world(specs: list[dict], sdls: dict[str, str], facts: dict[str, Any]) -> dict[Path, str]:
        return starter_fixture_files(out, name, specs, sdls, facts)

    result = import_openapi_domain(openapi_file, name, out, endpoints, force=force, allow_empty=allow_empty, extra_files=starter_world)
    for warning in result.warnings:  # warnings quote the document's paths and names
        click.echo(f"warning: {escape_controls(warning)}", err=True)
    click.echo(
        f"{name}: {len(result.functions)} signatures -> {result.specs_file}; {result.sdl_count} response schemas -> {result.schemas_dir}/"
    )
    if result.without_sdl:
        click.echo(f"no JSON response schema (no SDL written): {', '.join(result.without_sdl)}")
    click.echo(f"{len(result.changed)} file(s) written, {result.unchanged} unchanged; {_where_note(out)}")


@click.command("infer-schema")
@click.argument("responses", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--name", required=True, help="Domain name, e.g. openlibrary.")
@click.option("--endpoint", required=True, help='The endpoint the responses came from, e.g. "GET /x/{id}".')
@click.option("--base-url", default="", help="Server URL for the @rest directive, e.g. https://api.example.com/v1.")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Catalog folder that receives schemas/NAME/<function>.graphql.",
)
@click.option("--force", is_flag=True, help="Overwrite an existing file whose content differs.")
def infer_schema(responses: tuple[Path, ...], name: str, endpoint: str, base_url: str, out: Path, force: bool) -> None:
    """Infer an endpoint's response SDL from example JSON responses (like StepZen's import curl).

    All RESPONSES describe one endpoint: list items and files are merged into
    one type per object, conflicting scalars widen, always-null fields become
    JSON. Arguments come from OUT/specs/NAME.json when it has the endpoint.
    """
    result = infer_endpoint_schema(list(responses), name, endpoint, out, base_url, force)
    for where in result.skipped:
        click.echo(f"warning: response field {where!r} {NOT_A_GRAPHQL_NAME}; left out", err=True)
    click.echo(
        f"{result.function}: schema from {len(responses)} response(s) -> {result.target} ({'written' if result.written else 'unchanged'})"
    )
    if not base_url:
        click.echo("note: no --base-url given, so the @rest endpoint is the bare path")
