"""Cases that cannot be done: the relevance set built from a split.

For each sample the set holds two cases, prompted with the same abstention
instruction (``gqlbench run --relevance``):

- **possible**: the gold functions are offered (the sample's own id);
- **impossible**: the same set with one gold function removed, so no correct
  program exists (id ``<split>-impossible/<index>``).

Which function is removed (the rule, deterministic): walk the gold program's
calls from last to first (the last call is the one that produces or does what
was asked) and remove the first function for which no remaining offered
function could stand in. ``G`` could stand in for ``F`` when both have the
same HTTP method and either both return data of the same shape (the same
field names, and the same field names inside each of them),
or neither has a response schema and both take the same parameter names.
Names are unique in a domain's catalog, so the removed endpoint is then the
only one that can do its job. A sample is dropped (and reported with the
reason) when its gold program is invalid, its domain is not in the catalog,
it calls a function the catalog lacks, it needs only one function (removing it
would leave nothing to offer), or every gold function has a stand-in.

Both cases render their signatures and schema from the catalog for the
offered names (:func:`offered_sample`), so they differ only by the removed
function. The offered set is one argument (a list of endpoint names), so it
composes with other ways of choosing what a prompt offers.

With a wider offer (``--functions domain`` or ``distractors:K[:connected]``,
:mod:`gqlbench.generators.offer`) the same rule decides what else may be
shown: the catalog endpoints that could stand in for the removed function are
left out of both cases' offers, the other endpoints are drawn as usual (same
seed, same rule), and the impossible case's offer is the possible case's minus
the removed function (:attr:`RelevanceCase.offers`). So the possible case still
offers every gold function, and the two cases still differ only by the removed
one. When every other endpoint of the domain could stand in for it, the offer
cannot be widened: the next gold function (by the walk above) is tried, and a
sample where none works is dropped with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gqlbench.dataset import Errata, called_functions
from gqlbench.errors import GqlbenchError
from gqlbench.generators.offer import FunctionsSetting, load_domain_catalog, offered_functions, parse_functions, without
from gqlbench.records import Sample

__all__ = ["IMPOSSIBLE", "RelevanceCase", "Dropped", "offered_sample", "stand_in", "relevance_set", "is_impossible_id", "lacking"]

IMPOSSIBLE = "-impossible"  # the split suffix of an impossible case's id


@dataclass(frozen=True)
class RelevanceCase:
    """One sample's pair of cases and the function its impossible case lacks."""

    possible: Sample
    impossible: Sample
    removed: str
    offered: tuple[str, ...] = ()  # under a wider --functions: the possible case's offer, in prompt order (empty: gold)

    @property
    def offers(self) -> dict[str, list[str]]:
        """What each case's prompt offers, by case id, under a wider ``--functions`` (empty under ``gold``)."""
        if not self.offered:
            return {}
        return {self.possible.id: list(self.offered), self.impossible.id: without(self.offered, self.removed)}


@dataclass(frozen=True)
class Dropped:
    sample_id: str
    reason: str


def is_impossible_id(sample_id: str) -> bool:
    """Whether a result id names an impossible case (``test-impossible/3``)."""
    return sample_id.partition("/")[0].endswith(IMPOSSIBLE)


def lacking(case: Sample, offered: Sequence[str]) -> list[str]:
    """The functions an impossible case's gold program calls that its prompt does not offer (what was removed).

    Empty for any other sample: few-shot examples of a case must not show what it lacks
    (:func:`gqlbench.generators.shots.select_shots`), and a possible case lacks nothing.
    """
    if not is_impossible_id(case.id):
        return []
    from gqlbench.specs import list_domains, load_specs

    known = set(case.function_names) | (set(load_specs(case.domain)) if case.domain in list_domains() else set())
    return [name for name in called_functions(case.gold_code, known) if name not in offered]


def offered_sample(sample: Sample, names: Sequence[str], *, impossible: bool = False) -> Sample:
    """``sample`` as a prompt that offers exactly ``names``: their catalog signatures and response SDL."""
    from gqlbench.schemas import endpoint_sdl
    from gqlbench.specs import specs_for

    update: dict[str, object] = {
        "function_specs": specs_for(sample.domain, names),
        "graphql_schema": "\n".join(filter(None, (endpoint_sdl(sample.domain, n) for n in names))),
        "input": "",
    }
    if impossible:
        split = sample.split + IMPOSSIBLE
        update.update(id=f"{split}/{sample.index}", split=split)
    return sample.model_copy(update=update)


def _shape(named: object, depth: int) -> frozenset[object]:
    """Field names of a GraphQL type, ``depth`` levels deep (what a response holds, not what it is called)."""
    from graphql import get_named_type

    fields = getattr(named, "fields", None)
    if not fields:
        return frozenset({getattr(named, "name", "")})
    if depth == 0:
        return frozenset(fields)
    return frozenset((name, _shape(get_named_type(field.type), depth - 1)) for name, field in fields.items())


def _response_shape(domain: str, function: str) -> frozenset[object] | None:
    """The fields of what ``function`` returns, two levels deep (None: it has no response schema)."""
    from graphql import get_named_type

    from gqlbench.schemas import build_schema, endpoint_sdl_path

    if endpoint_sdl_path(domain, function) is None:
        return None
    schema = build_schema(domain, [function])
    assert schema.query_type is not None
    return _shape(get_named_type(schema.query_type.fields[function].type), 1)


Shapes = dict[tuple[str, str], "frozenset[object] | None"]  # (domain, function) -> its response shape, read once


def stand_in(domain: str, removed: str, other: str, shapes: Shapes | None = None) -> bool:
    """Whether ``other`` could do the job of ``removed`` (see the module docstring for the rule).

    ``shapes`` keeps the response shapes read so far (one relevance set reads each endpoint's once).
    """
    from gqlbench.specs import get_spec

    if removed.split("_", 1)[0] != other.split("_", 1)[0]:
        return False
    memo: Shapes = {} if shapes is None else shapes
    for name in (removed, other):
        if (domain, name) not in memo:
            memo[domain, name] = _response_shape(domain, name)
    fields = memo[domain, removed], memo[domain, other]
    if fields[0] is not None or fields[1] is not None:
        return fields[0] == fields[1]
    return set(get_spec(domain, removed).param_names) == set(get_spec(domain, other).param_names)


def _widened(sample: Sample, gold: list[str], removed: str, choice: FunctionsSetting, seed: int, shapes: Shapes) -> tuple[str, ...] | None:
    """The possible case's wider offer, with no endpoint that could stand in for ``removed`` (None: nothing else to add)."""
    catalog = load_domain_catalog(sample.domain)
    others = [n for n in catalog.specs if n not in gold]
    excluded = {n for n in others if stand_in(sample.domain, removed, n, shapes)}
    if excluded and excluded == set(others) and (choice.kind == "domain" or choice.k > 0):
        return None
    return tuple(offered_functions(sample, catalog, choice, seed, exclude=excluded))


def _case(sample: Sample, errata: Errata, choice: FunctionsSetting, seed: int, shapes: Shapes) -> RelevanceCase | Dropped:
    from gqlbench.specs import list_domains, load_specs

    if (why := errata.why_invalid(sample.id)) is not None:
        return Dropped(sample.id, f"invalid gold program ({why})")
    if sample.domain not in list_domains():
        return Dropped(sample.id, f"domain {sample.domain!r} is not in the catalog, so impossibility cannot be checked")
    catalog = set(load_specs(sample.domain))
    gold = called_functions(sample.gold_code, catalog | set(sample.function_names))
    unknown = [n for n in gold if n not in catalog]
    if unknown:
        return Dropped(sample.id, f"calls {', '.join(unknown)}, which the catalog lacks")
    if len(gold) < 2:
        return Dropped(sample.id, "needs one function; removing it would leave nothing to offer")
    crowded: list[str] = []  # functions without a stand-in among the gold, but with every other endpoint one
    for removed in reversed(gold):
        rest = [n for n in gold if n != removed]
        if any(stand_in(sample.domain, removed, n, shapes) for n in rest):
            continue
        possible, impossible = offered_sample(sample, gold), offered_sample(sample, rest, impossible=True)
        if choice.kind == "gold":
            return RelevanceCase(possible, impossible, removed)
        offered = _widened(possible, gold, removed, choice, seed, shapes)
        if offered is not None:
            return RelevanceCase(possible, impossible, removed, offered)
        crowded.append(removed)
    if crowded:
        return Dropped(
            sample.id,
            f"--functions {choice}: every other endpoint of {sample.domain} could stand in for "
            f"{', '.join(crowded)}, so the offer cannot be widened without a stand-in",
        )
    return Dropped(sample.id, "every gold function has a stand-in among the others")


def relevance_set(
    samples: Sequence[Sample], errata: Errata, functions: str = "gold", seed: int = 0
) -> tuple[list[RelevanceCase], list[Dropped]]:
    """The cases of ``samples`` (in order) and the samples dropped, each with its reason.

    ``functions`` and ``seed`` are the run's ``--functions`` and ``--seed``: a wider offer is drawn per case
    (see the module docstring), the same for the same seed.
    """
    choice = parse_functions(functions)
    shapes: Shapes = {}
    cases: list[RelevanceCase] = []
    dropped: list[Dropped] = []
    for sample in samples:
        if is_impossible_id(sample.id):
            raise GqlbenchError(f"{sample.id}: already an impossible case; build the relevance set from a plain split")
        found = _case(sample, errata, choice, seed, shapes)
        (cases if isinstance(found, RelevanceCase) else dropped).append(found)  # type: ignore[arg-type]
    return cases, dropped
