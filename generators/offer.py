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
    ``distractors:K:connected`` the ones connected to the gold functions are
    preferred, since those are the distractors that hurt most. Connected
    means a value could flow: the distractor has an id-like parameter
    (``id``, ``ids``, ``uri``, ``*_id``, ``*_number``, ...) that an id-like
    field of a gold response could fill, or its response has an id-like
    field that a gold call's id-like parameter could take: their names match
    (``id`` and ``id``, ``ids`` and ``id``) or the parameter names the entity
    whose type holds the field (``movie_id`` and the ``id`` of a
    ``..._movie_...`` type); the more such links, the more connected.
    Generic parameters (``page``, ``limit``, ``market``,
    ``region``) never connect anything: sharing them says nothing about
    what one call can feed another.

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
    "is_id_like",
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
        return frozenset(f.name for f in _fields(self.sdl.get(name, "")))

    def response_id_fields(self, name: str) -> tuple[ResponseField, ...]:
        """The id-like fields of an endpoint's response types: the values a later call could take."""
        return tuple(f for f in _fields(self.sdl.get(name, "")) if is_id_like(f.name))


@dataclass(frozen=True)
class ResponseField:
    """A field of a response type: its name and the type it sits in."""

    name: str
    owner: str


_ID_LIKE = re.compile(r"(^|_)(ids?|uris?|number)$")


def is_id_like(name: str) -> bool:
    """Whether a parameter or field names an entity (``id``, ``ids``, ``uri``, ``movie_id``, ``season_number``)."""
    return bool(_ID_LIKE.search(name))


@lru_cache(maxsize=256)
def _fields(sdl: str) -> tuple[ResponseField, ...]:
    from graphql import parse
    from graphql.language import ObjectTypeDefinitionNode

    if not sdl.strip():
        return ()
    document = parse(sdl, no_location=True)
    fields = []
    for d in document.definitions:
        if isinstance(d, ObjectTypeDefinitionNode) and d.name.value != "Query":
            fields += [ResponseField(f.name.value, d.name.value) for f in d.fields or ()]
    return tuple(fields)


@lru_cache(maxsize=16)
def load_domain_catalog(domain: str) -> DomainCatalog:
    """The bundled or user catalog of ``domain`` (see :mod:`gqlbench.specs.catalog`)."""
    from gqlbench.schemas import endpoint_sdl
    from gqlbench.specs import load_specs

    specs = load_specs(domain)
    sdl = {name: text for name in specs if (text := endpoint_sdl(domain, name))}
    return DomainCatalog(domain, specs, sdl)


def _id_params(catalog: DomainCatalog, sample: Sample, name: str) -> set[str]:
    """The id-like parameters of an endpoint (the sample's own signature first)."""
    own = {f.name: f for f in sample.function_specs}
    spec = own.get(name) or catalog.specs.get(name)
    return {p for p in spec.param_names if is_id_like(p)} if spec else set()


def _feeds(param: str, field: ResponseField) -> bool:
    """Whether a response field could fill a parameter: their names match (``id``, ``ids``), or the parameter names
    the entity whose type holds the field (``movie_id`` and the ``id`` of a ``..._movie_...`` type)."""
    stem = re.sub(r"s$", "", param)  # ids -> id, uris -> uri
    if field.name in (param, stem):
        return True
    entity, _, key = stem.rpartition("_")
    return bool(entity) and field.name == key and entity.replace("_", "") in field.owner.lower().replace("_", "")


def _flow(params: Collection[str], fields: Sequence[ResponseField]) -> int:
    """How many of ``params`` some field of ``fields`` could fill."""
    return sum(any(_feeds(p, f) for f in fields) for p in params)


def connectedness(sample: Sample, catalog: DomainCatalog, candidate: str) -> int:
    """How strongly ``candidate`` is tied to the sample's gold functions by values that could flow (0: not connected).

    Sums, over the gold functions, the links from a gold response's id-like
    fields into the candidate's id-like parameters and from the candidate's
    response into the gold function's id-like parameters (see the module docstring).
    """
    mine, out = _id_params(catalog, sample, candidate), catalog.response_id_fields(candidate)
    return sum(
        _flow(mine, catalog.response_id_fields(gold)) + _flow(_id_params(catalog, sample, gold), out)
        for gold in dict.fromkeys(sample.function_names)
    )


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
