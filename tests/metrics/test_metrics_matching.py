"""Maximum bipartite matching of gold calls to predicted calls (definition 5)."""

from __future__ import annotations

from gqlbench.metrics import ApiCall, match_calls, maximum_matching


def call(index: int, name: str, **args: str) -> ApiCall:
    return ApiCall(index=index, name=name, token=f"{name}#{index + 1}", args=args)


def test_maximum_matching_reassigns_where_greedy_would_fail() -> None:
    # left 0 can take right 0 or 1, left 1 only right 0: greedy 0->0 would leave 1 unmatched
    assert maximum_matching([[0, 1], [0]]) == {0: 1, 1: 0}


def test_maximum_matching_of_nothing() -> None:
    assert maximum_matching([]) == {}
    assert maximum_matching([[], []]) == {}


def test_extra_predicted_arguments_are_allowed_missing_ones_are_not() -> None:
    gold = [call(0, "GET_a", q="'x'")]
    assert match_calls(gold, [call(0, "GET_a", q="'x'", limit="5")])[0].predicted is not None
    unmatched = match_calls(gold, [call(0, "GET_a")])[0]
    assert unmatched.predicted is None
    assert unmatched.reason == "GET_a#1: argument 'q' missing: expected 'x'"


def test_one_predicted_call_matches_one_gold_call_only() -> None:
    gold = [call(0, "GET_a", q="'x'"), call(1, "GET_a", q="'x'")]
    matches = match_calls(gold, [call(0, "GET_a", q="'x'")])
    assert [m.predicted is not None for m in matches] == [True, False]
    assert "matched to another gold call" in (matches[1].reason or "")


def test_general_predicted_call_is_saved_for_the_gold_call_that_needs_it() -> None:
    gold = [call(0, "GET_a"), call(1, "GET_a", q="'x'")]
    predicted = [call(0, "GET_a", q="'x'"), call(1, "GET_a", q="'y'")]
    assert all(m.predicted is not None for m in match_calls(gold, predicted))


def test_reason_names_the_failing_argument_of_the_closest_call() -> None:
    gold = [call(0, "GET_b", id="GET_a#1.id", market="'US'")]
    predicted = [call(0, "GET_b", id="'123'", market="'FR'"), call(1, "GET_b", id="'123'", market="'US'")]
    assert match_calls(gold, predicted)[0].reason == "GET_b#2: argument 'id': expected GET_a#1.id, got '123'"


def test_reason_for_a_function_never_called() -> None:
    assert match_calls([call(0, "GET_a")], [call(0, "GET_b")])[0].reason == "no predicted call to GET_a"
