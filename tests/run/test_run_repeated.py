"""pass@k and pass^k against brute-force enumeration; completion labels; per-domain averages."""

from __future__ import annotations

from itertools import combinations

import pytest

from gqlbench.records import Sample, SampleResult, Scores
from gqlbench.run.repeated import completion_index, pass_at_k, pass_hat_k, repeated_metrics, repeated_section, with_completion


def _enumerated(n: int, c: int, k: int) -> tuple[float, float]:
    """Over every k-subset of n completions (the first c correct): the share with any correct, and with all correct."""
    subsets = list(combinations(range(n), k))
    any_correct = sum(1 for s in subsets if any(i < c for i in s))
    all_correct = sum(1 for s in subsets if all(i < c for i in s))
    return any_correct / len(subsets), all_correct / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_estimators_equal_brute_force_enumeration(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = _enumerated(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(at, abs=1e-12)
            assert pass_hat_k(n, c, k) == pytest.approx(hat, abs=1e-12)


def test_pass_at_1_is_the_share_correct_and_bad_counts_are_refused() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3) and pass_hat_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 4) == 1.0 and pass_hat_k(4, 3, 4) == 0.0
    for args in [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)]:
        with pytest.raises(ValueError, match="need 0 <= c <= n"):
            pass_at_k(*args)


def _line(sample_id: str, domain: str, index: int, arg: int, exec_match: int | None = 1, label: bool = True) -> SampleResult:
    result = SampleResult(id=sample_id, domain=domain, scores=Scores(arg_match_full=arg, exec_match=exec_match))
    return with_completion(result, index) if label else result


def test_completion_index_reads_the_label_and_a_line_without_one_is_completion_0() -> None:
    assert completion_index(_line("test/0", "spotify", 2, 1)) == 2
    plain = _line("test/0", "spotify", 0, 1, label=False)
    assert completion_index(plain) == 0 and "completion" not in plain.model_dump_json()
    assert with_completion(plain, 1).model_dump_json().endswith('"completion":1}')


def _sample(sample_id: str, domain: str) -> Sample:
    return Sample(id=sample_id, split="test", index=0, domain=domain, utterance="", gold_code="", function_specs=[], graphql_schema="")


def test_repeated_metrics_average_per_sample_and_count_missing_completions_as_failures() -> None:
    samples = [_sample("test/0", "spotify"), _sample("test/1", "spotify"), _sample("test/2", "tmdb")]
    lines = [
        _line("test/0", "spotify", 0, 1),
        _line("test/0", "spotify", 1, 1),
        _line("test/0", "spotify", 2, 0, 0),
        _line("test/1", "spotify", 0, 0, None),
        _line("test/1", "spotify", 2, 1, None),  # completion 1 failed to generate
        # test/2: nothing generated at all
    ]
    metrics = repeated_metrics(samples, lines, 3)
    spotify = metrics["spotify"]["pass_at_k"]["arg_match_full"]
    assert spotify["1"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert spotify["2"] == pytest.approx((1.0 + (1 - 1 / 3)) / 2)
    assert metrics["spotify"]["pass_hat_k"]["arg_match_full"]["2"] == pytest.approx((1 / 3 + 0) / 2)
    assert metrics["tmdb"]["pass_at_k"]["arg_match_full"] == {"1": 0.0, "2": 0.0, "3": 0.0}
    assert metrics["overall"]["pass_at_k"]["arg_match_full"]["1"] == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    # Exec Match: test/1's gold cannot run (None) and test/2 has no line, so only test/0 counts
    assert metrics["overall"]["pass_at_k"]["exec_match"]["3"] == 1.0
    assert metrics["overall"]["pass_hat_k"]["exec_match"]["3"] == 0.0
    assert "exec_match" not in metrics["tmdb"]["pass_at_k"]
    text = "\n".join(repeated_section(metrics, 3, {"arg_match_full": "Arg Match (full)"}))
    assert "pass@3" in text and "pass^3" in text and "completion 0" in text and "Arg Match (full)" in text


def test_a_skipped_sample_is_left_out() -> None:
    skipped = SampleResult(id="test/0", domain="spotify", scores=Scores(), skipped="gold does not parse")
    assert repeated_metrics([_sample("test/0", "spotify")], [skipped], 2) == {}
