"""Query limits: a request is measured on its syntax tree, fragments expanded but measured once."""

from __future__ import annotations

import time

import pytest
from graphql import parse

from gqlbench.mocks.server.limits import CALL_COST, QueryLimits, QueryMeasure, limit_errors, measure, parse_limited


def test_depth_aliases_and_cost_of_a_query() -> None:
    found = measure(parse('{ a: GET_x(q: "1") { b { c } } d: GET_y { e } }'))
    # fields: GET_x, b, c, GET_y, e = 5, two of them endpoint calls
    assert found == QueryMeasure(depth=3, aliases=2, cost=5 + 2 * CALL_COST)


def test_fragments_count_where_they_are_spread() -> None:
    document = parse("query { ...F GET_z { ...G } } fragment F on Query { x: GET_x { id } } fragment G on Z { deep { id } }")
    assert measure(document) == QueryMeasure(depth=3, aliases=1, cost=2 + CALL_COST + 3 + CALL_COST)


def test_a_fragment_bomb_is_measured_quickly_and_is_huge() -> None:
    # each fragment spreads the next twice: 2**30 fields once expanded
    chain = "".join(f"fragment F{i} on T {{ ...F{i + 1} ...F{i + 1} }} " for i in range(30))
    document = parse("{ GET_x { ...F0 } } " + chain + "fragment F30 on T { id }")
    started = time.monotonic()
    found = measure(document)
    assert time.monotonic() - started < 1
    assert found.cost > 2**30
    assert [e.extensions["limit"] for e in limit_errors(found, QueryLimits())] == ["max_cost"]


def test_a_fragment_cycle_is_left_to_the_standard_rules() -> None:
    assert measure(parse("{ ...A } fragment A on Query { ...B } fragment B on Query { ...A x }")).cost == 1 + CALL_COST


def test_each_limit_is_named_with_the_value_and_the_option() -> None:
    errors = limit_errors(QueryMeasure(depth=30, aliases=5000, cost=70000), QueryLimits())
    messages = [e.message for e in errors]
    assert "the query is 30 fields deep, over the server's limit of 20 (--max-depth)" in messages[0]
    assert "the query has 5000 aliases, over the server's limit of 100 (--max-aliases)" in messages[1]
    assert "the query costs 70000, over" in messages[2] and "--max-cost" in messages[2]
    assert errors[1].extensions == {"kind": "limit", "limit": "max_aliases", "value": 5000, "maximum": 100}
    assert limit_errors(QueryMeasure(depth=20, aliases=100, cost=5000), QueryLimits()) == []


def test_a_long_query_is_refused_after_max_tokens() -> None:
    parser = parse_limited(QueryLimits(max_tokens=50))
    assert parser(None, {"query": "{ a b c }"}).definitions
    with pytest.raises(Exception, match=r"more than 50 tokens, the server's limit \(--max-tokens\)"):
        parser(None, {"query": "{ " + " ".join(f"a{i}: f" for i in range(100)) + " }"})
