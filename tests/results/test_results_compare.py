"""Paired comparisons of samples in clusters take whole clusters as the unit of the test and the interval."""

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


def test_a_comparison_of_clustered_samples_tests_and_resamples_whole_clusters() -> None:
    a, b = [1, 0, 1, 0, 0, 1], [1, 1, 1, 0, 1, 1]
    comparison = compare_runs(_run(a, True), _run(b, True), resamples=200)
    independent = compare_runs(_run(a, False), _run(b, False), resamples=200)
    assert comparison["clusters"] == 6 and comparison["shared"] == 24
    entry, alone = comparison["metrics"]["arg_match_full"], independent["metrics"]["arg_match_full"]
    assert (entry["test"], alone["test"]) == ("cluster_permutation", "mcnemar_exact")
    assert entry["p_value"] == 0.5 and alone["p_value"] < 0.01  # 2 clusters differ, all one way; as 8 samples: p = 2 / 2**8
    assert entry["ci"][1] - entry["ci"][0] > alone["ci"][1] - alone["ci"][0]
    shown = render_pair("A", "B", comparison, metric_titles())
    assert "The 24 samples come in 6 clusters" in shown and "cluster permutation (exact: all 4 arrangements)" in shown
    assert "clusters" not in independent and "come in" not in render_pair("A", "B", independent, metric_titles())
