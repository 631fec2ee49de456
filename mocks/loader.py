"""A domain's world model: the generic rules, with its behaviour's handlers on top.

:func:`world_model` is what :meth:`gqlbench.mocks.world.World.create` asks
for. The model answers every endpoint of the domain's specs: with the
behaviour's handler when it has one, else with the generic rule inferred
from the catalog (and overridden by the fixture).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.fixtures import GENERIC_KEYS, load_fixture
from gqlbench.mocks.generic import GenericModel, domain_schema
from gqlbench.mocks.registry import WorldBehaviour, find_behaviour
from gqlbench.mocks.rules import infer_rules
from gqlbench.mocks.world import Handler, World

__all__ = ["DomainModel", "world_model"]


class DomainModel:
    """The generic model of a domain plus its behaviour (if any)."""

    def __init__(self, domain: str, generic: GenericModel, behaviour: WorldBehaviour | None,
                 fixture: dict[str, Any]) -> None:
        self.domain = domain
        self.fixture = fixture  # as read: World.create loads a deep copy
        self.generic = generic
        self.behaviour = behaviour
        self.handlers: dict[str, Handler] = {**generic.handlers, **(dict(behaviour.handlers) if behaviour else {})}

    def load(self, world: World, fixture: dict[str, Any]) -> None:
        self.generic.load(world, fixture, frozenset(self.behaviour.handlers) if self.behaviour else frozenset())
        load = getattr(self.behaviour, "load", None)
        if load is not None:
            load(world, fixture)

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        complete = getattr(self.behaviour, "complete", None)
        if complete is not None:
            complete(world, kind, record)


_MODELS: dict[tuple[Any, ...], DomainModel] = {}


def world_model(domain: str, fixture_file: Path | None) -> DomainModel:
    """The model of ``domain`` with this fixture file (read and built once per process, file version and catalog)."""
    from gqlbench.mocks.registry import WORLDS
    from gqlbench.specs import load_specs
    from gqlbench.specs.catalog import specs_path

    stamp = fixture_file.stat().st_mtime_ns if fixture_file is not None else None
    # a cached model holds the registered behaviour, so its id() is not reused while the entry lives
    key = (domain, str(fixture_file), stamp, os.environ.get("GQLBENCH_CATALOG", ""), id(WORLDS.registered().get(domain)))
    if key in _MODELS:
        return _MODELS[key]
    where = str(fixture_file) if fixture_file else f"world fixture of {domain}"
    fixture = load_fixture(domain, fixture_file) if fixture_file is not None else {}
    behaviour = find_behaviour(domain, fixture, fixture_file)
    extra = sorted(set(fixture) - GENERIC_KEYS)
    if extra and behaviour is None:
        raise GqlbenchError(f"{where}: unknown key {extra[0]!r}; a data-only fixture has {', '.join(sorted(GENERIC_KEYS))}")
    specs = load_specs(domain) if specs_path(domain) else {}
    schema = domain_schema(domain)
    rules = infer_rules(schema, specs, fixture.get("endpoints"), where)
    model = DomainModel(domain, GenericModel(domain, rules, schema), behaviour, fixture)
    _MODELS[key] = model
    return model
