"""How each endpoint of a domain behaves in the generic world, inferred from its shape.

A :class:`Rule` says what an endpoint does to the world's entities. It is
inferred from the endpoint's path (from the SDL's ``@rest`` directive, or the
function name when there is no SDL), its method, its parameter names and its
response type:

* ``GET /books/{book_id}`` -> ``lookup`` of a ``book`` by ``book_id``
  (an unknown id is not found, whatever the key is called; a fixture declares
  ``"open": true`` for a lookup that takes any key, such as a subject name);
  ``GET /issues/{issue_number}`` looks an issue up by its ``number``
  (:func:`infer_keys`);
* ``GET /authors/{author_id}/books`` -> ``children`` of an author;
  ``GET /editions/{edition_id}/availability`` (a singular tail) -> ``lookup``
  of the edition, whose fields include the availability;
* a ``q``/``query``/``name``/``search`` parameter and a list in the response
  -> ``search``, or under a parent (``GET /domains/{domain_name}/records?name=``)
  the parent's ``children`` that the text filters; ``GET /me/loans`` (a list, no path id) -> ``list``; a
  response that is itself a list (``GET /pets`` -> ``[Pet]``) has no
  ``list_field``: the answer is the list;
* ``POST`` -> ``create``, ``PUT``/``PATCH`` with a path id -> ``update``,
  ``DELETE`` with a path id -> ``delete``; ``POST /ships/{shipSymbol}/dock``
  (a verb after the path id) -> ``act`` on the ship; anything else -> ``echo``
  (the schema filler answers).

Keys need not be called ``id``: ``{shipSymbol}`` names a ship by its
``symbol``, ``{contractId}`` a contract by its ``id``
(:func:`~gqlbench.mocks.engine.kinds.reference`). A response that wraps its payload
(``{"data": {...}}``) has an ``envelope``; a singular tail that is a field of
the entity (``GET /ships/{shipSymbol}/nav``) is a ``view`` of that field.

A world fixture overrides any of these per endpoint (``"endpoints":
{"GET_x": {"action": "search", "kind": "book"}}``) and declares what a write
does to the entity it names (``"effects": {"set": {"accepted": true}}``; see
:mod:`gqlbench.mocks.engine.effects`), the page that wraps a list (``paging``,
:mod:`gqlbench.mocks.engine.declared.paging`), the values an argument may take (``checks``,
:mod:`gqlbench.mocks.engine.declared.checks`) and the saved list a ``save``/``unsave``/``list``
works on (``collection``, :mod:`gqlbench.mocks.engine.declared.lists`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields, replace
from itertools import pairwise
from typing import Any

from graphql import GraphQLField, GraphQLObjectType, GraphQLSchema, StringValueNode

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.kinds import (
    KEY_TAILS,
    NAME_KEYS,
    entity_kind,
    envelope_of,
    first_choice,
    is_generic,
    list_object_of,
    object_of,
    param_key,
    reference,
    singular,
)

__all__ = ["ACTIONS", "TEXT_PARAMS", "Rule", "endpoint_path", "infer_keys", "infer_rule", "infer_rules", "item_kind", "payload_type"]

ACTIONS = ("lookup", "children", "search", "list", "singleton", "create", "update", "delete", "act", "echo", "save", "unsave")
TEXT_PARAMS = ("q", "query", "name", "search", "keyword", "text")
_ACTION_WORDS = frozenset({"search", "find", "query", "filter", "list", "all"})  # path words that name no entity


@dataclass(frozen=True)
class Rule:
    """What one endpoint does; every field can be set per endpoint in a world fixture."""

    function: str
    action: str
    kind: str | None = None  # the entity kind of the root (lookup, create...) or of the listed items
    id_param: str | None = None  # the path parameter naming the entity (lookup, update, delete) or the parent
    parent: str | None = None  # the parent's kind (children, create under a parent; update, delete: add to, remove from its list)
    list_field: str | None = None  # the response field that holds the items (children, search, list)
    text_param: str | None = None  # the search text (search), or a filter of the children (children)
    open: bool = False  # lookup: any key exists (a subject name), instead of not found
    envelope: str | None = None  # the response field that wraps the payload ({"data": {...}})
    view: str | None = None  # the entity's field this endpoint shows (GET /ships/{shipSymbol}/nav -> nav)
    scope: tuple[str, ...] = ()  # path parameters before the key (/systems/{systemSymbol}/waypoints/{waypointSymbol})
    effects: Mapping[str, Any] | None = None  # what the call does to the entity it names (fixture only)
    respond: Any = None  # a template that answers the call (fixture only; gqlbench.mocks.engine.declared.declarations)
    paging: Mapping[str, Any] | None = None  # the page object that wraps the items (fixture only; mocks/engine/declared/paging.py)
    checks: Mapping[str, Any] | None = None  # allowed values of arguments (fixture only; mocks/engine/declared/checks.py)
    collection: str | None = None  # the saved list a save/unsave/list works on (fixture only; mocks/engine/declared/lists.py)
    stamp: str | None = None  # save: the field that records when an entry was saved (mocks/engine/declared/lists.py)

    def describe(self) -> dict[str, Any]:
        """The rule as a fixture's ``endpoints`` entry (defaults left out)."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if f.name != "function" and getattr(self, f.name) not in (None, False, ())
        }


_PARAM = re.compile(r"\{([^}]+)\}")


def path_segments(path: str) -> list[str]:
    """A path's segments, a parameter always a whole ``{name}`` segment (``{id}.json`` -> ``{id}``).

    Every reader of segments takes ``{name}`` as exactly one parameter; public
    files also write ``/t/{id}.json`` or ``/{owner}-{repo}``, so a segment holding
    parameters becomes those parameters alone, its literal remainder dropped.
    """
    segments: list[str] = []
    for segment in (s for s in path.split("/") if s):
        names = _PARAM.findall(segment)
        segments += [f"{{{n}}}" for n in names] if names else [segment]
    return segments


def endpoint_path(function: str, field: GraphQLField | None, params: list[str]) -> list[str]:
    """Path segments, parameters as ``{name}``: from ``@rest(endpoint:)``, else from the name."""
    node = field.ast_node if field is not None else None
    for directive in getattr(node, "directives", None) or ():
        for argument in directive.arguments:
            if argument.name.value == "endpoint" and isinstance(argument.value, StringValueNode):
                url = re.sub(r"^[a-z]+://[^/]+", "", argument.value.value).split("?")[0]
                return path_segments(re.sub(r"\$(\w+);?", r"{\1}", url))
    rest = function.split("_", 1)[1] if "_" in function else ""
    for param in sorted(params, key=len, reverse=True):
        rest = re.sub(rf"(?:^|_)_{re.escape(param)}_(?=_|$)", f"/{{{param}}}/", rest)
    segments: list[str] = []
    for part in rest.split("/"):
        segments += [part] if part.startswith("{") else [s for s in part.split("_") if s]
    return segments


def _kind_before(segments: list[str], index: int, param: str) -> str:
    """The kind a path parameter names: ``shelf`` for ``{shelf_id}``, ``ship`` for ``{shipSymbol}``, else the segment before it.

    A parameter right after another one names its kind itself when its last
    word is a key word (``/project/{username}/{project}/{build_num}``: a build).
    """
    named = reference(param)
    if named is not None:
        return named[0]
    head, _, tail = first_choice(param).rpartition("_")
    if index > 0 and segments[index - 1].startswith("{") and head and tail.lower() in KEY_TAILS:
        return head
    before = [s for s in segments[:index] if not s.startswith("{")]
    return singular(before[-1]) if before else param


def item_kind(element: GraphQLObjectType, hint: str | None, keys: Mapping[str, str]) -> tuple[str, str] | None:
    """``(kind, key field)`` of a listed item: an entity, or a wrapper around one (Spotify's saved ``{added_at, track}``).

    A wrapper has no key of its own and exactly one field holding an entity
    (named after its kind, or after the path's noun).
    """
    found = entity_kind(element, hint, keys)
    if found is not None:
        return found
    held = [
        inner
        for name, field in element.fields.items()
        if (target := object_of(field.type)) is not None and (inner := entity_kind(target, singular(name), keys)) is not None
    ]
    named = [found for found in held if found[0] == hint] if len(held) > 1 else held  # {added_at, added_by, track} under /tracks
    return named[0] if len(named) == 1 and not is_generic(named[0][0]) else None


def _bare_items(field: GraphQLField | None, literal: list[str], keys: Mapping[str, str]) -> tuple[None, str] | None:
    """``(None, kind)`` when the response is itself a list of entities (``GET /pets`` -> ``[Pet]``)."""
    element = list_object_of(field.type) if field is not None else None
    nouns = [segment for segment in literal if segment.lower() not in _ACTION_WORDS]  # /goats/search lists goats
    found = item_kind(element, singular(nouns[-1]) if nouns else None, keys) if element is not None else None
    return (None, found[0]) if found else None


def _items(root: GraphQLObjectType | None, noun: str | None, keys: Mapping[str, str]) -> tuple[str, str] | None:
    """``(field, kind)`` of the root's first list of entities; a generic holder (``data: [...]``) takes the path's noun."""
    for name, field in root.fields.items() if root else ():
        element = list_object_of(field.type)
        hint = noun if is_generic(singular(name)) and noun else singular(name)
        found = item_kind(element, hint, keys) if element is not None else None
        if found:
            return name, found[0]
    return None


def infer_rule(
    function: str,
    params: list[str],
    field: GraphQLField | None,
    keys: Mapping[str, str] | None = None,
    texts: Collection[str] | None = None,
) -> Rule:
    """The rule of one endpoint (see the module docstring); ``keys`` are the kinds' keys (:func:`infer_keys`).

    ``texts`` are the parameters that take text (a search's ``q`` must be a
    string; Pandascore's ``search`` is an object of filters); None: all of them.
    """
    keys = keys or {}
    texts = params if texts is None else texts
    method = function.split("_", 1)[0].upper()
    segments = endpoint_path(function, field, params)
    root = object_of(field.type) if field is not None else None
    where = [(i, s[1:-1]) for i, s in enumerate(segments) if s.startswith("{")]
    literal = [s for s in segments if not s.startswith("{")]
    last_param = where[-1] if where else None
    ends_in_param = bool(segments) and segments[-1].startswith("{")
    nouns = [s for s in literal if s.lower() not in _ACTION_WORDS]
    noun = singular(nouns[-1]) if nouns else None
    envelope = envelope_of(root) if root is not None else None
    if envelope is not None and object_of(root.fields[envelope].type) is not None:  # type: ignore[union-attr]
        root = object_of(root.fields[envelope].type)  # type: ignore[union-attr]  # rules read the payload
    else:
        envelope = None  # a wrapped list is a list field like any other
    items = _items(root, noun, keys) if root is not None else _bare_items(field, literal, keys)
    rule = _infer(function, method, segments, where, literal, last_param, ends_in_param, [p for p in params if p in texts], root, items)
    if rule.action in ("lookup", "act", "update", "delete") and len(where) > 1:
        rule = replace(rule, scope=tuple(param for _, param in where[:-1]))
    return replace(rule, envelope=envelope) if envelope and rule.action != "echo" else rule


def _infer(
    function: str,
    method: str,
    segments: list[str],
    where: list[tuple[int, str]],
    literal: list[str],
    last_param: tuple[int, str] | None,
    ends_in_param: bool,
    params: list[str],
    root: GraphQLObjectType | None,
    items: tuple[str | None, str] | None,
) -> Rule:
    if method == "GET":
        if root is None and items is None:
            return Rule(function, "echo")
        text = next((p for p in TEXT_PARAMS if p in params and p not in {w[1] for w in where}), None)
        if text and items and last_param and not ends_in_param and singular(literal[-1]) != literal[-1].lower():
            index, param = last_param  # /domains/{domain_name}/records?name=: the domain's records, filtered
            parent = _kind_before(segments, index, param)
            return Rule(function, "children", kind=items[1], id_param=param, parent=parent, list_field=items[0], text_param=text)
        if text and items:
            return Rule(function, "search", kind=items[1], list_field=items[0], text_param=text)
        if last_param and ends_in_param:
            index, param = last_param
            named = _kind_before(segments, index, param)
            if root is None and items and items[1] != named:  # TVmaze's /scrobble/shows/{show_id}: the show's episodes marked
                return Rule(function, "children", kind=items[1], id_param=param, parent=named)
            return Rule(function, "lookup", kind=named, id_param=param)
        if last_param:
            index, param = last_param
            parent = _kind_before(segments, index, param)
            tail = literal[-1]
            if items and (singular(tail) != tail.lower() or root is None):  # a plural tail, or an answer that is a list
                return Rule(function, "children", kind=items[1], id_param=param, parent=parent, list_field=items[0])
            return Rule(function, "lookup", kind=parent, id_param=param)
        if items:
            return Rule(function, "list", kind=items[1], list_field=items[0])
        return Rule(function, "singleton", kind=singular(literal[-1]) if literal else "root")
    if method in ("POST", "PUT", "PATCH") and last_param and not ends_in_param and singular(literal[-1]) == literal[-1].lower():
        index, param = last_param  # POST /ships/{shipSymbol}/dock: a verb (or a singular field) of the ship
        return Rule(function, "act", kind=_kind_before(segments, index, param), id_param=param)
    if method == "POST" and literal:
        kind = singular(literal[-1]) if not ends_in_param else None
        if kind is None:
            return Rule(function, "echo")
        owner = _kind_before(segments, last_param[0], last_param[1]) if last_param else None
        return Rule(function, "create", kind=kind, id_param=last_param[1] if last_param else None, parent=owner)
    if method in ("PUT", "PATCH", "DELETE") and last_param and ends_in_param:
        index, param = last_param
        action = "delete" if method == "DELETE" else "update"
        return Rule(function, action, kind=_kind_before(segments, index, param), id_param=param)
    return Rule(function, "echo")


def _views(rules: dict[str, Rule], paths: Mapping[str, list[str]], entity_fields: Mapping[str, set[str]]) -> dict[str, Rule]:
    """Lookups and acts whose path ends in a field of their entity (``/ships/{shipSymbol}/nav``) show that field."""
    out = dict(rules)
    for name, rule in rules.items():
        segments = paths[name]
        if rule.action not in ("lookup", "act") or not segments or segments[-1].startswith("{") or rule.kind is None:
            continue
        tail = _camel(segments[-1])
        if tail in entity_fields.get(rule.kind, set()) and tail != rule.kind:
            out[name] = replace(rule, view=tail)
    return out


def _camel(segment: str) -> str:
    """A path segment as a field name: ``jump-gate`` -> ``jumpGate``, ``nav`` stays."""
    head, *rest = re.split(r"[-_]", segment)
    return head + "".join(part.capitalize() for part in rest)


def _aliases(paths: Mapping[str, list[str]]) -> dict[str, str]:
    """Plural segments -> the kind their ``{<kind>_id}`` names (``shelves/{shelf_id}``: shelve -> shelf)."""
    found = {}
    for segments in paths.values():
        for before, after in pairwise(segments):
            if not before.startswith("{") and after.startswith("{") and after.endswith("_id}"):
                kind = after[1:-4]
                if singular(before) != kind:
                    found[singular(before)] = kind
    return found


def _shape_aliases(schema: GraphQLSchema | None, rules: Mapping[str, Rule], keys: Mapping[str, str]) -> dict[str, str]:
    """Listed kinds that are a looked-up kind by shape: ``repository`` (``/search/repositories``) is ``repo``.

    The listed items must look like the lookup's answer, as two views of one
    OpenAPI component do: when the names agree (one starts with the other),
    80% of the items' fields are the lookup's and they are two thirds of its
    fields; when the listed kind ends with the other's name (``parentgoal``,
    ``subtask``) 80% of the items' fields (a compact goal) suffice; when they do not (Mastodon's ``followers`` are accounts, its home
    timeline lists statuses), at least four fields and 90% of both agree.
    The closest lookup wins.
    """
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    looked_up: dict[str, GraphQLObjectType | None] = {}
    for r in rules.values():  # the answer that is the entity (not GET .../{repo_slug}/commits, read as a lookup of it)
        body = payload_type(schema, r)
        if r.action != "lookup" or not r.kind or r.view:
            continue
        if looked_up.get(r.kind) is None or entity_kind(looked_up[r.kind], r.kind, keys) is None:  # type: ignore[arg-type]
            looked_up[r.kind] = body
    found: dict[str, tuple[float, str]] = {}
    for rule in rules.values():
        kind = rule.kind or ""
        if rule.action not in ("list", "search", "children") or kind in looked_up or rule.function not in query:
            continue
        root = payload_type(schema, rule)
        holder = root.fields.get(rule.list_field) if root is not None and rule.list_field else query[rule.function]
        element = list_object_of(holder.type) if holder is not None else None
        for other, whole in looked_up.items():
            if element is None or whole is None or other is None:
                continue
            mine, theirs = set(element.fields), set(whole.fields)
            shared = len(mine & theirs)
            named = (kind.startswith(other) or other.startswith(kind)) and min(len(kind), len(other)) >= 3
            if named and shared >= 0.8 * len(mine) and 3 * shared >= 2 * len(theirs):
                score = 1.0 + shared / len(mine | theirs)
            elif kind.endswith(other) and len(other) >= 3 and shared >= max(2, 0.8 * len(mine)):  # Asana's parentGoals: compact goals
                score = 1.0 + shared / len(mine | theirs)
            elif shared >= 4 and shared >= 0.9 * len(mine | theirs):
                score = shared / len(mine | theirs)
            else:
                continue
            if score > found.get(kind, (0.0, ""))[0]:
                found[kind] = (score, other)
    same = _same_lookups(rules, looked_up)
    return {**same, **{kind: same.get(other, other) for kind, (_, other) in found.items()}}


def _same_lookups(rules: Mapping[str, Rule], looked_up: Mapping[str, GraphQLObjectType | None]) -> dict[str, str]:
    """Looked-up kinds whose answers have the same fields (at least four, 90% of both) are one kind: the one looked up with fewer scopes.

    Gitea's ``/orgs/{org}/members/{username}`` answers the user ``/users/{username}`` does.
    """
    scopes: dict[str, int] = {}
    for rule in rules.values():
        if rule.action == "lookup" and rule.kind is not None and rule.kind in looked_up:
            scopes[rule.kind] = min(scopes.get(rule.kind, 99), len(rule.scope))
    found: dict[str, str] = {}
    kinds = sorted(looked_up, key=lambda k: (scopes.get(k, 99), len(k), k))
    for i, kind in enumerate(kinds):
        whole = looked_up[kind]
        for other in kinds[:i]:
            theirs = looked_up[other]
            if whole is None or theirs is None or other in found:
                continue
            shared = len(set(whole.fields) & set(theirs.fields))
            if shared >= 4 and shared >= 0.9 * len(set(whole.fields) | set(theirs.fields)):
                found[kind] = other
                break
    return found


def _creates(rules: Mapping[str, Rule], paths: Mapping[str, list[str]]) -> dict[str, Rule]:
    """A ``POST`` to the path a lookup extends by its key (``POST /project/{p}/envvar`` beside ``GET .../envvar/{name}``) creates one.

    Its tail is singular, so :func:`infer_rule` read it as an action on the
    parent; the lookup says it is a collection of its own kind.
    """
    collections = {
        tuple(paths[name][:-1]): rule
        for name, rule in rules.items()
        if rule.action == "lookup" and rule.kind and paths[name] and paths[name][-1].startswith("{")
    }
    out = dict(rules)
    for name, rule in rules.items():
        target = collections.get(tuple(paths[name]))
        if rule.action == "act" and name.upper().startswith("POST_") and target is not None and target.kind != rule.kind:
            out[name] = Rule(name, "create", kind=target.kind, id_param=rule.id_param, parent=rule.kind, envelope=rule.envelope)
    return out


def _memberships(rules: Mapping[str, Rule], paths: Mapping[str, list[str]]) -> dict[str, Rule]:
    """A ``PUT``/``DELETE`` of a key under a parent's list adds to it or removes from it.

    ``PUT /user/tags/{tag_id}/shows/{show_id}`` beside ``GET .../shows``: the
    show goes on the tag's list.

    The rule keeps its action and gains the list's ``parent``: the entity
    is linked to that parent (shown among its children) or unlinked from it,
    not changed or deleted itself.
    """
    lists = {tuple(paths[name]): rule for name, rule in rules.items() if rule.action == "children" and rule.parent and rule.kind}
    out = dict(rules)
    for name, rule in rules.items():
        held = lists.get(tuple(paths[name][:-1])) if paths[name] and paths[name][-1].startswith("{") else None
        if rule.action in ("update", "delete") and rule.scope and held is not None and held.kind == rule.kind and not rule.parent:
            out[name] = replace(rule, parent=held.parent)
    return out


def payload_type(schema: GraphQLSchema | None, rule: Rule) -> GraphQLObjectType | None:
    """The object an endpoint answers with, inside its envelope (None for a list or a scalar)."""
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    root = object_of(query[rule.function].type) if rule.function in query else None
    if root is not None and rule.envelope and rule.envelope in root.fields:
        return object_of(root.fields[rule.envelope].type)
    return root


def _entity_fields(schema: GraphQLSchema | None, rules: Mapping[str, Rule], keys: Mapping[str, str]) -> dict[str, set[str]]:
    """The fields each kind shows where it is looked up by its key (the entity's own fields)."""
    found: dict[str, set[str]] = {}
    for rule in rules.values():
        body = payload_type(schema, rule)
        if rule.action == "lookup" and rule.kind and body is not None and entity_kind(body, rule.kind, keys) is not None:
            found.setdefault(rule.kind, set()).update(body.fields)
    return found


def infer_keys(
    schema: GraphQLSchema | None,
    specs: Mapping[str, Any],
    declared: Mapping[str, str] | None = None,
    kinds: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Each kind's key field where a lookup's path parameter names it (``/issues/{issue_number}``: ``number``), then ``declared``.

    A lookup's kind is the one its path names, or ``kinds[function]`` (an
    endpoint moved to its component's kind, :func:`~gqlbench.mocks.engine.components.component_splits`).

    Only keys :func:`~gqlbench.mocks.engine.kinds.entity_kind` would not find
    by itself are named by a parameter (``number``, ``gid``, ``slug``...; see
    :func:`~gqlbench.mocks.engine.kinds.param_key`); an entity with no key
    field at all is keyed by its name (``/branches/{branch}``: ``name``); a
    fixture's ``kinds`` declarations (``declared``, kind -> key) win.
    """
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    keys: dict[str, str] = {}
    for name, spec in specs.items():
        field = query.get(name)
        segments = endpoint_path(name, field, list(spec.parameters.properties))
        root = object_of(field.type) if field is not None else None
        if not name.upper().startswith("GET_") or root is None or not segments or not segments[-1].startswith("{"):
            continue
        param = segments[-1][1:-1]
        named = _kind_before(segments, len(segments) - 1, param)
        kind = (kinds or {}).get(name, named)
        wrapper = envelope_of(root)
        body = object_of(root.fields[wrapper].type) if wrapper is not None else None
        body = body or (object_of(root.fields[named].type) if named in root.fields else None) or root  # {"server": {...}}
        found = param_key(param, body)
        own = entity_kind(body, kind, declared)
        if found is None and own is None:  # no key of its own: the name it is looked up by
            found = next((n for n in NAME_KEYS if n in body.fields and object_of(body.fields[n].type) is None), None)
        if found is None and param == "id" and own is not None and own[1] != "id" and "id" in body.fields:
            found = "id"  # /keys/{id} looks a deploy key up by its id, not by the key_id it also shows
        if found is not None:
            keys.setdefault(kind, found)
    return {**keys, **(declared or {})}


def _texts(spec: Any) -> list[str]:
    """The parameters of a function spec that take text (a string, or of no declared type)."""
    return [name for name, prop in spec.parameters.properties.items() if getattr(prop, "type", None) in (None, "string", "str")]


def infer_rules(
    schema: GraphQLSchema | None,
    specs: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    where: str = "world fixture",
    keys: Mapping[str, str] | None = None,
    same: Mapping[str, str] | None = None,
) -> dict[str, Rule]:
    """Every endpoint's rule, with the fixture's ``endpoints`` overrides applied.

    ``specs`` maps a function to its :class:`~gqlbench.records.FunctionSpec`;
    ``keys`` are the kinds' keys (:func:`infer_keys`) and ``same`` maps a kind
    name to the kind it is (the fixture's ``kinds.<kind>.same``).
    """
    query = schema.query_type.fields if schema is not None and schema.query_type else {}
    keys = keys or {}
    rules = {name: infer_rule(name, list(spec.parameters.properties), query.get(name), keys, _texts(spec)) for name, spec in specs.items()}
    paths = {name: endpoint_path(name, query.get(name), list(spec.parameters.properties)) for name, spec in specs.items()}
    rules = _creates(rules, paths)
    aliases = {**_aliases(paths), **_shape_aliases(schema, rules, keys), **(same or {})}
    rules = {
        name: replace(rule, kind=aliases.get(rule.kind or "", rule.kind), parent=aliases.get(rule.parent or "", rule.parent))
        for name, rule in rules.items()
    }
    rules = _memberships(_views(rules, paths, _entity_fields(schema, rules, keys)), paths)
    for function, change in (overrides or {}).items():
        if function not in rules:
            raise GqlbenchError(f"{where}: endpoints.{function}: the domain has no such function; use one of its specs' names")
        if not isinstance(change, dict):
            raise GqlbenchError(f'{where}: endpoints.{function} must be an object like {{"action": "lookup", "kind": "book"}}')
        allowed = {f.name for f in fields(Rule)} - {"function"}
        unknown = sorted(set(change) - allowed)
        if unknown:
            raise GqlbenchError(f"{where}: endpoints.{function}: unknown key {unknown[0]!r}; use {', '.join(sorted(allowed))}")
        if "action" in change and change["action"] not in ACTIONS:
            raise GqlbenchError(f"{where}: endpoints.{function}: action {change['action']!r} is not one of {', '.join(ACTIONS)}")
        if "scope" in change:
            change = {**change, "scope": tuple(change["scope"] or ())}
        rules[function] = replace(rules[function], **change)
    return rules
