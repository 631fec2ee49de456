"""The generic world model: any catalog domain made coherent from its specs and SDL.

Each endpoint gets a handler from its :class:`~gqlbench.mocks.rules.Rule`;
entities live in the world's tables and are rendered by
:class:`~gqlbench.mocks.render.Renderer`. What holds for every domain, with
no Python:

* a lookup by path id returns the same entity, with the same values, that an
  earlier response showed; an id the world does not have is ``NotFound``;
* a child collection lists the entities linked to the parent (and the parent
  shows up in each child's own links);
* a search returns the entities whose stored text matches, and makes one
  named after an unknown query that later lookups find;
* POST, PUT/PATCH and DELETE change the tables; later calls see it.

A registered behaviour (:mod:`gqlbench.mocks.registry`) may answer some
endpoints itself; its handlers take precedence over the rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLObjectType, GraphQLOutputType, GraphQLSchema, get_named_type

from gqlbench.mocks.errors import BadArguments
from gqlbench.mocks.kinds import known_kinds, list_object_of, object_of, singular
from gqlbench.mocks.render import CHILDREN, Renderer
from gqlbench.mocks.rules import Rule
from gqlbench.mocks.world import Handler, World, search_text

__all__ = ["COUNT_FIELDS", "GenericModel", "domain_schema"]

COUNT_FIELDS = ("total", "total_results", "num_found", "count", "total_count")
_NAME_FIELDS = ("title", "name", "display_name", "label")


def domain_schema(domain: str) -> GraphQLSchema | None:
    """The domain's merged response schema (None when it has no SDL)."""
    from gqlbench.schemas import build_schema
    from gqlbench.schemas.catalog import endpoints_with_sdl

    return build_schema(domain) if endpoints_with_sdl(domain) else None


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^\w']+", text.lower()) if w]


def _kind_of_param(param: str) -> str:
    return param[: -len("_id")] if param.endswith("_id") else param


def _plain_args(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if v is not None and not k.endswith("_access_token")}


class GenericModel:
    """Handlers for every endpoint of a domain, from its rules (see the module docstring)."""

    def __init__(self, domain: str, rules: Mapping[str, Rule], schema: GraphQLSchema | None) -> None:
        self.domain = domain
        self.rules = dict(rules)
        self.schema = schema
        self.render = Renderer(known_kinds(schema) if schema is not None else set())
        self.handlers: dict[str, Handler] = {}
        for function, rule in self.rules.items():
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
        response = self._response_type(rule)
        return object_of(response) if response is not None else None

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

    def _numeric(self, rule: Rule, kind: str) -> bool:
        """Whether the kind's ids are integers in this endpoint's response (TMDB-like APIs)."""
        for holder in (self._root(rule), self._item_type(rule)):
            for name in (f"{kind}_id", "id"):
                field = holder.fields.get(name) if holder is not None else None
                if field is not None:
                    return getattr(get_named_type(field.type), "name", "") == "Int"
        return False

    # -- loading --------------------------------------------------------------------
    def load(self, world: World, fixture: dict[str, Any], handled: frozenset[str] = frozenset()) -> None:
        """Fixture entities into the tables; kinds that an endpoint lists get a few if the fixture has none.

        ``handled`` endpoints are answered by a behaviour, which seeds its own.
        """
        for kind, records in (fixture.get("entities") or {}).items():
            for record in records:
                self._load_entity(world, kind, record)
        for rule in self.rules.values():
            if rule.action == "list" and rule.kind and rule.function not in handled and not world.table(rule.kind):
                for n in range(CHILDREN):
                    entity_id = self.render.new_id(world, rule.kind, "seed", n, numeric=self._numeric(rule, rule.kind))
                    self.render.ensure(world, rule.kind, entity_id)

    def _load_entity(self, world: World, kind: str, record: dict[str, Any]) -> str:
        id_field = f"{kind}_id" if f"{kind}_id" in record else "id"
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
        """Nothing to complete: missing values are derived when rendered."""

    # -- answers ----------------------------------------------------------------------
    def _entity(self, world: World, rule: Rule, entity_id: str) -> Any:
        root = self._root(rule)
        if root is None or rule.kind is None:
            return {"ok": True}
        return self.render.entity(world, root, rule.kind, entity_id)

    def _lookup(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        key = str(args[rule.id_param]) if rule.id_param else "me"
        if rule.open or rule.id_param is None:
            self.render.ensure(world, rule.kind or "root", key)
        world.get(rule.kind or "root", key)
        return self._entity(world, rule, key)

    def _singleton(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        return self._lookup(world, rule, args)

    def _page(self, world: World, rule: Rule, args: dict[str, Any], ids: list[str]) -> Any:
        root, item_type = self._root(rule), self._item_type(rule)
        if item_type is None or (root is not None and rule.list_field is None):
            return {}
        limit = args.get("limit")
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise BadArguments(f"limit must be a non-negative integer, got {limit!r}")
        shown = ids[:limit] if limit is not None else ids
        items = [self.render.entity(world, item_type, rule.kind or "item", i) for i in shown]
        if root is None or rule.list_field is None:  # the answer is the list itself
            return items
        out: dict[str, Any] = {rule.list_field: items}
        out.update({name: len(ids) for name in COUNT_FIELDS if name in root.fields})
        if rule.id_param and rule.id_param in root.fields:
            out[rule.id_param] = args[rule.id_param]
        return out

    def _children(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        parent, key = rule.parent or "parent", str(args[rule.id_param or "id"])
        if rule.open:
            self.render.ensure(world, parent, key)
        world.get(parent, key)
        ids = self.render.linked(world, parent, key, rule.kind or "item", self._numeric(rule, rule.kind or "item"))
        return self._page(world, rule, args, ids)

    def _list(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        return self._page(world, rule, args, list(world.table(rule.kind or "item")))

    def _search(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        text = search_text(args.get(rule.text_param or "q") or "", rule.text_param or "q")
        if not text:
            raise BadArguments(f"{rule.text_param} is empty; pass the words to search for")
        filters = {_kind_of_param(k): str(v) for k, v in _plain_args(args).items()
                   if k != rule.text_param and isinstance(v, str) and _kind_of_param(k) in self.render.kinds}
        found = [i for i, r in world.table(kind).items() if self._matches(world, kind, i, r, text, filters)]
        if not found:
            found = [self._create_for(world, rule, text, filters)]
        return self._page(world, rule, args, found)

    def _text(self, world: World, kind: str, record: dict[str, Any]) -> str:
        return " ".join(str(v) for v in record.values() if isinstance(v, (str, int)))

    def _matches(self, world: World, kind: str, entity_id: str, record: dict[str, Any], text: str,
                 filters: dict[str, str]) -> bool:
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

    def _name_field(self, rule: Rule) -> str:
        item = self._item_type(rule)
        names = [f for f in _NAME_FIELDS if item is not None and f in item.fields]
        return names[0] if names else "name"

    def _create(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind = rule.kind or "item"
        values = _plain_args(args)
        for name, value in values.items():
            if name.endswith("_id") and name[: -len("_id")] in self.render.kinds | ({rule.parent} - {None}):
                other = rule.parent if name == rule.id_param and rule.parent else name[: -len("_id")]
                world.get(other, value)
        count = world.state.get("created", 0) + 1
        world.state["created"] = count
        entity_id = self.render.new_id(world, kind, "created", count, numeric=self._numeric(rule, kind))
        self.render.ensure(world, kind, entity_id, values)
        for name, value in values.items():
            if name.endswith("_id") and world.has(name[: -len("_id")], value):
                self.render.link(world, kind, entity_id, name[: -len("_id")], str(value))
        if rule.id_param and rule.parent:
            self.render.link(world, rule.parent, str(args[rule.id_param]), kind, entity_id)
        world.tick()
        return self._entity(world, rule, entity_id)

    def _update(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        key = str(args[rule.id_param or "id"])
        record = world.get(rule.kind or "item", key)
        record.update({k: v for k, v in _plain_args(args).items() if k != rule.id_param})
        world.tick()
        return self._entity(world, rule, key)

    def _delete(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        kind, key = rule.kind or "item", str(args[rule.id_param or "id"])
        world.get(kind, key)
        del world.table(kind)[key]
        self.render.unlink_all(world, kind, key)
        world.tick()
        return {"ok": True}

    def _echo(self, world: World, rule: Rule, args: dict[str, Any]) -> Any:
        return [] if self._bare_list(rule) is not None else {}

