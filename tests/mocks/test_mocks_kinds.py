"""Entity kinds read off response types: key fields, envelopes and shapes (plural words and references: test_mocks_keys.py)."""

from __future__ import annotations

import pytest
from graphql import GraphQLObjectType, build_schema

from gqlbench.mocks.engine.kinds import entity_kind, envelope_of, first_choice, known_kinds, param_key, shape_kind

SCHEMA = build_schema(
    """
    type Query { ship: ShipPage, books: [Book], user: User, owner: Owner, stats: Stats }
    type Meta { total: Int }
    type Ship { shipSymbol: String, fuel: Int }
    type ShipPage { data: Ship, meta: Meta }
    type Book { book_id: ID, title: String, author_id: ID, year: Int }
    type User { login: String, name: String, followers: Int, bio: String }
    type Owner { login: String, name: String, followers: Int }
    type Stats { data: [Book], book: Book }
    type Issue { number: Int, gid: String, title: String }
    """
)


def _type(name: str) -> GraphQLObjectType:
    found = SCHEMA.get_type(name)
    assert isinstance(found, GraphQLObjectType)
    return found


def test_a_parameter_taking_either_key_means_the_first() -> None:
    assert first_choice("league_id_or_slug") == "league_id" and first_choice("teamIdOrName") == "teamId" and first_choice("id") == "id"


def test_an_envelope_wraps_a_payload_beside_a_few_other_fields_but_not_beside_an_entity() -> None:
    assert envelope_of(_type("ShipPage")) == "data"
    assert envelope_of(_type("Stats")) is None  # ``book`` beside ``data`` is an entity: the object is not a wrapper
    assert envelope_of(_type("Book")) is None


def test_an_entity_takes_its_kind_from_its_key_field_or_its_place() -> None:
    assert entity_kind(_type("Book"), "book") == ("book", "book_id")
    assert entity_kind(_type("Book"), "items") is None  # a generic place and two references (book_id, author_id): no kind
    assert entity_kind(_type("Ship"), "ship") == ("ship", "shipSymbol")
    assert entity_kind(_type("User"), "user") == ("user", "login")
    assert entity_kind(_type("User"), "user", keys={"user": "name"}) == ("user", "name")  # a declared key wins
    assert entity_kind(_type("Meta"), "meta") is None


def test_the_kinds_a_schema_refers_to_are_read_from_its_reference_fields() -> None:
    assert {"book", "author", "ship"} <= known_kinds(SCHEMA) and "title" not in known_kinds(SCHEMA)


def test_an_object_with_most_of_a_lookups_fields_and_its_name_is_that_kind() -> None:
    named = {"user": (_type("User"), "login")}
    assert shape_kind(_type("Owner"), named) == "user"
    assert shape_kind(_type("Owner"), named, least=0.9) is None  # 3 of the user's 4 fields: a reference, not the user
    assert shape_kind(_type("Book"), named) is None


@pytest.mark.parametrize(
    ("param", "field"),
    [("issue_number", "number"), ("index", "number"), ("task_gid", "gid"), ("gid", "gid"), ("issue_id", None), ("title", "title")],
)
def test_a_path_parameter_names_the_key_field_its_last_word_says(param: str, field: str | None) -> None:
    assert param_key(param, _type("Issue")) == field
