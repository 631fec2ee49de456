"""Building a catalog (specs + per-endpoint SDL) from benchmark samples.

This is how the bundled spotify and tmdb catalogs are made from every split of
GraphQLRestBench (``gqlbench domains build``); a test rebuilds them and
compares with the shipped files. The same command makes a catalog folder from
any benchmark in the dataset's format.

Per endpoint, the SDL of every sample that declares it is split out
(:mod:`gqlbench.schemas.split`) and the variants are unified by the merge
rules (:mod:`gqlbench.schemas.merge`). The file lists the types sorted by
name, as StepZen does, then the ``Query`` block, so an endpoint whose samples
all agree gets exactly StepZen's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from graphql.language import DocumentNode, ObjectTypeDefinitionNode

from gqlbench.errors import GqlbenchError
from gqlbench.records import Sample
from gqlbench.schemas.merge import merge_documents
from gqlbench.schemas.printer import print_definitions
from gqlbench.schemas.split import endpoint_documents
from gqlbench.specs import collect_specs, specs_file_text

__all__ = ["CatalogBuild", "WriteResult", "build_catalog", "endpoint_file_text", "write_catalog"]


@dataclass
class CatalogBuild:
    """Files of a catalog folder (relative path -> text) and what the build found."""

    files: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # disagreements a user should look at
    notes: list[str] = field(default_factory=list)  # SDL conflicts resolved by the merge rules


@dataclass
class WriteResult:
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    stale: list[Path] = field(default_factory=list)  # catalog files of these domains the build did not produce


def endpoint_file_text(documents: Iterable[DocumentNode]) -> tuple[str, list[str]]:
    """One endpoint's file from its per-sample documents, and the merge notes."""
    merged = merge_documents(documents)
    queries = [d for d in merged.definitions if isinstance(d, ObjectTypeDefinitionNode) and d.name.value == "Query"]
    types = sorted((d for d in merged.definitions if d not in queries), key=lambda d: d.name.value)  # type: ignore[attr-defined]
    return print_definitions([*types, *queries]), merged.notes


def build_catalog(samples: Iterable[Sample]) -> CatalogBuild:
    """Specs and per-endpoint SDL files for every domain of ``samples``."""
    samples = list(samples)
    build = CatalogBuild()
    benchmarks = ", ".join(dict.fromkeys(s.benchmark for s in samples))
    splits = ", ".join(dict.fromkeys(s.split for s in samples))
    about = f"Built by `gqlbench domains build` from {benchmarks} ({splits}: {len(samples)} samples); rebuild, do not edit."
    domains = collect_specs(samples, source="specs")
    for domain, specs in domains.items():
        build.files[f"specs/{domain}.json"] = specs_file_text(specs.functions.values(), specs.variants, domain=domain, about=about)
        build.problems += specs.problems
    pieces: dict[tuple[str, str], list[DocumentNode]] = {}
    for sample in samples:
        if sample.graphql_schema.strip():
            for name, document in endpoint_documents(sample.graphql_schema, f"sample {sample.id}").items():
                pieces.setdefault((sample.domain, name), []).append(document)
    for (domain, name), documents in sorted(pieces.items()):
        rel = f"schemas/{domain}/{name}.graphql"
        build.files[rel], notes = endpoint_file_text(documents)
        build.notes += [f"{rel}: {note}" for note in notes]
        if name not in domains[domain].functions:
            build.problems.append(f"{rel}: endpoint has a response schema but no sample lists its signature")
    return build


def write_catalog(build: CatalogBuild, root: Path, *, force: bool = False) -> WriteResult:
    """Write the build into ``root/specs`` and ``root/schemas``.

    Refuses (GqlbenchError, nothing written) when a file exists with different
    content, unless ``force``. Files of the built domains that the build does
    not produce are reported as stale, never deleted.
    """
    result = WriteResult()
    differing = []
    for rel, text in build.files.items():
        path = root / rel
        if path.is_file():
            if path.read_text(encoding="utf-8") == text:
                result.unchanged.append(path)
                continue
            differing.append(path)
    if differing and not force:
        raise GqlbenchError(
            f"refusing to overwrite {len(differing)} file(s) that differ from the build (first: {differing[0]}); "
            "pass --force to replace them"
        )
    for rel, text in build.files.items():
        path = root / rel
        if path in result.unchanged:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        result.written.append(path)
    domains = {rel.split("/")[1].removesuffix(".json") for rel in build.files}
    expected = {root / rel for rel in build.files}
    for domain in sorted(domains):
        candidates = [root / "specs" / f"{domain}.json", *sorted((root / "schemas" / domain).glob("*.graphql"))]
        result.stale += [p for p in candidates if p.is_file() and p not in expected]
    return result
