"""The domain catalog's response schemas: ``schemas/<domain>/<function>.graphql``.

Each endpoint's response type is kept as StepZen produced it for
GraphQLRestBench, split out of the per-sample schemas, one file per endpoint.
Any set of endpoints merges into one schema that graphql-core builds; the merge
rules (folding ``Query`` blocks, field union, ``JSON`` giving way to concrete
types, scalar widening, ...) are documented in :mod:`gqlbench.schemas.merge`
and docs/catalog.md.

Imports only ``gqlbench.specs``, ``gqlbench.records`` and ``gqlbench.errors``.
"""

from gqlbench.schemas.build import CatalogBuild, WriteResult, build_catalog, write_catalog
from gqlbench.schemas.catalog import (
    build_schema,
    endpoint_sdl,
    endpoint_sdl_path,
    endpoints_with_sdl,
    response_type_name,
    sample_endpoints,
    schema_for_sample,
)
from gqlbench.schemas.merge import PRELUDE, MergeResult, merge_documents, merge_notes, merge_sdl, parse_sdl
from gqlbench.schemas.split import endpoint_documents, query_fields, reachable_types

__all__ = [
    "PRELUDE",
    "merge_sdl",
    "merge_notes",
    "merge_documents",
    "MergeResult",
    "parse_sdl",
    "endpoint_sdl",
    "endpoint_sdl_path",
    "endpoints_with_sdl",
    "build_schema",
    "response_type_name",
    "sample_endpoints",
    "schema_for_sample",
    "endpoint_documents",
    "query_fields",
    "reachable_types",
    "build_catalog",
    "write_catalog",
    "CatalogBuild",
    "WriteResult",
]
