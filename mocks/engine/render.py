"""Entities of the generic world rendered as one endpoint's response type.

An entity is a record in ``world.tables[kind][id]`` holding the values that
were given (by the fixture, a search text, a POST's arguments); every other
field is derived from ``(kind, id, field)`` alone, so the same entity shows the
same values in every response that has the field, whatever type the endpoint
declares. Entities that sit inside an entity (a book's ``authors``) are
*links*, kept in both directions, so ``GET /authors/{author_id}/books`` lists
the books whose authors include that author; links are made the first time
they are asked for, deterministically.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLType, get_named_type

from gqlbench.mocks.engine.declared.computed import computed
from gqlbench.mocks.engine.kinds import NAME_KEYS, entity_kind, is_generic, list_object_of, object_of, reference, shape_kind, singular
from gqlbench.mocks.engine.specvalues import field_facts
from gqlbench.mocks.engine.world import World
from gqlbench.mocks.server.resolvers import generate_value

__all__ = ["CHILDREN", "JOINED_FIELDS", "JoinedKey", "Renderer", "is_number"]

CHILDREN = 2  # linked entities made when none are known (enough to index [0] and [1])
_DEPTH = 6  # entities inside entities (GitHub's issue.repository.template_repository.owner): deeper ones are left to the schema filler
JOINED_FIELDS = ("full_name", "full_path")
"""String fields that show a compound key joined by ``/`` (a repository's ``full_name`` is ``owner/name``)."""


def is_number(graphql_type: GraphQLType) -> bool:
    """Whether a field holds a number (an ``Int`` id, or a ``Float`` one as Hetzner declares them): its ids are digits."""
    return getattr(get_named_type(graphql_type), "name", "") in ("Int", "Float")


@dataclass(frozen=True)
class JoinedKey:
    """A compound key shown in one ``field``: the names of the scope's kinds (``user``), then the entity's own name."""

    field: str
    scope: tuple[str, ...]


class Renderer:
    """Renders entities of one domain; ``kinds`` are the kinds a ``<kind>_id`` field may refer to."""

    def __init__(self, kinds: set[str], fixture: Mapping[str, Any] | None = None, keys: Mapping[str, str] | None = None) -> None:
        self.kinds = kinds
        self.keys = dict(keys or {})  # kind -> key field, where inference would not find it (rules.infer_keys)
        self.fixture = dict(fixture or {})  # its "computed" fields per kind (mocks/engine/declared/computed.py)
        self.named: dict[str, tuple[GraphQLObjectType, str]] = {}  # kinds looked up by a name: (type, name field)
        self.joined: dict[str, JoinedKey] = {}  # kinds with a compound key shown joined (a repository's full_name)
        self.kind_facts: dict[str, dict[str, Any]] = {}  # kind -> field -> what the OpenAPI file says (components.kind_facts)
        self.components: dict[str, str] = {}  # SDL type -> the OpenAPI component it is (schemas.openapi_facts)
        self.component_kinds: dict[str, str] = {}  # component -> the one kind answered with it (components.kinds_by_component)
        self.entities: dict[str, tuple[GraphQLObjectType, str]] = {}  # looked-up kinds: their type and key field
        self.numeric: set[str] = set()  # kinds whose key is a number where they are looked up (digits wherever they are shown)

    def facts(self, world: World, kind: str, graphql_type: GraphQLObjectType, name: str) -> Any:
        """What the OpenAPI file says about an entity's field: the same in every view of the kind (None: nothing)."""
        found = self.kind_facts.get(kind, {}).get(name)
        return found if found is not None else field_facts(world, graphql_type.name, name)

    # -- state ------------------------------------------------------------------------
    def new_id(self, world: World, kind: str, *key: Any, numeric: bool = False) -> str:
        """A deterministic id for a new entity (digits when the id field is an Int)."""
        if numeric:
            return str(1 + world.int(kind, *key, lo=0, hi=9_999_998))
        return world.token(kind, *key, length=10)

    def ensure(self, world: World, kind: str, entity_id: Any, values: dict[str, Any] | None = None) -> dict[str, Any]:
        """The entity's record, created (with ``values``) if the world has none."""
        return world.table(kind).setdefault(str(entity_id), dict(values or {}))

    def linked(self, world: World, kind: str, entity_id: str, other: str, numeric: bool = False) -> list[str]:
        """Ids of ``other`` entities linked to this one; :data:`CHILDREN` new ones if none are."""
        links = world.state.setdefault("links", {}).setdefault(f"{kind}:{entity_id}", {})
        if other not in links:
            for n in range(CHILDREN):
                child = self.new_id(world, other, kind, entity_id, n, numeric=numeric)
                self.ensure(world, other, child)
                self.link(world, kind, entity_id, other, child)
        return list(links[other])

    def link(self, world: World, kind: str, entity_id: str, other: str, other_id: str) -> None:
        """Record that two entities belong together (in both directions)."""
        links = world.state.setdefault("links", {})
        for a, a_id, b, b_id in ((kind, entity_id, other, other_id), (other, other_id, kind, entity_id)):
            ids = links.setdefault(f"{a}:{a_id}", {}).setdefault(b, [])
            if b_id not in ids:
                ids.append(b_id)

    def unlink(self, world: World, kind: str, entity_id: str, other: str, other_id: str) -> None:
        """Forget that two entities belong together (in both directions)."""
        links = world.state.setdefault("links", {})
        for a, a_id, b, b_id in ((kind, entity_id, other, other_id), (other, other_id, kind, entity_id)):
            ids = links.get(f"{a}:{a_id}", {}).get(b, [])
            if b_id in ids:
                ids.remove(b_id)

    def unlink_all(self, world: World, kind: str, entity_id: str) -> None:
        """Forget an entity's links (it was deleted)."""
        links = world.state.setdefault("links", {})
        for other, ids in links.pop(f"{kind}:{entity_id}", {}).items():
            for other_id in ids:
                back = links.get(f"{other}:{other_id}", {}).get(kind, [])
                if entity_id in back:
                    back.remove(entity_id)

    # -- rendering --------------------------------------------------------------------
    def entity(self, world: World, graphql_type: GraphQLObjectType, kind: str, entity_id: str, depth: int = 0) -> dict[str, Any]:
        """The entity as ``graphql_type``: stored values, links, references, derived values."""
        record = world.table(kind)[entity_id]
        own = entity_kind(graphql_type, kind, self.keys)
        id_field = own[1] if own and own[0] == kind else None
        out: dict[str, Any] = {}
        extra = self.computed(world, kind, entity_id, id_field)
        for name, field in graphql_type.fields.items():
            key = f"{kind}:{entity_id}.{name}"
            if name == id_field:
                out[name] = entity_id
            elif name in record and not _holds_objects(field.type):
                out[name] = record[name]
            elif name in extra:
                out[name] = extra[name]
            elif kind in self.joined and name == self.joined[kind].field:
                out[name] = self.joined_key(world, kind, entity_id)
            elif (named := reference(name)) is not None and named[0] in self.kinds and named[0] != kind:
                out[name] = self._reference(world, record, kind, entity_id, name, named[0], field.type)
            elif (other := self._named_by_tail(name, field.type, kind)) is not None:
                out[name] = self._reference(world, record, kind, entity_id, name, other, field.type)
            elif id_field is None and (target := object_of(field.type)) is not None and self._is_kind(target, name, kind):
                out[name] = self.entity(world, target, kind, entity_id, depth)  # a saved item {added_at, track}: the track itself
            else:
                value = self.nested(world, field.type, kind, entity_id, name, record.get(name), depth)
                facts = self.facts(world, kind, graphql_type, name)
                out[name] = value if value is not None else generate_value(field.type, world, key, name, facts)
        return out

    def computed(self, world: World, kind: str, entity_id: str, id_field: str | None = None) -> dict[str, Any]:
        """The kind's computed fields (fixture ``computed``) for this entity; ``{}`` when it has none."""
        if kind not in (self.fixture.get("computed") or {}):
            return {}
        record = world.table(kind)[entity_id]
        return computed(self.fixture, kind, {**record, "id": entity_id, **({id_field: entity_id} if id_field else {})}, world)

    def name_of(self, world: World, kind: str, entity_id: str, graphql_type: GraphQLObjectType, field: str) -> Any:
        """The entity's name field (``login``, ``name``) as every response shows it: stored, else derived."""
        record = world.table(kind).get(entity_id, {})
        if field in record:
            return record[field]
        facts = self.facts(world, kind, graphql_type, field)
        return generate_value(graphql_type.fields[field].type, world, f"{kind}:{entity_id}.{field}", field, facts)

    def joined_key(self, world: World, kind: str, entity_id: str) -> str:
        """``owner/name``: the names of the entity's scope entities (those its nested objects show), then its own name."""
        joined = self.joined[kind]
        parts = []
        for other in joined.scope:
            whole, field = self.named[other]
            own = entity_kind(whole, other, self.keys)
            numeric = own is not None and is_number(whole.fields[own[1]].type)
            parts.append(self.name_of(world, other, self.linked(world, kind, entity_id, other, numeric)[0], whole, field))
        return "/".join(str(p) for p in [*parts, self.name_of(world, kind, entity_id, *self.named[kind])])

    def _reference(
        self, world: World, record: dict[str, Any], kind: str, entity_id: str, name: str, other: str, graphql_type: GraphQLType
    ) -> str:
        """A ``<kind>_id`` (``<kind>Symbol``) field: an entity of that kind, made once and remembered."""
        if name not in record:
            numeric = is_number(graphql_type) or other in self.numeric
            record[name] = self.linked(world, kind, entity_id, other, numeric)[0]
        self.ensure(world, other, record[name])
        return record[name]

    def _named_by_tail(self, name: str, graphql_type: GraphQLType, kind: str) -> str | None:
        """The kind a text field's last word names when that kind is keyed by its name: a repository's ``default_branch`` is a branch.

        Only kinds keyed by a name (:data:`~gqlbench.mocks.engine.kinds.NAME_KEYS`),
        whose key is the text itself; ``<kind>_id`` fields are :func:`reference` s.
        """
        words = re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name)
        tail = words[-1].lower()
        if len(words) < 2 or tail == kind or self.keys.get(tail) not in NAME_KEYS:
            return None
        return tail if get_named_type(graphql_type).name in ("String", "ID") and object_of(graphql_type) is None else None

    def nested(self, world: World, graphql_type: GraphQLType, kind: str, entity_id: str, name: str, stored: Any, depth: int) -> Any:
        """The entity's field ``name`` when it holds objects: linked entities, or plain objects from stored values.

        None for a field that holds no objects. An endpoint that shows only
        this part of the entity (``GET /ships/{shipSymbol}/nav``) renders it
        here too, so both show the same values.
        """
        element = list_object_of(graphql_type)
        single = object_of(graphql_type)
        target = element or single
        if target is None:
            return None
        found = self._kind_of(target, singular(name))
        if found and depth < _DEPTH:  # a repository's template_repository is another repository
            numeric = is_number(target.fields[found[1]].type) or found[0] in self.numeric
            ids = self.linked(world, kind, entity_id, found[0], numeric)
            rendered = [self.entity(world, target, found[0], i, depth + 1) for i in ids]
            return rendered if element is not None else rendered[0]
        key = f"{kind}:{entity_id}.{name}"
        owner = (kind, entity_id, depth)
        if element is not None:
            items = stored if isinstance(stored, list) else [None] * CHILDREN
            return [self.plain(world, element, item, f"{key}.{i}", owner, name) for i, item in enumerate(items)]
        return self.plain(world, single, stored, key, owner, name)  # type: ignore[arg-type]

    def _kind_of(self, target: GraphQLObjectType, hint: str) -> tuple[str, str] | None:
        """``(kind, id field)`` of a nested object; one shaped like a named kind's entity is that kind (an ``owner`` is a user).

        An object of a component that endpoints answer with as one kind is that kind, whatever field holds it.
        So is one whose place names no kind that is looked up, when it has most
        of a looked-up kind's fields and its key.
        """
        same = self.component_kinds.get(self.components.get(target.name, ""))
        if same is not None and (own := entity_kind(target, same, self.keys)) is not None:
            return own
        found = entity_kind(target, hint, self.keys)
        if found is None or found[0] in self.named:
            return found
        alias = shape_kind(target, self.named)
        if alias is None and found[0] not in self.entities:  # GitLab's project owner is a user (looked up by its id)
            alias = shape_kind(target, {k: v for k, v in self.entities.items() if v[1] == found[1]}, least=2 / 3)
        return (alias, found[1]) if alias is not None else found

    def _is_kind(self, target: GraphQLObjectType, name: str, kind: str) -> bool:
        found = self._kind_of(target, singular(name))
        return found is not None and found[0] == kind

    def _looked_up(self, target: GraphQLObjectType, name: str) -> bool:
        """Whether an object held in field ``name`` is an entity of a kind some lookup answers."""
        found = self._kind_of(target, singular(name))
        return found is not None and found[0] in self.entities

    def plain(
        self,
        world: World,
        graphql_type: GraphQLObjectType,
        stored: Any,
        key: str,
        owner: tuple[str, str, int] | None = None,
        noun: str | None = None,
    ) -> dict[str, Any]:
        """A non-entity object (a rating, an image): stored values, else derived from ``key``.

        Inside an entity (``owner``: its kind, id and depth), an object of a
        looked-up kind is that kind's entity, linked to the owner (a
        Pandascore tournament's ``expected_roster[].team`` is a team; a
        Spotify category's ``playlists.items[]``, named by the field ``noun``
        that holds this object, are playlists).
        """
        stored = stored if isinstance(stored, dict) else {}
        out = {}
        for name, field in graphql_type.fields.items():
            inner = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
            target = list_object_of(inner) or object_of(inner)
            hint = noun if noun and is_generic(singular(name)) else name
            if name in stored:
                out[name] = stored[name]
            elif (named := reference(name)) is not None and named[0] in self.kinds and object_of(field.type) is None:
                numeric = is_number(field.type) or named[0] in self.numeric
                out[name] = self.new_id(world, named[0], "ref", key, name, numeric=numeric)  # a ship's nav.waypointSymbol
                self.ensure(world, named[0], out[name])
            elif owner is not None and target is not None and self._looked_up(target, hint):
                kind, entity_id, depth = owner
                out[name] = self.nested(world, field.type, kind, entity_id, hint, None, depth)
            elif isinstance(inner, GraphQLObjectType):
                out[name] = self.plain(world, inner, None, f"{key}.{name}", owner, hint)
            elif isinstance(inner, GraphQLList) and list_object_of(inner) is not None:
                out[name] = [
                    self.plain(world, list_object_of(inner), None, f"{key}.{name}.{i}", owner, hint)  # type: ignore[arg-type]
                    for i in range(CHILDREN)
                ]
            else:
                out[name] = generate_value(field.type, world, f"{key}.{name}", name, field_facts(world, graphql_type.name, name))
        return out


def _holds_objects(graphql_type: GraphQLType) -> bool:
    return object_of(graphql_type) is not None or list_object_of(graphql_type) is not None
