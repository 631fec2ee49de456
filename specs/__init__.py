"""The domain catalog's signatures: one ``specs/<domain>.json`` per API.

Each domain lists its endpoints as Python-callable function signatures in the
dataset's BFCL/OpenAI style (``GET_tv__tv_id_(tv_id=...)``). The bundled
spotify and tmdb files are built from every split of GraphQLRestBench
(``gqlbench domains build``); users add domains through catalog folders named
in ``GQLBENCH_CATALOG`` (see :mod:`gqlbench.specs.catalog`). Disagreements
between samples are kept as recorded variants, reported by
``gqlbench domains check`` and never silently overwritten.

This package is the ground floor: it imports only ``gqlbench.records`` and
``gqlbench.errors``.
"""

from gqlbench.specs.catalog import (
    CATALOG_ENV,
    CatalogRoot,
    bundled_root,
    catalog_roots,
    list_domains,
    schemas_path,
    specs_path,
)
from gqlbench.specs.collect import DomainSpecs, choose_canonical, collect_specs
from gqlbench.specs.store import (
    SpecsFile,
    SpecVariant,
    get_spec,
    load_specs,
    read_specs_file,
    spec_problems,
    specs_file_text,
    specs_for,
)

__all__ = [
    "CATALOG_ENV",
    "CatalogRoot",
    "bundled_root",
    "catalog_roots",
    "list_domains",
    "specs_path",
    "schemas_path",
    "load_specs",
    "get_spec",
    "specs_for",
    "spec_problems",
    "SpecsFile",
    "SpecVariant",
    "read_specs_file",
    "specs_file_text",
    "DomainSpecs",
    "collect_specs",
    "choose_canonical",
]
