"""The generic world model: any catalog domain made coherent from its specs and SDL.

Each endpoint gets a handler from its :class:`~gqlbench.mocks.engine.rules.Rule`;
entities live in the world's tables and are rendered by
:class:`~gqlbench.mocks.engine.render.Renderer`. What holds for every domain, with
no Python:

* a lookup by path id returns the same entity, with the same values, that an
  earlier response showed; an id the world does not have is ``NotFound``;
* a child collection lists the entities linked to the parent (and the parent
  shows up in each child's own links);
* a search returns the entities whose stored text matches, and makes one
  named after an unknown query that later lookups find;
* POST, PUT/PATCH and DELETE change the tables; later calls see it, and a
  fixture's ``effects`` say what an action does (:mod:`gqlbench.mocks.engine.effects`);
* a key the user's request gives exists (``GET /pokemon/{id}`` with
  ``pikachu`` from "Tell me about Pikachu"), and a name given where the id is
  a number names the entity (its ``name`` is ``pikachu``); a key that is in
  neither the request nor an earlier response stays ``NotFound``;
* an entity is keyed by whatever its API uses (``symbol``, ``login``), and a
  response that wraps its payload (``{"data": ...}``) is answered wrapped;
* a name-like key of a kind with a numeric id (``/users/{username}``) names
  the entity whose ``login``/``name`` it is, and an object scope
  (``owner`` of ``/repos/{owner}/{repo}``) links the entity to the owner's;
  such an entity's ``full_name`` (``full_path``) string is its key joined,
  ``<owner's login>/<name>``.

A registered behaviour (:mod:`gqlbench.mocks.engine.registry`) may answer some
endpoints itself; its handlers take precedence over the rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLList, GraphQLObjectType, GraphQLOutputType, GraphQLSchema, get_named_type

from gqlbench.errors import GqlbenchError
from gqlbench.mocks.engine.declared import lists, make, paging
from gqlbench.mocks.engine.declared.checks import check_checks
from gqlbench.mocks.engine.declared.declarations import Declarations
from gqlbench.mocks.engine.effects import MAX_STORED_ITEMS, apply_effects, check_effects
from gqlbench.mocks.engine.kinds import (
    KEY_WORDS,
    NAME_KEYS,
    entity_kind,
    first_choice,
    known_kinds,
    list_object_of,
    object_of,
    reference,
    shape_kind,
    singular,
)
from gqlbench.mocks.engine.render import CHILDREN, JOINED_FIELDS, JoinedKey, Renderer, is_number
from gqlbench.mocks.engine.rules import Rule, payload_type
from gqlbench.mocks.engine.world import Handler, World, search_text
from gqlbench.mocks.errors import BadArguments, NotFound
from gqlbench.mocks.server.resolvers import generate_value

__all__ = ["COUNT_FIELDS", "LIMIT_PARAMS", "GenericModel", "domain_schema"]

COUNT_FIELDS = ("total", "total_results", "num_found", "count", "total_count")
LIMIT_PARAMS = ("limit", "per_page", "page_size", "pageSize", "perPage", "max_results", "maxResults")
"""Parameters that ask for at most this many items (the first one a call gives counts)."""
PAGING_FIELDS = ("meta", "pagination", "paging", "page_info")  # objects that carry a list's counts
_NAME_FIELDS = ("title", "name", "display_name", "label")
_NUMBER_PARAMS = ("number", "num", "index", "position")  # season_number names a season by a number, not a name
_PARAM_FIELDS = {"username": ("login", "username")}


def in_request(key: str, request: str) -> bool:
    """Whether ``key`` is written in the user's request as whole words (any case; ``science_fiction`` as "science fiction")."""
    spaced = re.sub(r"[_-]+", " ", key).strip()
    return any(
        bool(written) and re.search(rf"(?<!\w){re.escape(written)}(?!\w)", request, re.IGNORECASE) is not None for written in {key, spaced}
    )


def domain_schema(domain: str) -> GraphQLSchema | None:
    """The domain's merged response schema (None when it has no SDL)."""
    from gqlbench.schemas import build_schema
    from gqlbench.schemas.catalog import endpoints_with_sdl

    return build_schema(domain) if endpoints_with_sdl(domain) else None


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^\w']+", text.lower()) if w]


def _kind_of_param(param: str) -> str:
    return param[: -len("_id")] if param.endswith("_id") else param


def _last_word(param: str) -> str:
    """``repo_slug`` -> ``slug``, ``shipSymbol`` -> ``symbol``, ``league_id_or_slug`` -> ``id`` (lower case)."""
    return re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", first_choice(param))[-1].lower()


def _name_of_param(param: str, whole: GraphQLObjectType) -> str | None:
    """The text field a name-like key fills: ``username`` -> ``login``, a field of the parameter's name, a name-like field."""
    for name in (*_PARAM_FIELDS.get(param, ()), param, _last_word(param), *NAME_KEYS):
        field = whole.fields.get(name)
        if field is not None and name != "id" and getattr(get_named_type(field.type), "name", "") == "String":
            return name
    return None


def _whole(value: Any) -> Any:
    """A page size or number given as digits (``"20"``) as the integer it is; anything else as given."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _plain_args(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if v is not None and not k.endswith("_access_token")}


class GenericModel:
    """Handlers for every endpoint of a domain, from its rules (see the module docstring)."""

    def __init__(
        self,
        domain: str,
        rules: Mapping[str, Rule],
        schema: GraphQLSchema | None,
        declared: Declarations | None = None,
        fixture: Mapping[str, Any] | None = None,
        source: str | None = None,
        keys: Mapping[str, str] | None = None,
    ) -> None:
        self.domain = domain
        self.keys = dict(keys or {})  # kind -> key field (rules.infer_keys: path parameters, the fixture's "kinds")
        self.source = source or f"world fixture of {domain}"
        self.declared = declared or Declarations()
        self.rules = dict(rules)
        self.schema = schema
        self.render = Renderer(known_kinds(schema) if schema is not None else set(), fixture, self.keys)
        self.entity_types = self._entity_types()
        self.render.entities = {k: (t, own[1]) for k, t in self.entity_types.items() if (own := entity_kind(t, k, self.keys)) is not None}
        numbered = {kind for kind, whole in self.entity_types.items() if self._key_is_number(whole, kind)}
        self.render.numeric = numbered | self._number_params()
        self.render.named = self._named_kinds()
        self.render.joined = self._joined_keys()
        self.singletons = {rule.kind: rule for rule in self.rules.values() if rule.action == "singleton" and rule.kind}
        self.handlers: dict[str, Handler] = {}
        for function, rule in self.rules.items():
            where = f"{self.source}: endpoints.{function}"
            if rule.respond is not None:
                self.handlers[function] = self.declared.handler(rule.respond, f"{where}.respond")
                continue
            if rule.effects is not None:
                check_effects(rule.effects, where)
            if rule.paging is not None:
                paging.check_paging(rule.paging, where)
            if rule.checks is not None:
                check_checks(rule.checks, where)
            if rule.action in ("save", "unsave") and not (rule.collection and rule.kind):
                raise GqlbenchError(f'{where}: action {rule.action!r} needs "collection" (the saved list) and "kind"')
            if rule.action in ("act", "update", "delete", "children", "save", "unsave") and rule.id_param is None:
                raise GqlbenchError(f'{where}: action {rule.action!r} needs "id_param", the parameter that names the entity')

            method = getattr(self, f"_{rule.action}")
            self.handlers[function] = self._bind(method, rule)

    @staticmethod
    def _bind(method: Any, rule: Rule) -> Handler:
        return lambda world, args: method(world, rule, args)

    def _response_type(self, rule: Rule) -> GraphQLOutputType | None:
        if self.schema is None or self.schema.query_type is None or rule.function not in self.schema.query_type.fields:
            return None
        return self.schema.query_type.fields[rule.function].type

    def _root(self, rule: Rule) -> GraphQLObjectType | None:
        """The object the endpoint answers with (inside its envelope, if it has one)."""
        return payload_type(self.schema, rule)

    def _entity_types(self) -> dict[str, GraphQLObjectType]:
        """Each kind's type where it is looked up by its key: the entity as a whole."""
        found: dict[str, GraphQLObjectType] = {}
        for rule in self.rules.values():
            body = self._root(rule)
            if rule.action in ("lookup", "singleton") and not rule.view and rule.kind and body is not None:
                if entity_kind(body, rule.kind, self.keys) is not None:
                    found.setdefault(rule.kind, body)
                elif (inner := self._kind_field(body, rule.kind)) is not None:  # {"server": {...}, "action": {...}}
                    found.setdefault(rule.kind, inner)
        return found

    def _named_kinds(self) -> dict[str, tuple[GraphQLObjectType, str]]:
        """Kinds a lookup names by a name rather than by their key, with their type and name field.

        ``/users/{username}`` names a user (keyed by a numeric ``id``) by its
        ``login``; Bitbucket's ``/repositories/{workspace}/{repo_slug}`` names
        a repository (keyed by its ``uuid``) by its ``name``. A parameter
        whose last word is the key (``{shipSymbol}``, ``{task_gid}``), an
        ``<kind>_id`` and a number (``{season_number}``) name the key itself;
        a bare ``{id}`` names by a name only a kind whose key is a number
        (PokeAPI's ``pikachu``).
        """
        found: dict[str, tuple[GraphQLObjectType, str]] = {}
        for rule in self.rules.values():
            whole = self.entity_types.get(rule.kind or "")
            param = rule.id_param
            if rule.action != "lookup" or rule.view or whole is None or param is None or param.lower().endswith(_NUMBER_PARAMS):
                continue
            own = entity_kind(whole, rule.kind, self.keys)
            name = _name_of_param(param, whole)
            if own is None or name is None or name == own[1]:
                continue
            tail = _last_word(param)
            says_id = tail == "id" and (reference(param) is not None or not self._numeric_key(rule, rule.kind or ""))
            if tail != own[1].lower() and not says_id:
                found.setdefault(rule.kind or "", (whole, name))
        return found

    def _joined_keys(self) -> dict[str, JoinedKey]:
        """Kinds named by a compound key of object scopes and a name (``/repos/{owner}/{repo}``) with a field that shows it joined.

        The field is a String called one of :data:`JOINED_FIELDS` (``full_name``);
        each scope parameter names an object field of the entity shaped like a
        named kind (``owner``, a user), so ``full_name`` is ``<owner's login>/<name>``.
        """
        found: dict[str, JoinedKey] = {}
        for rule in self.rules.values():
            kind = rule.kind or ""
            whole = self.entity_types.get(kind)
            if rule.action != "lookup" or rule.view or not rule.scope or whole is None or kind not in self.render.named:
                continue
            targets = [object_of(whole.fields[p].type) if p in whole.fields else None for p in rule.scope]
            scope = [shape_kind(t, self.render.named) if t is not None else None for t in targets]
            fields = [
                n for n in JOINED_FIELDS if n in whole.fields and getattr(get_named_type(whole.fields[n].type), "name", "") == "String"
            ]
            if fields and all(other is not None and other != kind for other in scope):
                found.setdefault(kind, JoinedKey(fields[0], tuple(scope)))  # type: ignore[arg-type]
        return found

    def key_field(self, kind: str, record: dict[str, Any] | None = None) -> str:
        """The field that holds a kind's key: as its lookups show it, else as a fixture record writes it."""
        body = self.entity_types.get(kind)
        own = entity_kind(body, kind, self.keys) if body is not None else None
        if own is not None and own[0] == kind:
            return own[1]
        for name in ([self.keys[kind]] if kind in self.keys else []) + [f"{kind}_id", *KEY_WORDS]:
            if record is not None and name in record:
                return name
        return f"{kind}_id"

    def _bare_list(self, rule: Rule) -> GraphQLObjectType | None:
        """The element type when the endpoint answers with a list itself (``GET /pets`` -> ``[Pet]``)."""
        response = self._response_type(rule)
        return list_object_of(response) if response is not None else None

    def _item_type(self, rule: Rule) -> GraphQLObjectType | None:
        """The object type of the items a rule lists (its ``list_field``'s elements, or the bare list's)."""
        root = self._root(rule)
        if root is None or rule.list_field not in root.fields:
            return self._bare_list(rule)
        return list_object_of(root.fields[rule.list_field].type)

    def _number_params(self) -> set[str]:
        """Kinds a lookup takes by a number (GitLab's ``/users/{id}`` takes an integer, though a user's ``id`` shows as a string)."""
        query = self.schema.query_type.fields if self.schema is not None and self.schema.query_type else {}
        found = set()
        for rule in self.rules.values():
            args = query[rule.function].args if rule.function in query else {}
            if rule.action == "lookup" and rule.kind and not rule.open and rule.id_param in args and is_number(args[rule.id_param].type):
                found.add(rule.kind)
        return found

    def _key_is_number(self, whole: GraphQLObjectType, kind: str) -> bool:
        own = entity_kind(whole, kind, self.keys)
        return own is not None and is_number(whole.fields[own[1]].type)

    def _numeric(self, rule: Rule, kind: str) -> bool:
        """Whether the kind's ids are numbers in this endpoint's response (TMDB-like APIs) or where the kind is looked up."""
        if kind in self.render.numeric:
            return True
        for holder in (self._root(rule), self._item_type(rule)):
            for name in (f"{kind}_id", "id"):
                field = holder.fields.get(name) if holder is not None else None
                if field is not None:
                    return is_number(field.type)
        return False

    # -- loading --------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any], handled: frozenset[str] = frozenset()) -> None:
        """Fixture entities into the tables; kinds that an endpoint lists get a few if the fixture has none.

        ``handled`` endpoints are answered by a behaviour, which seeds its own.
        """
        scope, recipes = self.declared.scope(world, {}), fixture.get("make") or {}
        for kind, records in (fixture.get("entities") or {}).items():  # in file order: ids depend on the order of making
            if kind in recipes:
                make.entities(scope, kind, records, self.source)  # made by the kind's recipe (declared.make)
            else:
                for record in records:
                    self._load_entity(world, kind, record)  # stored as written
        make.load(scope, fixture, self.source)  # the state's references to them (declared.make)
        for rule in self.rules.values():
            declared = rule.function in handled or rule.respond is not None  # answered by a behaviour or a template
            if rule.action in ("list", "search") and rule.kind and not declared and not rule.collection and not world.table(rule.kind):
                for n in range(CHILDREN):
                    entity_id = self.render.new_id(world, rule.kind, "seed", n, numeric=self._numeric(rule, rule.kind))
                    self.render.ensure(world, rule.kind, entity_id)

    def _load_entity(self, world: World, kind: str, record: dict[str, Any]) -> str:
        id_field = self.key_field(kind, record)
        if id_field not in record:
            raise GqlbenchError(
                f"world fixture of {self.domain}: an entity of kind {kind!r} has no {id_field!r}; "
                f'give each {kind} its key ({id_field}), or set the endpoint\'s "key" in the fixture'
            )
        entity_id = str(record[id_field])
        values: dict[str, Any] = {}
        for name, value in record.items():
            if name == id_field:
                continue
            other = self._linked_kind(name, value)
            if other is None:
                values[name] = value
                continue
            for item in value if isinstance(value, list) else [value]:
                self.render.link(world, kind, entity_id, other, self._load_entity(world, other, item))
        world.table(kind).setdefault(entity_id, {}).update(values)
        return entity_id

    @staticmethod
    def _linked_kind(name: str, value: Any) -> str | None:
        """The kind of an entity written inside another one (``"authors": [{"author_id": ...}]``)."""
        first = value[0] if isinstance(value, list) and value else value
        if not isinstance(first, dict):
            return None
        if f"{singular(name)}_id" in first or "id" in first:
            return singular(name)
        ids = [k for k in first if k.endswith("_id")]
        return ids[0][: -len("_id")] if ids else None

    def complete(self, world: World, kind: str, record: dict[str, Any]) -> None:
        """The fixture's generated fields (``"generate"``), then its ``grow.fill`` steps; other values are derived when rendered."""
        self.declared.complete(world, kind, record)

    # -- answers ----------------------------------------------------------------------
    def _wrap(self, rule: Rule, payload: Any) -> Any:
        return {rule.envelope: payload} if rule.envelope else payload

    def _entity(self, world: World, rule: Rule, entity_id: str) -> Any:
        root = self._root(rule)
        if root is None or rule.kind is None:
            return self._echo(world, rule, {})
        if rule.view:
            record = world.table(rule.kind)[entity_id]
            return self._wrap(rule, self.render.nested(world, root, rule.kind, entity_id, rule.view, record.get(rule.view), 0))
        if entity_kind(root, rule.kind, self.keys) is None and self._wrapped(root, rule.kind):  # {"ship": {...}, "agent": {...}}
            return self._wrap(rule, self.parts(world, root, rule.kind, entity_id))
        return self._wrap(rule, self.render.entity(world, root, rule.kind, entity_id))

    def _wrapped(self, root: GraphQLObjectType, kind: str) -> bool:
        """Whether the answer holds the entity under a field named after its kind (``{"order": {...}}``)."""
        return self._kind_field(root, kind) is not None

    def _kind_field(self, root: GraphQLObjectType, kind: str) -> GraphQLObjectType | None:
        """The entity's type where the answer holds it under a field named after its kind, else None."""
        for name, field in root.fields.items():
            target = object_of(field.type)
            if target is not None and singular(name) == kind and entity_kind(target, kind, self.keys) is not None:
                return target
        return None

    def _numeric_key(self, rule: Rule, kind: str) -> bool:
        """Whether the kind's key is a number where this endpoint (or its lookups) show it."""
        body = self.entity_types.get(kind) or self._root(rule)
        return body is not None and self._key_is_number(body, kind)

    def resolve_key(self, world: World, rule: Rule, kind: str, key: str, open_: bool, args: Mapping[str, Any] | None = None) -> str:
        """The id of the entity a key names; an entity is made for an open key or one the user's request gives.

        A name where the key is a number (``pikachu`` for PokeAPI's ``{id}``,
        ``octocat`` for ``/users/{username}``) names the entity whose name
        field (``name``, ``login``) it is, stored or derived, so names an
        earlier response showed find their entity. An object scope
        (``owner`` of ``/repos/{owner}/{repo}``) links the entity to the
        scope's entity, and the name is unique only within it. What is neither
        known nor given is left for :meth:`World.get` to report as not found.
        """
        if key in world.table(kind):
            return key
        scope = self._object_scope(world, rule, kind, args or {}, open_)
        alias = "/".join([*(f"{k}:{i}" for k, i in scope), key.lower()])
        aliases = world.state.setdefault("aliases", {}).setdefault(kind, {})
        if alias in aliases:
            return str(aliases[alias])
        named = self._named(world, kind, key, scope)
        if named is not None:
            aliases[alias] = named
            return named
        if not (open_ or in_request(key, world.request)):
            return key
        if self._numeric_key(rule, kind) and not key.lstrip("-").isdigit():
            entity_id = self.render.new_id(world, kind, "named", key.lower(), *[i for _, i in scope], numeric=True)
            field = self.render.named[kind][1] if kind in self.render.named else self._name_field(rule, kind)
            self.render.ensure(world, kind, entity_id, {field: key})
            for other, other_id in scope:
                self.render.link(world, kind, entity_id, other, other_id)
            aliases[alias] = entity_id
            return entity_id
        self.render.ensure(world, kind, key)
        return key

    def _named(self, world: World, kind: str, key: str, scope: list[tuple[str, str]]) -> str | None:
        """The entity of a named kind whose name field (stored or derived) is ``key``, within the scope's entities."""
        if kind not in self.render.named or key.lstrip("-").isdigit():
            return None
        links = world.state.get("links", {})
        for entity_id in world.table(kind):
            if str(self.render.name_of(world, kind, entity_id, *self.render.named[kind])) != key:
                continue
            mine = links.get(f"{kind}:{entity_id}", {})
            if all(other_id in mine.get(other, []) for other, other_id in scope):
                return entity_id
        return None

    def _object_scope(self, world: World, rule: Rule, kind: str, args: Mapping[str, Any], open_: bool) -> list[tuple[str, str]]:
        """``(kind, id)`` of each argument that names an object field of the entity shaped like a named kind.

        ``owner`` of ``/repos/{owner}/{repo}`` names the repository's owner, a user by its login.
        """
        whole = self.entity_types.get(kind)
        scope = []
        for param, value in args.items():
            field = whole.fields.get(param) if whole is not None and param != rule.id_param else None
            target = object_of(field.type) if field is not None else None
            other = shape_kind(target, self.render.named) if target is not None else None
            if other is not None and other != kind and isinstance(value, (str, int)):
                other_id = self.resolve_key(world, rule, other, str(value), open_)
                world.get(other, other_id)  # an owner the world does not have: not found, not any owner's
                scope.append((other, other_id))
        return scope

    def _lookup(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "root"
        if rule.id_param is None:
            key = self.singleton_id(world, rule, kind)
        else:
            key = self.resolve_key(world, rule, kind, str(args[rule.id_param]), rule.open, args)
        self._scoped(world, rule, kind, key, args)
        return self._entity(world, rule, key)

    def _scoped(self, world: World, rule: Rule, kind: str, key: str, args: dict[str, Any]) -> dict[str, Any]:
        """The entity, which must sit where the path puts it.

        The waypoint of ``/systems/{systemSymbol}/waypoints/{waypointSymbol}``
        is in that system.

        The first lookup records the scope's values on the entity (when its
        type has such a field); a later one under another scope is not found,
        like a compound key.
        """
        record = world.get(kind, key)
        whole = self.entity_types.get(kind) or self._root(rule)
        for param in rule.scope:
            if whole is None or param not in whole.fields or object_of(whole.fields[param].type) is not None or param not in args:
                continue
            given = args[param]
            if param not in record:
                record[param] = given
            elif str(record[param]) != str(given):
                raise NotFound(f"no {kind} with id {key!r} under {param} {given!r} in the mock world (it is under {record[param]!r})")
        return record

    def singleton_id(self, world: World, rule: Rule, kind: str) -> str:
        """The one entity of a kind the API has no key for (``GET /my/agent``), made on first use."""
        singletons = world.state.setdefault("singletons", {})
        if kind not in singletons:
            singletons[kind] = self.render.new_id(world, kind, "singleton", numeric=self._numeric_key(rule, kind))
            self.render.ensure(world, kind, singletons[kind])
        return str(singletons[kind])

    def _singleton(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        return self._lookup(world, rule, args)

    def _act(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        """An action on one entity (``POST /ships/{shipSymbol}/dock``): its effects, then the entity's parts it shows."""
        kind = rule.kind or "item"
        key = self.resolve_key(world, rule, kind, str(args[rule.id_param or "id"]), rule.open, args)
        record = self._scoped(world, rule, kind, key, args)
        self._change(world, rule, kind, key, record, args)
        world.tick()
        root = self._root(rule)
        if root is None:
            return self._echo(world, rule, args)
        if rule.view:
            return self._entity(world, rule, key)
        return self._wrap(rule, self.parts(world, root, kind, key))

    def parts(self, world: World, root: GraphQLObjectType, kind: str, key: str) -> dict[str, Any]:
        """A response's fields that show the entity (``contract``), its own parts (``nav``) or a singleton (``agent``)."""
        record = world.table(kind)[key]
        own = set(self.entity_types[kind].fields) if kind in self.entity_types else set()
        extra = self.render.computed(world, kind, key)
        out: dict[str, Any] = {}
        for name, field in root.fields.items():
            target = object_of(field.type)
            found = entity_kind(target, singular(name), self.keys) if target is not None else None
            if found is not None and found[0] == kind:
                out[name] = self.render.entity(world, target, kind, key)  # type: ignore[arg-type]
            elif name in extra and name not in record:
                out[name] = extra[name]
            elif name in own:
                value = self.render.nested(world, field.type, kind, key, name, record.get(name), 0)
                derived = generate_value(field.type, world, f"{kind}:{key}.{name}", name, self.render.facts(world, kind, root, name))
                out[name] = value if value is not None else record.get(name, derived)
            elif found is not None and found[0] in self.singletons and target is not None:
                other = self.singletons[found[0]]
                out[name] = self.render.entity(world, target, found[0], self.singleton_id(world, other, found[0]))
        return out

    def _change(self, world: World, rule: Rule, kind: str, key: str, record: dict[str, Any], args: dict[str, Any]) -> None:
        """Apply the endpoint's declared effects to the entity."""
        if not rule.effects:
            return
        whole = self.entity_types.get(kind)

        def shown(name: str) -> Any:
            if whole is None or name not in whole.fields:
                return None
            return self.render.entity(world, whole, kind, key).get(name)

        apply_effects(record, rule.effects, args, shown)

    def _page(self, world: World, rule: Rule, args: dict[str, Any], ids: list[str]) -> Any:
        root, item_type = self._root(rule), self._item_type(rule)
        if item_type is None or (root is not None and rule.list_field is None):
            return self._wrap(rule, {})
        if rule.paging is not None:
            return self._wrap(rule, self._declared_page(world, rule, args, ids, item_type))
        size = next((name for name in LIMIT_PARAMS if args.get(name) is not None), "limit")  # limit, per_page, page_size...
        limit, page = (_whole(args.get(name)) for name in (size, "page"))  # Notion types page_size as a string: "1" is 1
        for name, value in ((size, limit), ("page", page)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < (name == "page")):
                raise BadArguments(f"{name} must be a {'positive' if name == 'page' else 'non-negative'} integer, got {value!r}")
        start = (page - 1) * limit if page is not None and limit is not None else 0
        shown = ids[start : start + limit] if limit is not None else ids
        items = [self.render.entity(world, item_type, rule.kind or "item", i) for i in shown]
        if root is None or rule.list_field is None:  # the answer is the list itself
            return items
        out: dict[str, Any] = {rule.list_field: items}
        out.update({name: len(ids) for name in COUNT_FIELDS if name in root.fields})
        for name in PAGING_FIELDS:
            holder = object_of(root.fields[name].type) if name in root.fields else None
            if holder is not None:
                counts = {f: len(ids) for f in COUNT_FIELDS if f in holder.fields}
                counts.update({f: v for f, v in (("page", page or 1), ("limit", limit)) if f in holder.fields and v is not None})
                out[name] = counts
        if rule.id_param and rule.id_param in root.fields:
            out[rule.id_param] = args[rule.id_param]
        return self._wrap(rule, out)

    def _declared_page(self, world: World, rule: Rule, args: dict[str, Any], ids: list[str], item_type: GraphQLObjectType) -> Any:
        """The page the fixture declares (:mod:`gqlbench.mocks.engine.declared.paging`), its items rendered once cut."""
        out = paging.page(ids, rule.paging or {}, args)
        body = out[rule.paging["under"]] if rule.paging and rule.paging.get("under") else out
        body["items"] = [self.render.entity(world, item_type, rule.kind or "item", i) for i in body["items"]]
        return out

    def _save(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        """Add the ids to the saved list (:mod:`gqlbench.mocks.engine.declared.lists`)."""
        wanted = lists.split_ids(args[rule.id_param or "ids"], rule.id_param or "ids")
        lists.change(world, rule.collection or "", rule.kind or "item", wanted, add=True, stamp=rule.stamp)
        return self._echo(world, rule, args)

    def _unsave(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        wanted = lists.split_ids(args[rule.id_param or "ids"], rule.id_param or "ids")
        lists.change(world, rule.collection or "", rule.kind or "item", wanted, add=False)
        return self._echo(world, rule, args)

    def _children(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        parent = rule.parent or "parent"
        key = self.resolve_key(world, rule, parent, str(args[rule.id_param or "id"]), rule.open, args)
        world.get(parent, key)
        kind = rule.kind or "item"
        ids = self.render.linked(world, parent, key, kind, self._numeric(rule, kind))
        text = search_text(str(args.get(rule.text_param or "") or ""), rule.text_param or "q") if rule.text_param else ""
        if text:  # a filter given: the children it matches, else one named after it (as a search finds one)
            ids = [i for i in ids if self._matches(world, kind, i, world.table(kind).get(i, {}), text, {})]
            if not ids:
                ids = [self._create_for(world, rule, text, {})]
                self.render.link(world, parent, key, kind, ids[0])
        return self._page(world, rule, args, ids)

    def _list(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        if rule.collection:
            return self._page(world, rule, args, lists.ids(world, rule.collection))
        return self._page(world, rule, args, list(world.table(rule.kind or "item")))

    def _search(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        if args.get(rule.text_param or "q") is None:  # an optional filter left out: the endpoint lists
            return self._list(world, rule, args)
        text = search_text(args.get(rule.text_param or "q") or "", rule.text_param or "q")
        if not text:
            raise BadArguments(f"{rule.text_param} is empty; pass the words to search for")
        filters = {
            _kind_of_param(k): str(v)
            for k, v in _plain_args(args).items()
            if k != rule.text_param and isinstance(v, str) and _kind_of_param(k) in self.render.kinds
        }
        found = [i for i, r in world.table(kind).items() if self._matches(world, kind, i, r, text, filters)]
        if not found:
            found = [self._create_for(world, rule, text, filters)]
        return self._page(world, rule, args, found)

    def _text(self, world: World, kind: str, record: dict[str, Any]) -> str:
        return " ".join(str(v) for v in record.values() if isinstance(v, (str, int)))

    def _matches(self, world: World, kind: str, entity_id: str, record: dict[str, Any], text: str, filters: dict[str, str]) -> bool:
        world.checkpoint()
        words = set(_words(self._text(world, kind, record)))
        if not all(w in words for w in _words(text)):
            return False
        links = world.state.get("links", {}).get(f"{kind}:{entity_id}", {})
        for other, wanted in filters.items():
            names = " ".join(self._text(world, other, world.table(other).get(i, {})) for i in links.get(other, []))
            if not set(_words(wanted)) <= set(_words(names)):
                return False
        return True

    def _create_for(self, world: World, rule: Rule, text: str, filters: dict[str, str]) -> str:
        """An entity named after an unknown query (and linked to the filters' entities)."""
        kind = rule.kind or "item"
        entity_id = self.render.new_id(world, kind, "search", text.lower(), numeric=self._numeric(rule, kind))
        name = " ".join(text.split())
        self.render.ensure(world, kind, entity_id, {self._name_field(rule): name.title() if name.islower() else name})
        for other, wanted in filters.items():
            other_id = self.render.new_id(world, other, "named", wanted.lower())
            self.render.ensure(world, other, other_id, {"name": wanted})
            self.render.link(world, kind, entity_id, other, other_id)
        return entity_id

    def _name_field(self, rule: Rule, kind: str | None = None) -> str:
        item = self.entity_types.get(kind) if kind else None
        item = item or self._item_type(rule) or self._root(rule)
        names = [f for f in _NAME_FIELDS if item is not None and f in item.fields]
        return names[0] if names else "name"

    def _create(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        values = _plain_args(args)
        for name, value in values.items():
            named = reference(name)
            if named is not None and named[0] in self.render.kinds | ({rule.parent} - {None}):
                other = rule.parent if name == rule.id_param and rule.parent else named[0]
                if isinstance(value, (str, int)):
                    values[name] = type(value)(self.resolve_key(world, rule, other, str(value), False))
                world.get(other, values[name])
        count = world.state.get("created", 0) + 1
        if count > MAX_STORED_ITEMS:  # each is kept for the world's life
            raise BadArguments(f"the world has made {MAX_STORED_ITEMS:,} entities for calls, the mock's limit; reset it to make more")
        world.state["created"] = count
        numeric = self._numeric(rule, kind) or (kind in self.entity_types and self._numeric_key(rule, kind))
        entity_id = self.render.new_id(world, kind, "created", count, numeric=numeric)
        own_key = self.key_field(kind) if kind in self.entity_types else None
        given = values.get(own_key) if own_key is not None else None
        fits = own_key != "id" or (isinstance(given, int) and not isinstance(given, bool)) == numeric  # an id of the kind's kind of ids
        if own_key is not None and isinstance(given, (str, int)) and fits:  # a domain created by its name, a site by its given id
            entity_id = str(values.pop(own_key))
            if world.has(kind, entity_id):
                raise BadArguments(f"a {kind} with {own_key} {entity_id!r} exists already; choose another {own_key}")
        self.render.ensure(world, kind, entity_id, values)
        for name, value in values.items():
            named = reference(name)
            if named is not None and world.has(named[0], value):
                self.render.link(world, kind, entity_id, named[0], str(value))
        if rule.id_param and rule.parent:
            parent_key = self.resolve_key(world, rule, rule.parent, str(args[rule.id_param]), rule.open, args)  # a name finds its entity
            self.render.link(world, rule.parent, parent_key, kind, entity_id)
            if rule.effects and world.has(rule.parent, parent_key):  # POST /playlists/{id}/tracks: the playlist changes
                self._change(world, rule, rule.parent, parent_key, world.get(rule.parent, parent_key), args)
        world.tick()
        return self._entity(world, rule, entity_id)

    def _update(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        key = self.resolve_key(world, rule, kind, str(args[rule.id_param or "id"]), rule.open, args)
        record = self._scoped(world, rule, kind, key, args)
        if rule.parent:  # PUT /user/tags/{tag_id}/shows/{show_id}: the show is now among the tag's
            parent = self._list_parent(world, rule, args)
            self.render.link(world, rule.parent, parent, kind, key)
        elif rule.effects:
            self._change(world, rule, kind, key, record, args)
        else:
            record.update({k: v for k, v in _plain_args(args).items() if k != rule.id_param})
        world.tick()
        return self._entity(world, rule, key)

    def _list_parent(self, world: World, rule: Rule, args: dict[str, Any]) -> str:
        """The key of the parent whose list an update adds to or a delete removes from (its children made first, so they stay)."""
        parent = rule.parent or "parent"
        key = self.resolve_key(world, rule, parent, str(args[rule.scope[-1]]), rule.open, args)
        world.get(parent, key)
        self.render.linked(world, parent, key, rule.kind or "item", self._numeric(rule, rule.kind or "item"))
        return key

    def _delete(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        key = self.resolve_key(world, rule, kind, str(args[rule.id_param or "id"]), rule.open, args)
        world.get(kind, key)
        if rule.parent:  # DELETE /user/tags/{tag_id}/shows/{show_id}: off the tag's list, still a show
            self.render.unlink(world, rule.parent, self._list_parent(world, rule, args), kind, key)
        else:
            del world.table(kind)[key]
            self.render.unlink_all(world, kind, key)
        world.tick()
        return {"ok": True}

    def _echo(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        """What the schema filler completes: an empty object or list, or a scalar (list) it cannot fill."""
        response = self._response_type(rule)
        if response is None or object_of(response) is not None:
            return {}
        if self._bare_list(rule) is not None or list_object_of(response) is not None:
            return []
        inner = response.of_type if hasattr(response, "of_type") and not isinstance(response, GraphQLList) else response
        return generate_value(inner, world, f"{rule.function}:{sorted(_plain_args(args).items())!r}", rule.function)
