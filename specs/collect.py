"""Collecting each domain's signatures from benchmark samples (the specs builder).

Every sample carries the signatures of the endpoints it uses; the same endpoint
appears in many samples. Identical copies merge into one. When samples
disagree, nothing is overwritten: all distinct variants are kept with the
samples that use them, one of them becomes the catalog's signature, and the
disagreement is returned as a problem line.

The catalog's signature among variants is the most complete one: most
parameters, then most body parameters, then used by most samples, then seen
first. (A signature with fewer parameters would make calls that other samples'
gold programs make look invalid.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gqlbench.records import FunctionSpec, Sample
from gqlbench.specs.store import SpecVariant, describe_disagreement

__all__ = ["DomainSpecs", "collect_specs", "choose_canonical"]


@dataclass
class DomainSpecs:
    """What the samples of one domain say about its endpoints."""

    domain: str
    functions: dict[str, FunctionSpec] = field(default_factory=dict)  # canonical, sorted by name
    variants: dict[str, list[SpecVariant]] = field(default_factory=dict)  # only endpoints with disagreements
    problems: list[str] = field(default_factory=list)


def choose_canonical(variants: list[SpecVariant]) -> FunctionSpec:
    """The most complete variant (see module docstring); ties go to the most used, then the first."""

    def completeness(item: tuple[int, SpecVariant]) -> tuple[int, int, int, int]:
        order, v = item
        params = v.spec.parameters
        body = getattr(params, "body_params", None) or []
        return (len(params.properties), len(body), len(v.samples), -order)

    return max(enumerate(variants), key=completeness)[1].spec


def collect_specs(samples: Iterable[Sample], *, source: str = "specs") -> dict[str, DomainSpecs]:
    """Per domain: canonical signatures, recorded variants and disagreement problems.

    ``source`` prefixes the problem lines (e.g. the file the result goes to).
    """
    seen: dict[tuple[str, str], dict[str, list[str]]] = {}  # (domain, name) -> spec JSON -> sample ids
    specs: dict[str, FunctionSpec] = {}
    for sample in samples:
        for spec in sample.function_specs:
            text = spec.model_dump_json()
            specs.setdefault(text, spec)
            seen.setdefault((sample.domain, spec.name), {}).setdefault(text, []).append(sample.id)
    result: dict[str, DomainSpecs] = {}
    for (domain, name), by_text in sorted(seen.items()):
        entry = result.setdefault(domain, DomainSpecs(domain))
        variants = [SpecVariant(specs[text], tuple(ids)) for text, ids in by_text.items()]
        canonical = choose_canonical(variants)
        entry.functions[name] = canonical
        if len(variants) > 1:
            entry.variants[name] = variants
            entry.problems.append(describe_disagreement(f"{source}/{domain}.json", name, variants, canonical))
    return result
