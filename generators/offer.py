"""Which functions a prompt offers: the gold ones, the whole domain, or gold plus distractors.

The paper shows a model exactly the functions its gold program calls. Real
agents choose from a whole API, so ``--functions`` widens the offer:

``gold``
    the sample's own signatures, in the dataset's order (the paper's setting;
    the prompt stays byte for byte the dataset's);
``domain``
    every catalog endpoint of the sample's domain;
``distractors:K``
    the gold functions plus ``K`` other endpoints of the domain; with
    ``distractors:K:connected`` the ones most connected to the gold functions
    (shared parameter names, or a parameter named like a field of a gold
    response, or the other way round) are preferred, since those are the
    distractors that hurt most.

Every choice and every order is a pure function of the sample, the catalog
and the seed. Offered sets other than ``gold`` are shuffled so the gold
functions are never simply first.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from gqlbench.errors import GqlbenchError
from gqlbench.records import FunctionSpec, Sample

__all__ = [
    "FUNCTION_KINDS",
    "FunctionsSetting",
    "DomainCatalog",
    "load_domain_catalog",
    "parse_functions",
    "offered_functions",
    "connectedness",
    "without",
]

FUNCTION_KINDS: tuple[str, ...] = ("gold", "domain", "distractors")
_DISTRACTORS = re.compile(r"^distractors:(\d+)(:connected)?$")


@dataclass(frozen=True)
class FunctionsSetting:
    """A parsed ``--functions`` value."""

    kind: str = "gold"
    k: int = 0
    connected: bool = False

    def __str__(self) -> str:
        if self.kind != "distractors":
            return self.kind
        return f"distractors:{self.k}" + (":connected" if self.connected else "")


def parse_functions(text: str) -> FunctionsSetting:
    """``gold``, ``domain``, ``distractors:K`` or ``distractors:K:connected``; anything else is a clear error."""
    value = text.strip()
    if value in ("gold", "domain"):
        return FunctionsSetting(value)
    match = _DISTRACTORS.match(value)
    if match is None:
        raise GqlbenchError(f"--functions {text!r}: use gold, domain, distractors:K or distractors:K:connected (K a whole number)")
    return FunctionsSetting("distractors", int(match.group(1)), bool(match.group(2)))


@dataclass(frozen=True)
class DomainCatalog:
    """What the prompt can offer for one domain: every endpoint's signature and response SDL."""

    domain: str
    specs: Mapping[str, FunctionSpec]  # catalog order
    sdl: Mapping[str, str]  # endpoint -> its SDL text (endpoints without a response schema are absent)

    def response_fields(self, name: str) -> frozenset[str]:
        """Field names anywhere in an endpoint's response types (empty without SDL)."""
        return _fields(self.sdl.get(name, ""))


@lru_cache(maxsize=256)
def _fields(sdl: str) -> frozenset[str]:
    from graphql import parse
    from graphql.language import ObjectTypeDefinitionNode

    if not sdl.strip():
        return frozenset()
    document = parse(sdl, no_location=True)
    return frozenset(
        f.name.value
        for d in document.definitions
        if isinstance(d, ObjectTypeDefinitionNode) and d.name.value != "Query"
        for f in d.fields or ()
    )


@lru_cache(maxsize=16)
def load_domain_catalog(domain: str) -> DomainCatalog:
    """The bundled or user catalog of ``domain`` (see :mod:`gqlbench.specs.catalog`)."""
    from gqlbench.schemas import endpoint_sdl
    from gqlbench.specs import load_specs

    specs = load_specs(domain)
    sdl = {name: text for name in specs if (text := endpoint_sdl(domain, name))}
    return DomainCatalog(domain, specs, sdl)


def _params(catalog: DomainCatalog, sample: Sample, name: str) -> set[str]:
    own = {f.name: f for f in sample.function_specs}
    spec = own.get(name) or catalog.specs.get(name)
    return set(spec.param_names) if spec else set()


def connectedness(sample: Sample, catalog: DomainCatalog, candidate: str) -> int:
    """How strongly ``candidate`` is tied to the sample's gold functions.

    Counts the parameter names it shares with gold functions, plus the links a
    program could follow: a candidate parameter named like a field of a gold
    response, and a gold parameter named like a field of the candidate's response.
    """
    mine = _params(catalog, sample, candidate)
    out = catalog.response_fields(candidate)
    score = 0
    for gold in sample.function_names:
        theirs = _params(catalog, sample, gold)
        score += len(mine & theirs) + len(mine & catalog.response_fields(gold)) + len(theirs & out)
    return score


def _rng(sample: Sample, setting: FunctionsSetting, seed: int) -> random.Random:
    return random.Random(f"{seed}|{sample.id}|{setting}")


def offered_functions(
    sample: Sample, catalog: DomainCatalog, setting: FunctionsSetting, seed: int, *, exclude: Collection[str] = ()
) -> list[str]:
    """The endpoint names the prompt of ``sample`` offers, in prompt order.

    ``exclude`` names catalog endpoints never to add (a relevance case keeps out what could stand in for the function it lacks).
    """
    gold = list(dict.fromkeys(sample.function_names))
    if setting.kind == "gold":
        return gold
    rng = _rng(sample, setting, seed)
    others = [name for name in catalog.specs if name not in gold and name not in exclude]
    if setting.kind == "domain":
        chosen = others
    elif setting.connected:
        order = {name: i for i, name in enumerate(rng.sample(others, len(others)))}
        ranked = sorted(others, key=lambda n: (-connectedness(sample, catalog, n), order[n]))
        chosen = ranked[: setting.k]
    else:
        chosen = rng.sample(others, min(setting.k, len(others)))
    offered = gold + chosen
    rng.shuffle(offered)
    return offered


def without(offered: Sequence[str], removed: str) -> list[str]:
    """``offered`` minus one function, order kept (how a relevance case is built from an offer)."""
    return [name for name in offered if name != removed]
