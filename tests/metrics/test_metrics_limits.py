"""Bounds on predicted programs: a huge or exploding answer scores 0 as too large, quickly."""

from __future__ import annotations

import pytest

from gqlbench.metrics import DEFAULT_LIMITS, Limits, analyze, calls, score_sample
from gqlbench.records import Sample

X_LINES = "x = 1\n" * 100_000
CHAIN = "r0 = GET_me()\n" + "".join(f"r{i} = GET_me(id=r{i - 1}.id)\n" for i in range(1, 100_000))
DOUBLING = "a0 = GET_me()\n" + "".join(f"a{i} = [a{i - 1}, a{i - 1}]\n" for i in range(1, 40)) + "GET_x(v=a39)\n"


def sample(gold: str = "r = GET_me()\nGET_x(id=r.id)\n") -> Sample:
    return Sample(id="test/0", split="test", index=0, domain="toy", utterance="u", gold_code=gold, function_specs=[], graphql_schema="")


def refused(code: str, limits: Limits | None = DEFAULT_LIMITS) -> str | None:
    analysis = analyze(code, {}, limits)
    assert analysis.too_large is None or (analysis.calls == () and analysis.parse_error is None)
    return analysis.too_large


def recording(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[object]:
    """Calls of ``owner.name`` from now on (their first argument); the function still runs."""
    seen: list[object] = []
    function = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda first, *args, **kwargs: seen.append(first) or function(first, *args, **kwargs))
    return seen


def test_a_hundred_thousand_lines_are_too_large_and_refused_before_any_parser_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # unbounded, parsing and analysing these took 20 s and 70 s
    parsed_by_libcst = recording(monkeypatch, calls.cst, "parse_module")
    parsed_by_python = recording(monkeypatch, calls, "_python_syntax_error")
    assert refused(X_LINES) == "the program has 100,000 lines (the limit is 1,000) and 600,000 characters (the limit is 20,000)"
    reason = refused(CHAIN)
    assert reason is not None and reason.startswith("the program has 100,000 lines")
    assert parsed_by_libcst == parsed_by_python == []
    refused("x = 1\n")
    assert len(parsed_by_libcst) == len(parsed_by_python) == 1  # the recording sees a program within the bounds


def test_inlining_that_doubles_every_line_stops_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # 41 short lines whose last argument inlines to 2**39 nodes; unbounded, 20 such lines already took 20 s
    rendered = recording(monkeypatch, calls, "_canonical")
    assert refused(DOUBLING) == "its call arguments grow past 50,000 syntax nodes once variables are inlined"
    assert rendered == []  # the argument was measured while inlining and refused before it was written out
    refused("r = GET_me()\nGET_x(v=r.id)\n")
    assert len(rendered) == 1  # the recording sees an argument within the budget


def test_too_many_calls() -> None:
    code = "GET_me()\n" * 201
    assert refused(code) == "the program makes more than 200 API calls"
    assert refused(code, Limits(max_calls=201)) is None
    assert refused(code, None) is None


def test_programs_within_the_bounds_are_analysed() -> None:
    at_the_limit = "r0 = GET_me()\n" + "".join(f"r{i} = GET_me(id=r{i - 1}.id)\n" for i in range(1, 200)) + "x = 1\n" * 800
    assert at_the_limit.count("\n") == DEFAULT_LIMITS.max_lines and len(at_the_limit) < DEFAULT_LIMITS.max_chars
    analysis = analyze(at_the_limit, {})
    assert analysis.too_large is None and len(analysis.calls) == 200
    assert analyze(at_the_limit + "y = 2\n", {}).too_large == "the program has 1,001 lines (the limit is 1,000)"


def test_a_too_large_prediction_scores_zero_with_the_reason() -> None:
    result = score_sample(sample(), X_LINES)
    assert {k: v for k, v in result.scores.model_dump().items() if v} == {"gold_calls": 2}  # every metric 0 or None
    assert result.skipped is None
    assert result.explanation.too_large.startswith("the program has 100,000 lines")
    assert result.explanation.parse_error is None and result.explanation.gold_sequence == ["GET_me", "GET_x"]
    assert "too_large" not in score_sample(sample(), "r = GET_me()\n").explanation


def test_gold_programs_are_never_bounded() -> None:
    gold = "r = GET_me()\n" + "x = 1\n" * 2_000 + "GET_x(id=r.id)\n"
    result = score_sample(sample(gold), "r = GET_me()\nGET_x(id=r.id)\n")
    assert result.skipped is None and result.scores.arg_match_full == 1 and result.scores.gold_calls == 2
    bounded = score_sample(sample(gold), gold)  # the same text as a prediction is bounded
    assert bounded.scores.arg_match_full == 0 and bounded.explanation.too_large.startswith("the program has 2,002 lines")
