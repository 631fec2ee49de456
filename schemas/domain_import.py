"""Writing a domain into a catalog folder, for ``gqlbench domains import-openapi`` and ``infer-schema``.

A catalog folder holds ``specs/NAME.json`` (signatures) and
``schemas/NAME/<function>.graphql`` (one response SDL per endpoint); an
OpenAPI import adds ``schemas/NAME/openapi_facts.json``, what the file says
about each response field (:mod:`gqlbench.schemas.openapi_facts`). Nothing
is overwritten silently: a file that exists with other content stops the
import (before anything is written) unless ``force`` is given. The CLI only
parses options and prints what these functions return.

It lives with the schemas because it needs both catalog halves (the layering
lets ``schemas`` import ``specs``, not the other way round).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.records import FunctionSpec
from gqlbench.schemas.infer import RestField, infer_shape, is_graphql_name, path_arguments, render_endpoint_sdl
from gqlbench.schemas.openapi import sdl_from_openapi
from gqlbench.schemas.openapi_facts import FACTS_FILE, merge_facts_text
from gqlbench.specs import read_specs_file, specs_file_text
from gqlbench.specs.openapi import function_name, load_openapi, parse_endpoints, specs_from_openapi

__all__ = ["ImportResult", "InferResult", "check_domain_name", "import_openapi_domain", "infer_endpoint_schema", "write_catalog_files"]

_GRAPHQL_TYPES = {"integer": "Int", "number": "Float", "boolean": "Boolean", "string": "String", "array": "[JSON]"}


ExtraFiles = Callable[[list[dict[str, Any]], dict[str, str], dict[str, Any]], dict[Path, str]]
"""``(specs, sdls, facts) -> files``: signatures as JSON, SDL per function, OpenAPI facts per SDL type."""


@dataclass(frozen=True)
class ImportResult:
    """What an OpenAPI import made and wrote."""

    specs_file: Path
    schemas_dir: Path
    functions: tuple[str, ...]  # every imported signature
    without_sdl: tuple[str, ...]  # signatures whose operation returns no JSON (no SDL written)
    sdl_count: int
    warnings: tuple[str, ...]
    changed: tuple[Path, ...]  # files written
    unchanged: int  # files already as they would be written


@dataclass(frozen=True)
class InferResult:
    """The SDL file an inference wrote, and the response fields it had to leave out."""

    function: str
    target: Path
    written: bool
    skipped: tuple[str, ...]


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


def check_domain_name(name: str) -> None:
    """A domain name names files and GraphQL arguments, so it must be a GraphQL name."""
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


def _renamed(specs: list[dict[str, Any]]) -> list[str]:
    """One line per parameter the import renamed (a Python keyword or a dunder in the document)."""
    return [
        f"{spec['name']}: parameter {prop['request_name']!r} is called {param!r} (the request still sends {prop['request_name']!r})"
        for spec in specs
        for param, prop in spec["parameters"]["properties"].items()
        if "request_name" in prop
    ]


def import_openapi_domain(
    openapi_file: Path,
    name: str,
    out: Path,
    endpoints: str | None = None,
    force: bool = False,
    allow_empty: bool = False,
    extra_files: ExtraFiles | None = None,
) -> ImportResult:
    """Write OUT/specs/NAME.json and OUT/schemas/NAME/*.graphql from an OpenAPI 3.0/3.1 file.

    ``endpoints`` ("GET /a/{id},POST /b") picks operations (default: all). A
    document without operations is an error unless ``allow_empty``: an empty
    domain is almost always a wrong file or a wrong ``paths`` section.
    ``extra_files(specs, sdls, facts)`` adds files written with the catalog's (the
    CLI's starter mock world, which the catalog layer cannot build itself).
    """
    check_domain_name(name)
    doc = load_openapi(openapi_file)
    chosen = parse_endpoints(endpoints) if endpoints else None
    specs = specs_from_openapi(doc, chosen)
    if not specs and not allow_empty:
        raise GqlbenchError(
            f"{openapi_file}: 'paths' has no operations, so domain {name!r} would have no endpoints; "
            "add operations to the file, or pass --allow-empty to write an empty domain"
        )
    sdls = sdl_from_openapi(doc, name, chosen, source=str(openapi_file))
    specs_file = out / "specs" / f"{name}.json"
    files = {specs_file: _merged_specs(specs_file, name, specs, force)}
    files.update({out / "schemas" / name / f"{e.function}.graphql": e.sdl for e in sdls})
    facts = {type_name: entry for e in sdls for type_name, entry in e.facts.items()}
    facts_file = out / "schemas" / name / FACTS_FILE
    if facts:
        files[facts_file] = merge_facts_text(facts_file.read_text(encoding="utf-8") if facts_file.is_file() else None, facts)
    if extra_files is not None:
        files.update(extra_files(specs, {e.function: e.sdl for e in sdls}, facts))
    changed = write_catalog_files(files, force, merged=frozenset({specs_file, facts_file}))
    with_sdl = {e.function for e in sdls}
    return ImportResult(
        specs_file=specs_file,
        schemas_dir=out / "schemas" / name,
        functions=tuple(s["name"] for s in specs),
        without_sdl=tuple(sorted({s["name"] for s in specs} - with_sdl)),
        sdl_count=len(sdls),
        warnings=(*_renamed(specs), *(w for e in sdls for w in e.warnings)),
        changed=tuple(changed),
        unchanged=len(files) - len(changed),
    )


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


def infer_endpoint_schema(
    responses: list[Path], name: str, endpoint: str, out: Path, base_url: str = "", force: bool = False
) -> InferResult:
    """Infer one endpoint's response SDL from example JSON responses and write OUT/schemas/NAME/<function>.graphql."""
    check_domain_name(name)
    parsed = parse_endpoints(endpoint)
    if len(parsed) != 1:
        raise GqlbenchError(f"--endpoint {endpoint!r}: give exactly one 'METHOD /path'")
    method, path = parsed[0]
    function = function_name(method, path)
    shape = infer_shape([_read_response(p) for p in responses])
    url = base_url.rstrip("/") + path.replace("{", "$").replace("}", ";")
    rest = RestField(function, method, url, _arguments(out, name, function, path))
    sdl, skipped = render_endpoint_sdl(rest, shape)
    target = out / "schemas" / name / f"{function}.graphql"
    changed = write_catalog_files({target: sdl}, force)
    return InferResult(function=function, target=target, written=bool(changed), skipped=tuple(skipped))
