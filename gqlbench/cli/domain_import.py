"""``gqlbench domains import-openapi`` and ``gqlbench domains infer-schema``.

Both write a domain into a catalog folder (``DIR/specs/NAME.json`` and
``DIR/schemas/NAME/<function>.graphql``). The default folder is the current
directory, which in a source checkout is the bundled catalog; elsewhere, point
``GQLBENCH_CATALOG`` at the folder so the other commands find the domain.
Nothing is overwritten silently: a file that exists with other content stops
the command (before anything is written) unless ``--force`` is given.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.fixtures import starter_fixture_files
from gqlbench.records import FunctionSpec
from gqlbench.schemas.infer import RestField, infer_shape, is_graphql_name, path_arguments, render_endpoint_sdl
from gqlbench.schemas.openapi import sdl_from_openapi
from gqlbench.specs import read_specs_file, specs_file_text
from gqlbench.specs.openapi import function_name, load_openapi, parse_endpoints, specs_from_openapi

__all__ = ["import_openapi", "infer_schema", "write_catalog_files"]

_GRAPHQL_TYPES = {"integer": "Int", "number": "Float", "boolean": "Boolean", "string": "String", "array": "[JSON]"}


def write_catalog_files(files: dict[Path, str], force: bool, merged: frozenset[Path] = frozenset()) -> list[Path]:
    """Write the files, refusing (before writing any) to change an existing one without ``force``.

    ``merged`` files were built from their old content without losing any of
    it (a specs file gaining functions), so they may change. Returns the files
    whose content changed; identical files are left alone.
    """
    changed = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    clashes = [p for p in changed if p.exists() and p not in merged]
    if clashes and not force:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise GqlbenchError(f"{clashes[0]}{more} already exists with different content; pass --force to overwrite or choose another --out")
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
    return changed


def _check_name(name: str) -> None:
    if not is_graphql_name(name):
        raise GqlbenchError(f"--name {name!r}: use letters, digits and _ only (it names files and GraphQL arguments), e.g. 'openlibrary'")


def _merged_specs(specs_file: Path, name: str, new: list[dict], force: bool) -> str:
    """The domain's specs file with ``new`` merged in: other functions kept, same names replaced only with --force."""
    functions: dict[str, FunctionSpec] = {}
    variants: dict = {}
    if specs_file.is_file():
        existing = read_specs_file(specs_file)
        functions, variants = dict(existing.functions), dict(existing.variants)
    for raw in new:
        spec = FunctionSpec.model_validate(raw)
        old = functions.get(spec.name)
        if old is not None and old != spec and not force:
            raise GqlbenchError(f"{specs_file}: {spec.name} already exists with a different signature; pass --force to replace it")
        functions[spec.name] = spec
        variants.pop(spec.name, None)
    return specs_file_text(functions.values(), variants, domain=name)


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
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Catalog folder that receives specs/NAME.json and schemas/NAME/.")
@click.option("--force", is_flag=True, help="Overwrite existing files whose content differs.")
def import_openapi(openapi_file: Path, name: str, endpoints: str | None, out: Path, force: bool) -> None:
    """Make a domain's signatures and response SDL from an OpenAPI 3.0/3.1 file (JSON or YAML).

    Writes OUT/specs/NAME.json (signatures in the dataset's format), one
    OUT/schemas/NAME/<function>.graphql per operation that returns JSON, and
    a starter mock world OUT/worlds/NAME.json unless one exists.
    """
    _check_name(name)
    doc = load_openapi(openapi_file)
    chosen = parse_endpoints(endpoints) if endpoints else None
    specs = specs_from_openapi(doc, chosen)
    sdls = sdl_from_openapi(doc, name, chosen)
    specs_file = out / "specs" / f"{name}.json"
    files = {specs_file: _merged_specs(specs_file, name, specs, force)}
    files.update({out / "schemas" / name / f"{e.function}.graphql": e.sdl for e in sdls})
    files.update(starter_fixture_files(out, name, specs, {e.function: e.sdl for e in sdls}))
    changed = write_catalog_files(files, force, merged=frozenset({specs_file}))
    for warning in (w for e in sdls for w in e.warnings):
        click.echo(f"warning: {warning}", err=True)
    without = sorted({s["name"] for s in specs} - {e.function for e in sdls})
    click.echo(f"{name}: {len(specs)} signatures -> {specs_file}; {len(sdls)} response schemas -> {out / 'schemas' / name}/")
    if without:
        click.echo(f"no JSON response schema (no SDL written): {', '.join(without)}")
    click.echo(f"{len(changed)} file(s) written, {len(files) - len(changed)} unchanged; {_where_note(out)}")


def _read_response(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GqlbenchError(f"{path}: no such file (expected a saved JSON response of the endpoint)") from None
    except json.JSONDecodeError as exc:
        raise GqlbenchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None


def _arguments(out: Path, name: str, function: str, path: str) -> list[tuple[str, str]]:
    """Arguments from the domain's signature in OUT when there is one, else the path parameters."""
    specs_file = out / "specs" / f"{name}.json"
    spec = read_specs_file(specs_file).functions.get(function) if specs_file.is_file() else None
    if spec is None:
        return [(p, "String!") for p in path_arguments(path)]
    required = set(spec.parameters.required)
    return [
        (p, _GRAPHQL_TYPES.get(v.type, "JSON") + ("!" if p in required else ""))
        for p, v in spec.parameters.properties.items()
        if is_graphql_name(p)
    ]


@click.command("infer-schema")
@click.argument("responses", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--name", required=True, help="Domain name, e.g. openlibrary.")
@click.option("--endpoint", required=True, help='The endpoint the responses came from, e.g. "GET /x/{id}".')
@click.option("--base-url", default="", help="Server URL for the @rest directive, e.g. https://api.example.com/v1.")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Catalog folder that receives schemas/NAME/<function>.graphql.")
@click.option("--force", is_flag=True, help="Overwrite an existing file whose content differs.")
def infer_schema(responses: tuple[Path, ...], name: str, endpoint: str, base_url: str, out: Path, force: bool) -> None:
    """Infer an endpoint's response SDL from example JSON responses (like StepZen's import curl).

    All RESPONSES describe one endpoint: list items and files are merged into
    one type per object, conflicting scalars widen, always-null fields become
    JSON. Arguments come from OUT/specs/NAME.json when it has the endpoint.
    """
    _check_name(name)
    parsed = parse_endpoints(endpoint)
    if len(parsed) != 1:
        raise GqlbenchError(f"--endpoint {endpoint!r}: give exactly one 'METHOD /path'")
    method, path = parsed[0]
    function = function_name(method, path)
    shape = infer_shape([_read_response(p) for p in responses])
    url = base_url.rstrip("/") + path.replace("{", "$").replace("}", ";")
    rest = RestField(function, method, url, _arguments(out, name, function, path))
    sdl, skipped = render_endpoint_sdl(rest, shape)
    for where in skipped:
        click.echo(f"warning: response field {where!r} is not a GraphQL name; left out", err=True)
    target = out / "schemas" / name / f"{function}.graphql"
    changed = write_catalog_files({target: sdl}, force)
    click.echo(f"{function}: schema from {len(responses)} response(s) -> {target} ({'written' if changed else 'unchanged'})")
    if not base_url:
        click.echo("note: no --base-url given, so the @rest endpoint is the bare path")
