"""Merge rules, each tested on the real conflicts between GraphQLRestBench samples.

Variants are found by scanning the data (never by sample id), so the tests
say what the data contains and fail if a rule stops handling it.
"""

from __future__ import annotations

from functools import cache

import pytest
from graphql import GraphQLList, GraphQLNonNull, GraphQLObjectType, build_schema, get_named_type
from graphql.utilities import lexicographic_sort_schema, print_schema

from gqlbench.dataset import load_samples
from gqlbench.errors import GqlbenchError
from gqlbench.schemas import PRELUDE, endpoint_documents, merge_notes, merge_sdl
from gqlbench.schemas.printer import print_definitions

SAMPLES = load_samples()


@cache
def _split_samples() -> list[dict]:
    return [endpoint_documents(s.graphql_schema, s.id) for s in SAMPLES if s.graphql_schema.strip()]


@cache
def _endpoint_texts(endpoint: str) -> tuple[str, ...]:
    """The SDL of ``endpoint`` as each sample that declares it has it."""
    documents = (split.get(endpoint) for split in _split_samples())
    return tuple(print_definitions(doc.definitions) for doc in documents if doc is not None)


def _variants_with(endpoint: str, type_name: str, field: str, type_text: str) -> list[str]:
    return [
        t
        for t in _endpoint_texts(endpoint)
        if any(line.strip() == f"{field}: {type_text}" for line in _type_block(t, type_name).splitlines())
    ]


def _type_block(sdl: str, type_name: str) -> str:
    start = sdl.find(f"type {type_name} {{")
    return "" if start < 0 else sdl[start : sdl.index("\n}", start)]


def _field_type(schema, type_name: str, field: str) -> str:
    return str(schema.type_map[type_name].fields[field].type)


def test_prelude_declares_what_stepzen_sdl_needs() -> None:
    schema = build_schema(PRELUDE)
    assert {"JSON", "Date", "DateTime", "RestMethod", "RestHeader"} <= set(schema.type_map)
    assert schema.get_directive("rest") is not None
    # the raw dataset SDL does not build alone, and does with the prelude
    raw = next(s.graphql_schema for s in SAMPLES if "JSON" in s.graphql_schema and "@rest" in s.graphql_schema)
    with pytest.raises(TypeError):
        build_schema(raw)
    build_schema(merge_sdl([raw]))


def test_repeated_query_blocks_fold_into_one() -> None:
    sdl = next(s.graphql_schema for s in SAMPLES if s.graphql_schema.count("type Query") >= 3)
    schema = build_schema(merge_sdl([sdl]))
    assert len(schema.query_type.fields) == sdl.count("type Query")


def test_search_root_is_the_union_of_its_sample_variants() -> None:
    roots = {_type_block(t, "GET_search_Root") for t in _endpoint_texts("GET_search")}
    assert len(roots) >= 3  # tracks, artists or albums depending on the sample
    wanted = {line.split(":")[0].strip() for r in roots for line in r.splitlines()[1:]}
    assert {"tracks", "artists", "albums"} <= wanted
    schema = build_schema(merge_sdl(_endpoint_texts("GET_search")))
    assert set(schema.type_map["GET_search_Root"].fields) == wanted


def test_json_gives_way_to_the_concrete_type() -> None:
    as_json = _variants_with("GET_search_movie", "GET_search_movie_ResultsEntry", "backdrop_path", "JSON")
    as_string = _variants_with("GET_search_movie", "GET_search_movie_ResultsEntry", "backdrop_path", "String")
    assert as_json and as_string
    for texts in ([as_json[0], as_string[0]], [as_string[0], as_json[0]]):
        merged = merge_sdl(texts)
        assert _field_type(build_schema(merged), "GET_search_movie_ResultsEntry", "backdrop_path") == "String"
        assert 'Field "backdrop_path" is defined as JSON' not in merged  # the description no longer applies


def test_json_list_gives_way_to_a_list_of_objects() -> None:
    plain = _variants_with("GET_me_top__type_", "GET_me_top__type_Root", "items", "[JSON]")
    typed = _variants_with("GET_me_top__type_", "GET_me_top__type_Root", "items", "[GET_me_top__type_ItemsEntry]")
    assert plain and typed
    schema = build_schema(merge_sdl([plain[0], typed[0]]))
    items = schema.type_map["GET_me_top__type_Root"].fields["items"].type
    assert isinstance(items, GraphQLList) and items.of_type.name == "GET_me_top__type_ItemsEntry"


@pytest.mark.parametrize(
    ("endpoint", "type_name", "field"),
    [
        ("GET_search_movie", "GET_search_movie_ResultsEntry", "release_date"),
        ("GET_search_tv", "GET_search_tv_ResultsEntry", "first_air_date"),
        ("GET_search", "GET_search_Album", "release_date"),
    ],
)
def test_date_and_string_widen_to_string(endpoint: str, type_name: str, field: str) -> None:
    dates = _variants_with(endpoint, type_name, field, "Date")
    strings = _variants_with(endpoint, type_name, field, "String")
    assert dates and strings
    assert _field_type(build_schema(merge_sdl([dates[0], strings[0]])), type_name, field) == "String"
    assert _field_type(build_schema(merge_sdl([dates[0], dates[-1]])), type_name, field) == "Date"


def test_renumbered_object_types_merge_and_keep_every_field() -> None:
    """StepZen names nested types per response: one sample's ArtistsEntry is another's Artists1Entry."""
    a = _variants_with("GET_search", "GET_search_ItemsEntry", "artists", "[GET_search_ArtistsEntry]")
    b = _variants_with("GET_search", "GET_search_ItemsEntry", "artists", "[GET_search_Artists1Entry]")
    assert a and b
    merged = build_schema(merge_sdl([a[0], b[0]]))
    kept = get_named_type(merged.type_map["GET_search_ItemsEntry"].fields["artists"].type)
    assert kept.name == "GET_search_Artists1Entry"  # the name that sorts first
    for source in ("GET_search_ArtistsEntry", "GET_search_Artists1Entry"):
        assert set(merged.type_map[source].fields) <= set(kept.fields)
    assert any("GET_search_ItemsEntry.artists" in note for note in merge_notes([a[0], b[0]]))


def test_merge_does_not_depend_on_the_order_of_variants() -> None:
    texts = list(_endpoint_texts("GET_search"))
    forward = lexicographic_sort_schema(build_schema(merge_sdl(texts)))
    backward = lexicographic_sort_schema(build_schema(merge_sdl(reversed(texts))))
    assert print_schema(forward) == print_schema(backward)


# Rules the data does not exercise, on small hand-written SDL.


def _merged_type(*field_types: str) -> str:
    texts = [f"type T {{\n  f: {t}\n}}\ntype A {{\n  x: Int\n}}\ntype B {{\n  y: Int\n}}" for t in field_types]
    return _field_type(build_schema(merge_sdl(texts)), "T", "f")


@pytest.mark.parametrize(
    ("variants", "expected"),
    [
        (("Int", "Float"), "Float"),
        (("ID", "Int"), "String"),
        (("Boolean", "Date", "Int"), "String"),
        (("String!", "String!"), "String!"),
        (("String!", "String"), "String"),
        (("[Int]", "[Float]", "[JSON]"), "[Float]"),
        (("JSON", "JSON"), "JSON"),
        (("[A]", "A"), "JSON"),  # list against a single value
        (("A", "Int"), "JSON"),  # object against a scalar
        (("A", "JSON", "[A]"), "JSON"),  # structural conflict stays a conflict, whatever else comes
        (("A", "B"), "A"),
    ],
)
def test_type_rules_on_small_cases(variants: tuple[str, ...], expected: str) -> None:
    assert _merged_type(*variants) == expected
    assert _merged_type(*reversed(variants)) == expected


def test_structural_conflict_is_described_and_noted() -> None:
    texts = ["type T {\n  f: [Int]\n}", "type T {\n  f: Int\n}"]
    assert "samples disagree on its type" in merge_sdl(texts)
    assert merge_notes(texts) == ["T.f: Int | [Int] -> JSON (structural conflict)", "type T: 2 variants unified by field union"]


def test_absorbed_object_type_takes_the_other_fields() -> None:
    merged = build_schema(merge_sdl(["type T {\n  f: A\n}\ntype A {\n  x: Int\n}", "type T {\n  f: B\n}\ntype B {\n  y: Int\n}"]))
    assert set(merged.type_map["A"].fields) == {"x", "y"}
    assert isinstance(merged.type_map["A"], GraphQLObjectType)


def test_non_null_survives_only_when_every_variant_has_it() -> None:
    merged = build_schema(merge_sdl(["type Query {\n  q(id: ID!): Int!\n}", "type Query {\n  q(id: ID!): Float!\n}"]))
    assert isinstance(merged.query_type.fields["q"].type, GraphQLNonNull)


def test_conflicting_other_definitions_and_syntax_errors_are_clear() -> None:
    with pytest.raises(GqlbenchError, match="two different definitions of 'Color'"):
        merge_sdl(["enum Color { RED }", "enum Color { BLUE }"])
    assert "enum Color" in merge_sdl(["enum Color { RED }", "enum Color { RED }"])
    with pytest.raises(GqlbenchError, match=r"SDL text #2:1: GraphQL syntax error"):
        merge_sdl(["type A { x: Int }", "type {"])
    assert merge_sdl(["scalar JSON", "type A { x: JSON }"]).count("scalar JSON") == 1
