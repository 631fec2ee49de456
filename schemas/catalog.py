"""Looking up and building a domain's response schemas.

``schemas/<domain>/<function>.graphql`` holds one endpoint's ``Query`` field and
every type reachable from it, in StepZen's SDL. Endpoints without a file have
no response schema (StepZen had no response to infer one from, e.g. most PUT
and DELETE calls). Schemas for a set of endpoints are merged by the rules in
:mod:`gqlbench.schemas.merge` and built with graphql-core.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from graphql import GraphQLSchema, build_ast_schema
from graphql.language import DefinitionNode, DocumentNode, NamedTypeNode, TypeNode

from gqlbench.errors import GqlbenchError, closest
from gqlbench.records import Sample
from gqlbench.schemas.merge import PRELUDE, merge_documents, parse_sdl
from gqlbench.schemas.split import query_fields
from gqlbench.specs import list_domains, load_specs, schemas_path, specs_path
from gqlbench.specs.catalog import endpoint_sdl_file, unknown_domain

__all__ = [
    "endpoint_sdl",
    "endpoint_sdl_path",
    "endpoints_with_sdl",
    "build_schema",
    "response_type_name",
    "sample_endpoints",
    "schema_for_sample",
]


def _check_domain(domain: str) -> None:
    if specs_path(domain) is None and schemas_path(domain) is None:
        raise unknown_domain(domain)


def endpoints_with_sdl(domain: str) -> list[str]:
    """The endpoints of ``domain`` that have a response schema, sorted."""
    _check_domain(domain)
    folder = schemas_path(domain)
    return sorted(p.stem for p in folder.glob("*.graphql")) if folder else []


def endpoint_sdl_path(domain: str, function: str) -> Path | None:
    """The SDL file of one endpoint, or None when it has no response schema."""
    _check_domain(domain)
    return endpoint_sdl_file(domain, function)


def endpoint_sdl(domain: str, function: str) -> str | None:
    """One endpoint's SDL (its ``Query`` field and reachable types), or None."""
    path = endpoint_sdl_path(domain, function)
    return path.read_text(encoding="utf-8") if path else None


@lru_cache(maxsize=1)
def _prelude() -> tuple[DefinitionNode, ...]:
    return tuple(parse_sdl(PRELUDE, "the SDL prelude").definitions)


@lru_cache(maxsize=64)
def _build(files: tuple[tuple[Path, int], ...]) -> GraphQLSchema:
    """The schema of the merged SDL files (:func:`~gqlbench.schemas.merge.merge_sdl`'s text, from its definitions).

    Built from the merged definitions themselves, not from their text parsed
    again: parsing is most of the cost of a large domain (GitHub's 637
    endpoint schemas merge into 1.8 MB of SDL).
    """
    documents = [parse_sdl(text, str(path)) for path, _ in files if (text := path.read_text(encoding="utf-8")).strip()]
    try:
        merged = merge_documents(documents)
        return build_ast_schema(DocumentNode(definitions=(*_prelude(), *merged.definitions)))
    except TypeError as exc:  # graphql-core reports unknown types and the like as TypeError
        names = ", ".join(str(p) for p, _ in files[:3]) + (" ..." if len(files) > 3 else "")
        raise GqlbenchError(f"the merged SDL of {names} does not build: {exc}") from None


def build_schema(domain: str, functions: Iterable[str] | None = None) -> GraphQLSchema:
    """The merged schema of ``functions`` (None: every endpoint with SDL), cached.

    Functions without a response schema are skipped; a name the domain does not
    know at all is an error naming the closest endpoints.
    """
    with_sdl = endpoints_with_sdl(domain)
    if functions is None:
        chosen = with_sdl
    else:
        known = set(with_sdl) | (set(load_specs(domain)) if specs_path(domain) else set())
        chosen = []
        for name in dict.fromkeys(functions):
            if name not in known:
                close = closest(name, sorted(known))
                raise GqlbenchError(f"domain {domain!r} has no function {name!r}" + (f"; closest: {', '.join(close)}" if close else ""))
            if name in with_sdl:
                chosen.append(name)
    paths = [endpoint_sdl_path(domain, name) for name in sorted(chosen)]
    return _build(tuple((p, p.stat().st_mtime_ns) for p in paths if p is not None))


def _named_type(type_node: TypeNode) -> str:
    while not isinstance(type_node, NamedTypeNode):
        type_node = type_node.type  # type: ignore[attr-defined]
    return type_node.name.value


def response_type_name(domain: str, function: str) -> str | None:
    """The type an endpoint returns (e.g. ``GET_tv__tv_id_Root``), or None without SDL."""
    path = endpoint_sdl_path(domain, function)
    if path is None:
        return None
    document = parse_sdl(path.read_text(encoding="utf-8"), str(path))
    for d in document.definitions:
        if getattr(d, "name", None) and d.name.value == "Query":  # type: ignore[attr-defined]
            for f in d.fields or ():  # type: ignore[attr-defined]
                if f.name.value == function:
                    return _named_type(f.type)
    raise GqlbenchError(f"{path}: declares no Query field {function!r}; the file name must be the endpoint's name")


def sample_endpoints(sample: Sample) -> list[str]:
    """The endpoints a sample involves: its signatures plus the ``Query`` fields of its SDL.

    Both count because a few samples' SDL declares an endpoint their signatures
    lack (``train/6``, ``train/14``, ``train/35``; see docs/catalog.md).
    """
    names = list(sample.function_names)
    if sample.graphql_schema.strip():
        names += query_fields(parse_sdl(sample.graphql_schema, f"sample {sample.id}"))
    return list(dict.fromkeys(names))


def schema_for_sample(sample: Sample) -> GraphQLSchema:
    """The catalog's merged schema of the endpoints a sample involves."""
    if sample.domain not in list_domains():
        raise unknown_domain(sample.domain)
    return build_schema(sample.domain, sample_endpoints(sample))
