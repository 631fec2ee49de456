"""A domain's world model: the generic rules, with its behaviour's handlers on top.

:func:`world_model` is what :meth:`gqlbench.mocks.engine.world.World.create` asks
for. The model answers every endpoint of the domain's specs: with the
behaviour's handler when it has one, else with the generic rule inferred
from the catalog (and overridden by the fixture).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphql import GraphQLSchema

from gqlbench.mocks.engine.components import component_kinds, component_splits, kind_facts, kinds_by_component, shared_facts
from gqlbench.mocks.engine.declared import paging
from gqlbench.mocks.engine.declared.bounds import check_bounds
from gqlbench.mocks.engine.declared.checks import apply_checks
from gqlbench.mocks.engine.declared.declarations import Declarations
from gqlbench.mocks.engine.declared.identity import aliases, read_kinds
from gqlbench.mocks.engine.fixtures import load_fixture
from gqlbench.mocks.engine.generic import GenericModel, domain_schema
from gqlbench.mocks.engine.registry import WorldBehaviour, find_behaviour
from gqlbench.mocks.engine.rules import Rule, infer_keys, infer_rules, payload_type
from gqlbench.mocks.engine.world import Handler, World
from gqlbench.mocks.engine.worldfile import check_world, world_error
from gqlbench.schemas.openapi_facts import read_facts

__all__ = ["DomainModel", "world_model"]


class DomainModel:
    """The generic model of a domain plus its behaviour (if any)."""

    def __init__(
        self, domain: str, generic: GenericModel, behaviour: WorldBehaviour | None, fixture: dict[str, Any], source: str = "world fixture"
    ) -> None:
        self.domain = domain
        self.fixture = fixture  # as read: World.create loads a deep copy
        self.generic = generic
        self.behaviour = behaviour
        self.facts: dict[str, Any] = {}  # what the OpenAPI file says per SDL type (mocks/engine/specvalues.py)
        handlers: dict[str, Handler] = {**generic.handlers, **(dict(behaviour.handlers) if behaviour else {})}
        responded = {name for name, rule in generic.rules.items() if rule.respond is not None}
        lists_paged = set(behaviour.handlers if behaviour else ()) | responded
        self.handlers = {name: _declared(handler, generic.rules.get(name), name in lists_paged) for name, handler in handlers.items()}

    def load(self, world: World, fixture: dict[str, Any]) -> None:
        self.generic.load(world, fixture, frozenset(self.behaviour.handlers) if self.behaviour else frozenset())
        load = getattr(self.behaviour, "load", None)
        if load is not None:
            load(world, fixture)

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        self.generic.complete(world, kind, record)
        complete = getattr(self.behaviour, "complete", None)
        if complete is not None:
            complete(world, kind, record)


def _declared(handler: Handler, rule: Rule | None, pages_lists: bool) -> Handler:
    """``handler`` with its endpoint's declared ``checks`` first and, for a behaviour's or a template's list, its ``paging``."""
    if rule is None or (not rule.checks and not (pages_lists and rule.paging)):
        return handler

    def run(world: World, args: dict[str, Any]) -> Any:
        if rule.checks:
            apply_checks(rule.checks, args)
        answer = handler(world, args)
        return paging.page(answer, rule.paging, args) if pages_lists and rule.paging and isinstance(answer, list) else answer

    return run


def _kind_fields(schema: GraphQLSchema | None, rules: Mapping[str, Rule]) -> dict[str, set[str]]:
    """The fields the schema shows per kind where a lookup answers with it (what a view may name)."""
    found: dict[str, set[str]] = {}
    for rule in rules.values():
        body = payload_type(schema, rule)
        if rule.action == "lookup" and rule.kind and body is not None:
            found.setdefault(rule.kind, set()).update(body.fields)
    return found


_MODELS: dict[tuple[Any, ...], DomainModel] = {}


def world_model(domain: str, fixture_file: Path | None) -> DomainModel:
    """The model of ``domain`` with this fixture file (read and built once per process, file version and catalog)."""
    from gqlbench.mocks.engine.registry import WORLDS
    from gqlbench.specs import load_specs
    from gqlbench.specs.catalog import schemas_path, specs_path

    stamp = fixture_file.stat().st_mtime_ns if fixture_file is not None else None
    # a cached model holds the registered behaviour, so its id() is not reused while the entry lives
    key = (domain, str(fixture_file), stamp, os.environ.get("GQLBENCH_CATALOG", ""), id(WORLDS.registered().get(domain)))
    if key in _MODELS:
        return _MODELS[key]
    where = str(fixture_file) if fixture_file else f"world fixture of {domain}"
    fixture = load_fixture(domain, fixture_file) if fixture_file is not None else {}
    check_bounds(fixture, where)
    behaviour = find_behaviour(domain, fixture, fixture_file)
    specs = load_specs(domain) if specs_path(domain) else {}
    schema = domain_schema(domain)
    parameters = {name: list(spec.parameters.properties) for name, spec in specs.items()} if specs else None
    fields = _kind_fields(schema, infer_rules(schema, specs)) if "views" in fixture else {}
    found = check_world(fixture, parameters=parameters, kind_fields=fields, own_sections=getattr(behaviour, "sections", ()))
    if found:
        raise world_error(found, fixture_file)
    kinds = read_kinds(fixture)
    declared_keys = {kind: declared.key for kind, declared in kinds.items() if declared.key}
    keys = infer_keys(schema, specs, declared_keys)
    facts = shared_facts(read_facts(schemas_path(domain)))
    rules = infer_rules(schema, specs, fixture.get("endpoints"), where, keys, aliases(kinds))
    named = set(kinds) | {str(e.get("kind")) for e in (fixture.get("endpoints") or {}).values() if isinstance(e, dict) and e.get("kind")}
    components = {k: v for k, v in component_kinds(schema, rules, facts).items() if not {k, v} & named}  # the world file's kinds win
    if components:  # one kind per OpenAPI component (inferred again only then: inference is the slow part of a big spec)
        rules = infer_rules(schema, specs, fixture.get("endpoints"), where, keys, {**components, **aliases(kinds)})
    pinned = fixture.get("endpoints") or {}
    moves = {f: k for f, k in component_splits(schema, rules, facts).items() if f not in pinned and not {k, rules[f].kind} & named}
    if moves:  # an endpoint of another component's kind is that kind's (see component_splits)
        keys = infer_keys(schema, specs, declared_keys, kinds=moves)
        overrides = {**{f: {"kind": k} for f, k in moves.items()}, **pinned}
        rules = infer_rules(schema, specs, overrides, where, keys, {**components, **aliases(kinds)})
    declared = Declarations.read(fixture, getattr(behaviour, "functions", None), where)
    generic = GenericModel(domain, rules, schema, declared, fixture, where, keys)
    model = DomainModel(domain, generic, behaviour, fixture, where)
    model.facts = facts
    generic.render.kind_facts = kind_facts(schema, rules, facts)
    generic.render.components = {name: entry["component"] for name, entry in facts.items() if "component" in entry}
    generic.render.component_kinds = kinds_by_component(schema, rules, facts)
    _MODELS[key] = model
    return model
