"""``gqlbench domains``: browse, check and build the API catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from tabulate import tabulate

from gqlbench.cli import LazyGroup
from gqlbench.dataset import data_hash, default_data_dir, load_samples
from gqlbench.display import escape_controls
from gqlbench.records import FunctionSpec
from gqlbench.schemas import (
    build_catalog,
    endpoint_sdl,
    endpoint_sdl_path,
    endpoints_with_sdl,
    response_type_name,
    write_catalog,
)
from gqlbench.specs import (
    bundled_root,
    get_spec,
    list_domains,
    load_specs,
    read_specs_file,
    schemas_path,
    specs_path,
)
from gqlbench.specs.catalog import CATALOG_ENV, unknown_domain

__all__ = ["domains"]

SUBCOMMANDS = {
    "check": "gqlbench.cli.domain_check:check",
    "import-openapi": "gqlbench.cli.domain_import:import_openapi",
    "infer-schema": "gqlbench.cli.domain_import:infer_schema",
}

_PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}


def _where(path: Path | None) -> str:
    if path is None:
        return "-"
    bundled = bundled_root()
    if path.is_relative_to(bundled.specs_dir) or path.is_relative_to(bundled.schemas_dir):
        return "bundled"
    return os.path.relpath(path) if len(os.path.relpath(path)) < len(str(path)) else str(path)


def _endpoints(domain: str) -> list[str]:
    names = list(load_specs(domain)) if specs_path(domain) else []
    return names + [n for n in endpoints_with_sdl(domain) if n not in names]


def signature(spec: FunctionSpec) -> str:
    """A readable Python signature: ``F(a: str, b: int = None)``, required parameters first as Python needs."""
    required = set(spec.parameters.required)
    properties = spec.parameters.properties
    ordered = [n for n in properties if n in required] + [n for n in properties if n not in required]
    params = [
        f"{name}: {_PY_TYPES.get(properties[name].type, properties[name].type)}" + ("" if name in required else " = None")
        for name in ordered
    ]
    return f"{spec.name}({', '.join(params)})"


def _overview() -> None:
    rows = []
    for domain in list_domains():
        with_sdl = endpoints_with_sdl(domain)
        rows.append([domain, len(_endpoints(domain)), len(with_sdl), _where(specs_path(domain)), _where(schemas_path(domain))])
    if not rows:
        click.echo(f"no domains found; add a catalog folder to {CATALOG_ENV}")
        return
    click.echo(escape_controls(tabulate(rows, headers=["domain", "endpoints", "with response schema", "specs", "schemas"])))


@click.group(cls=LazyGroup, lazy_commands=SUBCOMMANDS, invoke_without_command=True)
@click.pass_context
def domains(ctx: click.Context) -> None:
    """Browse the API catalog: domains, endpoints, signatures and response schemas.

    Without a subcommand, lists the domains. Add your own domains with catalog
    folders (each holding specs/ and/or schemas/) listed in GQLBENCH_CATALOG.
    """
    if ctx.invoked_subcommand is None:
        _overview()


@domains.command("list")
@click.argument("domain", required=False)
def list_(domain: str | None) -> None:
    """List DOMAIN's endpoints, marking which have a response schema (no DOMAIN: all domains)."""
    if domain is None:
        _overview()
        return
    if domain not in list_domains():
        raise unknown_domain(domain)
    specs = load_specs(domain) if specs_path(domain) else {}
    with_sdl = set(endpoints_with_sdl(domain))
    rows = []
    for name in _endpoints(domain):
        spec = specs.get(name)
        summary = spec.description.strip().splitlines()[0] if spec and spec.description.strip() else ""
        short = summary if len(summary) <= 60 else summary[:59] + "…"
        rows.append([name, "yes" if name in with_sdl else "-", len(spec.parameters.properties) if spec else "?", short])
    click.echo(escape_controls(tabulate(rows, headers=["endpoint", "response schema", "params", "description"])))
    click.echo(escape_controls(f"\n{domain}: {len(rows)} endpoints, {len(with_sdl)} with a response schema"))


@domains.command()
@click.argument("domain")
@click.argument("function")
def show(domain: str, function: str) -> None:
    """Print FUNCTION's signature (Python-like and JSON) and its response SDL."""
    if domain not in list_domains():
        raise unknown_domain(domain)
    sdl = endpoint_sdl(domain, function)
    specs = read_specs_file(specs_path(domain)) if specs_path(domain) else None  # type: ignore[arg-type]
    if sdl is None or (specs and function in specs.functions):
        spec = get_spec(domain, function)  # the error names the closest endpoints
        click.echo(escape_controls(signature(spec)))
        for line in spec.description.strip().splitlines():
            click.echo(escape_controls(f"    {line}" if line.strip() else ""))
        variants = specs.variants.get(function, ()) if specs else ()
        if len(variants) > 1:
            note = f"\nnote: samples disagree on this signature ({len(variants)} variants); see `gqlbench domains check {domain}`"
            click.echo(escape_controls(note))
        click.echo("\nSignature (JSON):")
        click.echo(escape_controls(json.dumps(spec.model_dump(), indent=2, ensure_ascii=False)))
    if sdl is None:
        click.echo("\nResponse schema: none (no sample response to infer one from)")
    else:
        where = f"{_where(endpoint_sdl_path(domain, function))}, returns {response_type_name(domain, function)}"
        click.echo(escape_controls(f"\nResponse schema ({where}):"))
        click.echo(escape_controls(sdl), nl=False)


@domains.command()
@click.option(
    "--from-data",
    "data_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Benchmark folder of <split>.jsonl files (default: the bundled GraphQLRestBench).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Catalog folder to write specs/ and schemas/ into (default: the bundled catalog).",
)
@click.option("--force", is_flag=True, help="Overwrite files that differ from the build.")
def build(data_dir: Path | None, out: Path | None, force: bool) -> None:
    """Rebuild catalog files from a benchmark's samples (how the bundled catalog is made).

    Collects every domain's signatures from all splits and splits each sample's
    SDL into one file per endpoint, unifying variants by the merge rules. Never
    overwrites a differing file without --force.
    """
    source = data_dir or default_data_dir()
    samples = load_samples(source)
    result = build_catalog(samples)
    if out is None:
        root = bundled_root()
        out = root.specs_dir.parent
        if root.schemas_dir.parent != out:
            raise click.UsageError("the bundled specs/ and schemas/ are not siblings here; pass --out")
    written = write_catalog(result, out, force=force)
    for line in result.problems:
        click.echo(escape_controls(f"problem: {line}"))
    for line in result.notes:
        click.echo(escape_controls(f"merged: {line}"))
    for path in written.stale:
        click.echo(f"stale (not produced by this build, left in place): {path}")
    click.echo(
        f"{len(result.files)} files from {len(samples)} samples (data {data_hash(source)}): "
        f"{len(written.written)} written, {len(written.unchanged)} unchanged, in {out}"
    )
