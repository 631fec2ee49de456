"""Entity kinds of a domain, read off its GraphQL response types.

The generic world (:mod:`gqlbench.mocks.generic`) needs to know which
response objects are *entities* (a book, an author, a loan), so that the same
entity shows the same values wherever it appears. The catalog's SDL has one
type per endpoint and place (``GET_books__book_id__Root``,
``GET_search_books_DocsEntry``), so kinds are not type names: an object is an
entity of kind ``book`` when it has a ``book_id`` field, and an object with a
bare ``id`` takes its kind from where it sits (the path segment of the
endpoint, or the field that holds it: ``artists: [...]`` holds artists).
"""

from __future__ import annotations

from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLType

__all__ = ["singular", "object_of", "list_object_of", "id_fields", "entity_kind", "known_kinds"]

_GENERIC_HOLDERS = {"entries", "items", "results", "docs", "data", "records", "list", "entry", "item", "result", "doc"}


def singular(word: str) -> str:
    """A plural path segment or field name as a kind: ``books`` -> ``book``, ``series`` stays."""
    word = word.lower()
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


def entity_kind(graphql_type: GraphQLObjectType, hint: str | None) -> tuple[str, str] | None:
    """``(kind, id field)`` of an object that is an entity, or None.

    ``hint`` is the kind its place suggests (singular of the holding field or
    path segment). A ``<hint>_id`` field wins; then a bare ``id`` (kind =
    hint); then a single ``<kind>_id`` field.
    """
    fields = id_fields(graphql_type)
    generic = hint is None or hint in {singular(h) for h in _GENERIC_HOLDERS}
    if hint and f"{hint}_id" in fields:
        return hint, f"{hint}_id"
    if "id" in fields and not generic:
        return hint, "id"  # type: ignore[return-value]
    own = [f for f in fields if f != "id"]
    if len(own) == 1:
        return own[0][: -len("_id")], own[0]
    if "id" in fields and hint:
        return hint, "id"
    return None


def known_kinds(schema: GraphQLSchema) -> set[str]:
    """Every kind some response names by a ``<kind>_id`` field."""
    kinds = set()
    for graphql_type in schema.type_map.values():
        if isinstance(graphql_type, GraphQLObjectType) and not graphql_type.name.startswith("__"):
            kinds |= {f[: -len("_id")] for f in id_fields(graphql_type) if f != "id"}
    return kinds
