"""Paired comparisons say when their samples come in clusters that the tests treat as independent."""

from __future__ import annotations

from gqlbench.metrics import metric_titles
from gqlbench.records import SampleResult, Scores
from gqlbench.results.compare import compare_runs, render_pair


def _run(passed: list[int], clustered: bool) -> list[SampleResult]:
    return [
        SampleResult(
            id=f"test/{i}",
            domain="tmdb",
            scores=Scores(arg_match_full=passed[i // 4]),
            cluster=f"s{i // 4}" if clustered else None,
        )
        for i in range(4 * len(passed))
    ]


def test_a_comparison_of_clustered_samples_counts_the_clusters_and_says_the_tests_ignore_them() -> None:
    a, b = [1, 0, 1, 0, 0, 1], [1, 1, 1, 0, 1, 1]
    comparison = compare_runs(_run(a, True), _run(b, True), resamples=200)
    assert comparison["clusters"] == 6 and comparison["shared"] == 24
    assert "NOTE: the 24 samples come in 6 clusters" in render_pair("A", "B", comparison, metric_titles())
    independent = compare_runs(_run(a, False), _run(b, False), resamples=200)
    assert "clusters" not in independent and "NOTE" not in render_pair("A", "B", independent, metric_titles())
