"""What a job may use: text cut to a bound with a note, and the note's room counted in the bound."""

from __future__ import annotations

import pytest

from gqlbench.mocks.sandbox.limits import SandboxLimits, cut, cut_length


def test_text_that_fits_is_kept_whole() -> None:
    assert cut("abc", 3) == "abc"


@pytest.mark.parametrize("limit", [0, 5, 12_345])
def test_a_cut_keeps_the_start_says_where_and_never_exceeds_cut_length(limit: int) -> None:
    text = "x" * (limit + 100)
    shown = cut(text, limit)
    assert shown.startswith("x" * limit) and not shown.startswith("x" * (limit + 1))
    assert shown.endswith(f"(cut at {limit} characters)")
    assert len(shown) == cut_length(limit)


def test_the_defaults_bound_results_arguments_and_traces_and_the_policy_is_on() -> None:
    limits = SandboxLimits(cpu_seconds=1, memory_mb=256, max_output_chars=1_000)
    assert limits.check_policy
    assert 0 < limits.max_argument_chars < limits.max_result_chars and limits.max_trace_chars > 0
