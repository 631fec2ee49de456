"""Entity kinds of a domain, read off its GraphQL response types.

The generic world (:mod:`gqlbench.mocks.engine.generic`) needs to know which
response objects are *entities* (a book, an author, a loan), so that the same
entity shows the same values wherever it appears. The catalog's SDL has one
type per endpoint and place (``GET_books__book_id__Root``,
``GET_search_books_DocsEntry``), so kinds are not type names: an object is an
entity of kind ``book`` when it has a ``book_id`` field, and an object with a
bare ``id`` takes its kind from where it sits (the path segment of the
endpoint, or the field that holds it: ``artists: [...]`` holds artists).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLType

__all__ = [
    "ENVELOPES",
    "KEY_WORDS",
    "singular",
    "object_of",
    "list_object_of",
    "id_fields",
    "reference",
    "is_generic",
    "entity_kind",
    "envelope_of",
    "known_kinds",
    "shape_kind",
    "KEY_TAILS",
    "param_key",
    "first_choice",
    "NAME_KEYS",
]

_GENERIC_HOLDERS = {
    "entries",
    "items",
    "results",
    "docs",
    "data",
    "records",
    "list",
    "entry",
    "item",
    "result",
    "doc",
    "payload",
    "response",
    "content",
    "values",
    "value",
    "nodes",
    "edges",
}
ENVELOPES = ("data", "result", "payload", "response")
"""Fields that wrap an answer's payload (``{"data": {...}, "meta": {...}}``)."""
KEY_WORDS = ("id", "symbol", "slug", "uuid", "login", "username", "key")
"""What an entity's key field may be called (``id``, ``symbol``, a user's ``login``)."""
KEY_TAILS = ("number", "num", "iid", "gid", "uuid", "slug", "symbol", "key", "name", "login")
"""Last words of a path parameter that name the key field itself (``issue_number``, ``task_gid``, ``repo_slug``)."""
_TAIL_FIELDS = {"index": "number"}  # Gitea's /issues/{index} names the number
NAME_KEYS = ("login", "name", "slug", "username")
"""Fields that name an entity, in the order a lookup by a name means them (a user's ``login`` before its ``name``)."""
_REFERENCE_WORDS = KEY_WORDS[:4]  # ``<kind>_code`` or ``<kind>_key`` are mostly codes (``currency_code``), not references
_REFERENCE = re.compile(
    r"^(?P<kind>[a-z][a-z0-9]*(?:_[a-z0-9]+)*?)(?:_(?P<snake>"
    + "|".join(_REFERENCE_WORDS)
    + r")|(?P<camel>"
    + "|".join(w.capitalize() for w in _REFERENCE_WORDS)
    + r"))$"
)


def singular(word: str) -> str:
    """A plural path segment or field name as a kind: ``books`` -> ``book``; ``series``, ``species`` stay.

    A hyphenated or underscored name changes its last word only
    (``pokemon-species`` stays, ``evolution-chains`` -> ``evolution-chain``).
    """
    word = word.lower()
    head, sep, last = max(word.rpartition("-"), word.rpartition("_"), key=lambda parts: len(parts[0]))
    if sep and last:
        return head + sep + singular(last)
    if word.endswith(("species", "series", "news", "status", "data")):
        return word
    if word.endswith(("statuses", "viruses", "bonuses", "campuses", "buses")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "series")):
        return word[:-1]
    return word


def _unwrap(graphql_type: GraphQLType) -> GraphQLType:
    return graphql_type.of_type if isinstance(graphql_type, GraphQLNonNull) else graphql_type


def object_of(graphql_type: GraphQLType) -> GraphQLObjectType | None:
    """The object type behind a (non-null) object field, else None."""
    inner = _unwrap(graphql_type)
    return inner if isinstance(inner, GraphQLObjectType) else None


def list_object_of(graphql_type: GraphQLType) -> GraphQLObjectType | None:
    """The element object type of a list-of-objects field, else None."""
    inner = _unwrap(graphql_type)
    return object_of(inner.of_type) if isinstance(inner, GraphQLList) else None


def id_fields(graphql_type: GraphQLObjectType) -> list[str]:
    """The identifier-like fields of an object: ``id`` and ``<kind>_id``."""
    return [name for name in graphql_type.fields if name == "id" or name.endswith("_id")]


def reference(name: str) -> tuple[str, str] | None:
    """``(kind, key word)`` of a name that refers to an entity.

    ``book_id`` -> ``(book, id)``, ``shipSymbol`` -> ``(ship, symbol)``,
    ``contractId`` -> ``(contract, id)``; a bare ``id`` or ``symbol`` names
    no kind, so it is None.
    """
    match = _REFERENCE.match(first_choice(name))
    if match is None:
        return None
    return match["kind"], (match["snake"] or match["camel"]).lower()


def first_choice(param: str) -> str:
    """The first of the keys a parameter accepts: ``league_id_or_slug`` -> ``league_id`` (what the rest of its name says)."""
    return re.split(r"_or_|(?<=[a-z0-9])Or(?=[A-Z])", param)[0] or param


def is_generic(hint: str | None) -> bool:
    """Whether a holding field names no kind (``data``, ``items``, ``results``)."""
    return hint is None or hint in {singular(h) for h in _GENERIC_HOLDERS}


def envelope_of(graphql_type: GraphQLObjectType) -> str | None:
    """The field that wraps the payload of a response (``data`` in ``{data: Ship, meta: Meta}``), else None.

    A wrapper holds an object or a list of objects under one of
    :data:`ENVELOPES`, next to at most a few fields that are not entities
    (paging ``meta``, ``links``, a status).
    """
    for name in ENVELOPES:
        field = graphql_type.fields.get(name)
        if field is None or (object_of(field.type) is None and list_object_of(field.type) is None):
            continue
        others = [f for n, f in graphql_type.fields.items() if n != name]
        if len(others) <= 3 and not any(_holds_entity(f.type, n) for n, f in graphql_type.fields.items() if n != name):
            return name
    return None


def _holds_entity(graphql_type: GraphQLType, name: str) -> bool:
    target = object_of(graphql_type) or list_object_of(graphql_type)
    return target is not None and not is_generic(singular(name)) and entity_kind(target, singular(name)) is not None


def entity_kind(graphql_type: GraphQLObjectType, hint: str | None, keys: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(kind, id field)`` of an object that is an entity, or None.

    ``hint`` is the kind its place suggests (singular of the holding field or
    path segment). The key ``keys`` gives the hint's kind (declared in the
    fixture's ``kinds``, or named by a lookup's path parameter) wins; then a
    ``<hint>_id`` field; then a bare ``id`` (kind = hint); then a single
    ``<kind>_id`` field.
    """
    key = keys.get(hint) if keys and hint else None
    if key is not None and key in graphql_type.fields and _is_scalar(graphql_type.fields[key].type):
        return hint, key  # type: ignore[return-value]
    fields = id_fields(graphql_type)
    generic = is_generic(hint)
    if hint and f"{hint}_id" in fields:
        return hint, f"{hint}_id"
    if "id" in fields and not generic:
        return hint, "id"  # type: ignore[return-value]
    own = [f for f in fields if f != "id"]
    if len(own) == 1:
        return own[0][: -len("_id")], own[0]
    if "id" in fields and hint:
        return hint, "id"
    if hint and generic:  # Asana's /portfolios/{portfolio_gid}/items: {"data": [{"gid": ...}]}
        for name in sorted(set((keys or {}).values()) - {"id"}):
            if name in graphql_type.fields and _is_scalar(graphql_type.fields[name].type):
                return hint, name
    if hint and not generic:  # keys not called id: a ship's symbol, a user's login, the key other kinds have (Asana's gid)
        camel = [f"{hint}{word.capitalize()}" for word in KEY_WORDS]
        for name in dict.fromkeys([*camel, *KEY_WORDS[1:], *sorted(set((keys or {}).values()))]):
            if name in graphql_type.fields and _is_scalar(graphql_type.fields[name].type):
                return hint, name
    return None


def _is_scalar(graphql_type: GraphQLType) -> bool:
    return object_of(graphql_type) is None and not isinstance(_unwrap(graphql_type), GraphQLList)


def known_kinds(schema: GraphQLSchema) -> set[str]:
    """Every kind some response names by a reference field (``book_id``, ``shipSymbol``)."""
    kinds = set()
    for graphql_type in schema.type_map.values():
        if isinstance(graphql_type, GraphQLObjectType) and not graphql_type.name.startswith("__"):
            kinds |= {found[0] for name in graphql_type.fields if (found := reference(name)) is not None}
    return kinds


def shape_kind(graphql_type: GraphQLObjectType, named: Mapping[str, tuple[GraphQLObjectType, str]], least: float = 0.0) -> str | None:
    """The kind whose entity an object has the shape of (a repository's ``owner`` is a user), else None.

    ``named`` maps a kind to its lookup type and a field the object must have
    (a name: ``user`` -> ``login``, or the key); at least 80% of the object's
    fields must be that type's (GitHub's ``simple-user`` has a ``starred_at``
    the user lookup does not), and they must be at least ``least`` of the
    type's fields (a Spotify track's ``linked_from`` shows 5 of a track's
    fields: a reference, not the track).
    """
    fields = set(graphql_type.fields)
    for kind in sorted(named):
        whole, name_field = named[kind]
        shared = len(fields & set(whole.fields))
        if name_field in fields and shared >= 0.8 * len(fields) and shared >= least * len(whole.fields):
            return kind
    return None


def param_key(param: str, graphql_type: GraphQLObjectType) -> str | None:
    """The field a lookup's path parameter names when its last word is a key word other than id, else None.

    ``issue_number`` -> ``number``, ``task_gid`` (or ``gid``) -> ``gid``,
    ``repo_slug`` -> ``slug``, ``domain_name`` -> ``name``, when the
    object has that field as a scalar; ``movie_id`` and ``shipSymbol``
    (which :func:`entity_kind` finds anyway) give None for ``id``. A
    parameter that is itself a field names it (``{fingerprint}``); one that
    takes either of two keys names the first (``league_id_or_slug``: ``id``);
    an ``index`` is a ``number``.
    """
    param = first_choice(param)
    tail = re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", param)[-1].lower()
    tail = _TAIL_FIELDS.get(tail, tail)
    for name in (tail,) if tail in KEY_TAILS else (param,):
        if name != "id" and name in graphql_type.fields and _is_scalar(graphql_type.fields[name].type):
            return name
    return None
