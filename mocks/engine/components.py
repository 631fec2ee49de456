"""One kind per OpenAPI component: endpoints that answer with the same schema hold the same entities.

The kind inference (:mod:`gqlbench.mocks.engine.rules`) names kinds after
path segments and fields, so ``GET /search/repositories`` lists
``repository`` items while ``GET /repos/{owner}/{repo}`` looks up a
``repo``. When the import recorded that both answer with the same component
(``schemas/<domain>/openapi_facts.json``, see
:mod:`gqlbench.schemas.openapi_facts`), that is a fact, not a guess:
:func:`component_kinds` maps every kind to the one kind of its component,
which :func:`~gqlbench.mocks.engine.rules.infer_rules` applies like a world
file's ``kinds.<kind>.same`` (a declaration in the world file still wins).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema

from gqlbench.mocks.engine.kinds import list_object_of, object_of, singular
from gqlbench.mocks.engine.rules import Rule, endpoint_path, payload_type

__all__ = ["component_kinds", "component_splits", "kinds_by_component", "shared_facts", "kind_facts"]


def _entity_type(schema: GraphQLSchema, rule: Rule) -> GraphQLObjectType | None:
    """The type of the entity a rule answers with: its payload, or the element of its list."""
    body = payload_type(schema, rule)
    if rule.action in ("lookup", "create", "update", "singleton"):
        return body
    query = schema.query_type.fields if schema.query_type else {}
    holder = body.fields.get(rule.list_field) if body is not None and rule.list_field else query.get(rule.function)
    return list_object_of(holder.type) if holder is not None else None


def component_kinds(schema: GraphQLSchema | None, rules: Mapping[str, Rule], facts: Mapping[str, Any]) -> dict[str, str]:
    """Kind -> the kind it is, for kinds whose entities are one component; ``{}`` without facts.

    A component's kind is the one a lookup answers with (the key is found
    there), else the kind a word of its name names (GitHub's followers,
    stargazers and blocks are ``simple-user`` s: users, which
    ``/users/{username}`` finds, even though that lookup answers with
    another component), else the first by name; a kind whose rules see two
    components, and a component two kinds are looked up as, are left alone
    (the names decide as before).
    """
    if schema is None or not facts:
        return {}
    seen: dict[str, set[str]] = {}  # kind -> its components
    looked_up: set[str] = set()
    for rule in rules.values():
        if not rule.kind or rule.view:
            continue
        found = _entity_type(schema, rule)
        component = (facts.get(found.name) or {}).get("component") if found is not None else None
        if component is not None:
            seen.setdefault(rule.kind, set()).add(component)
            if rule.action == "lookup":
                looked_up.add(rule.kind)
    by_component: dict[str, list[str]] = {}
    for kind, components in sorted(seen.items()):
        if len(components) == 1:
            by_component.setdefault(next(iter(components)), []).append(kind)
    owner = {kind: component for component, kinds in by_component.items() for kind in kinds}
    aliases = {}
    for component, kinds in by_component.items():
        lookups = [k for k in kinds if k in looked_up]
        if len(lookups) > 1:
            continue  # two lookups of one component by different paths: too little to say they are one kind
        named = next((w for w in _words(component) if w in seen and owner.get(w, component) == component), None)  # not another's
        main = lookups[0] if lookups else named or kinds[0]
        aliases.update({k: main for k in kinds if k != main})
    return aliases


def component_splits(schema: GraphQLSchema | None, rules: Mapping[str, Rule], facts: Mapping[str, Any]) -> dict[str, str]:
    """Function -> the kind it answers with, for endpoints whose kind (named by their path) answers with another's component.

    The paths name kinds; the components say what the entities are. A kind
    whose endpoints answer with several components keeps the component its
    name names (``tag`` keeps ``Tag``; ``user`` keeps ``User``); an endpoint
    answering with another component moves to that component's kind: the
    kind its name names (Gitea's ``/user/subscriptions`` lists
    ``Repository`` s: repositories; its collaborators are ``User`` s), else
    the one kind that answers with it alone (if that kind is looked up, or
    this one is not), else, when the kind kept a
    component of its own that shares less than half of its fields, a kind
    named after the component (``/git/tags/{sha}`` looks up an
    ``AnnotatedTag``, which shows a ``sha`` and little of a ``Tag``: an
    ``annotated_tag``, keyed apart from tags; GitLab's ``GroupDetail`` is a
    ``Group`` with more fields, and stays a group; Spotify's saved track
    ``{added_at, track}`` holds the track it is). Endpoints of a kind
    none of whose components it names stay, and so do endpoints that show an
    entity found by a key before their tail (``/editions/{edition_id}/availability``).
    """
    if schema is None or not facts:
        return {}
    answers: dict[str, dict[str, list[str]]] = {}  # kind -> component -> functions
    shown: dict[str, set[str]] = {}  # component -> the fields its entities show
    holds: dict[str, set[str]] = {}  # component -> its fields that hold an object
    stays: set[str] = set()
    query = schema.query_type.fields if schema.query_type else {}
    for function in sorted(rules):
        rule = rules[function]
        found = _entity_type(schema, rule) if rule.kind and not rule.view else None
        component = (facts.get(found.name) or {}).get("component") if found is not None else None
        if rule.id_param and rule.action in ("lookup", "update", "delete", "act"):
            path = endpoint_path(function, query.get(function), [rule.id_param])
            if path[-1:] != ["{" + rule.id_param + "}"]:
                stays.add(function)  # /editions/{edition_id}/availability: the edition, shown in part
        if found is not None and component is not None:
            answers.setdefault(rule.kind or "", {}).setdefault(component, []).append(function)
            shown.setdefault(component, set()).update(found.fields)
            holds.setdefault(component, set()).update(n for n, f in found.fields.items() if object_of(f.type) is not None)
    alone: dict[str, list[str]] = {}  # component -> the kinds that answer with it alone
    for kind, components in answers.items():
        if len(components) == 1:
            alone.setdefault(next(iter(components)), []).append(kind)

    def home(component: str) -> str | None:
        named = _snake(component)
        if named in answers:
            return named
        only = alone.get(component, [])
        return only[0] if len(only) == 1 else None

    looked_up = {rule.kind for rule in rules.values() if rule.action == "lookup"}
    moves: dict[str, str] = {}
    for kind, components in answers.items():
        if len(components) < 2:
            continue
        own = next((c for c in components if home(c) == kind), None)
        for component, functions in components.items():
            apart = (
                own is not None
                and 2 * len(shown[own] & shown[component]) < min(len(shown[own]), len(shown[component]))
                and kind not in holds[component]  # a saved item {added_at, track} is the track
            )
            other = home(component)
            if other is not None and kind in looked_up and other not in looked_up:
                other = None  # a kind one can look up keeps what would move to a kind one cannot (GitHub's orgs)
            target = other or (_snake(component) if apart else None)
            if target is not None and target != kind:
                moves.update(dict.fromkeys((f for f in functions if f not in stays), target))
    return moves


def _snake(component: str) -> str:
    """``AnnotatedTag`` -> ``annotated_tag``, ``simple-user`` -> ``simple_user``: a kind named after a component."""
    return re.sub(r"[^a-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", component).lower()).strip("_")


def _words(component: str) -> list[str]:
    """The kinds a component's name may name, the last word first: ``nullable-simple-user`` -> ``user``, ``simple``, ...

    ``UserCompact`` gives ``compact``, ``user``: a word that is no kind is skipped.
    """
    words = re.split(r"[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])", component)
    return [singular(w) for w in reversed(words) if w]


def kinds_by_component(schema: GraphQLSchema | None, rules: Mapping[str, Rule], facts: Mapping[str, Any]) -> dict[str, str]:
    """Component -> the one kind whose endpoints answer with it (a nested ``owner`` that is a ``UserCompact`` is a user).

    A component two kinds answer with names neither.
    """
    found: dict[str, set[str]] = {}
    for rule in rules.values():
        entity = _entity_type(schema, rule) if schema is not None and rule.kind and not rule.view else None
        component = (facts.get(entity.name) or {}).get("component") if entity is not None else None
        if component is not None:
            found.setdefault(component, set()).add(rule.kind or "")
    return {component: next(iter(kinds)) for component, kinds in found.items() if len(kinds) == 1}


def _merged(entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Field facts of several types as one: for each field, the first type's that has any."""
    fields: dict[str, Any] = {}
    for entry in entries:
        for name, facts in (entry.get("fields") or {}).items():
            fields.setdefault(name, facts)
    return fields


def shared_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The type facts with every type of one component showing the fields' facts of all of them.

    Two endpoints that answer with one component may carry different facts
    for a field (one's example response shows a value, the other's none); a
    field of that component then gets the same value in both.
    """
    by_component: dict[str, list[str]] = {}
    for name in sorted(facts):
        component = facts[name].get("component")
        if component is not None:
            by_component.setdefault(component, []).append(name)
    out = dict(facts)
    for names in by_component.values():
        fields = _merged([facts[n] for n in names])
        out.update({n: {**facts[n], "fields": fields} for n in names})
    return out


def kind_facts(schema: GraphQLSchema | None, rules: Mapping[str, Rule], facts: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Kind -> its fields' facts from every endpoint that answers with its entities, the lookup's first.

    An entity's field shows one value in every view, so it has one set of
    facts whichever endpoint renders it.
    """
    if schema is None or not facts:
        return {}
    types: dict[str, list[tuple[int, str]]] = {}
    for function in sorted(rules):
        rule = rules[function]
        found = _entity_type(schema, rule) if rule.kind and not rule.view else None
        if found is not None and found.name in facts:
            types.setdefault(rule.kind or "", []).append((rule.action != "lookup", found.name))
    return {kind: _merged([facts[name] for _, name in sorted(dict.fromkeys(found), key=lambda t: t[0])]) for kind, found in types.items()}
