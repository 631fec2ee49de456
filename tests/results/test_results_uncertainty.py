"""results.json's F1s, error counts, stderr and intervals, and their report.md section."""

from __future__ import annotations

from pathlib import Path

import pytest

from gqlbench.dataset import get_sample
from gqlbench.metrics import aggregate, metric_titles, missing_result, score_sample
from gqlbench.records import Explanation, SampleResult, Scores
from gqlbench.results.files import render_report, results_document
from gqlbench.results.statistics import ratio_estimate, wilson_interval
from gqlbench.results.uncertainty import add_uncertainty, sample_values, uncertainty_section, with_ci

IDS = ["test/0", "test/2", "test/3", "test/5", "test/13", "test/14", "test/16", "test/18"]


@pytest.fixture(scope="module")
def results() -> list[SampleResult]:
    out = []
    for i, sample_id in enumerate(IDS):
        sample = get_sample(sample_id)
        if i % 3 == 2:
            out.append(missing_result(sample))
        else:
            code = sample.gold_code if i % 2 == 0 else sample.gold_code.replace("0]", "1]")
            out.append(score_sample(sample, code))
    return out


def test_samples_carry_errors_and_f1_counts(results: list[SampleResult]) -> None:
    assert results[0].explanation.errors == []
    assert all(set(r.explanation.f1_counts) == {"dataflow", "function", "argument"} for r in results)
    missing = results[2]
    assert {e["kind"] for e in missing.explanation.errors} == {"missing_call"}


def test_groups_get_f1s_errors_stderr_and_intervals(results: list[SampleResult]) -> None:
    metrics = add_uncertainty(aggregate(results), results, resamples=400)
    overall = metrics["overall"]
    for key in ("dataflow_f1", "dataflow_precision", "dataflow_recall", "function_f1", "argument_f1"):
        assert 0 <= overall[key] <= 1
        lo, hi = overall["ci"][key]
        assert lo <= overall[key] <= hi
    assert overall["errors"]["missing_call"] == sum(e["kind"] == "missing_call" for r in results for e in r.explanation.errors)
    assert set(metrics) == {"overall", "spotify", "tmdb"}
    assert sum(metrics[d]["errors"].get("missing_call", 0) for d in ("spotify", "tmdb")) == overall["errors"]["missing_call"]


def test_arg_match_functions_is_resampled_by_sample(results: list[SampleResult]) -> None:
    metrics = add_uncertainty(aggregate(results), results, resamples=300, seed=4)
    pairs = list(sample_values(results)["arg_match_functions"].values())
    expected = ratio_estimate([p[0] for p in pairs], [p[1] for p in pairs], resamples=300, seed=4)
    assert metrics["overall"]["ci"]["arg_match_functions"] == pytest.approx(list(expected.ci))
    assert metrics["overall"]["stderr"]["arg_match_functions"] == pytest.approx(expected.stderr)


def test_zero_resamples_keeps_counts_without_intervals(results: list[SampleResult]) -> None:
    metrics = add_uncertainty(aggregate(results), results, resamples=0)
    assert "ci" not in metrics["overall"] and "errors" in metrics["overall"]


def test_report_prints_values_with_intervals_and_error_table(results: list[SampleResult]) -> None:
    document = results_document(results, meta={"bootstrap": 300})
    text = render_report(document)
    assert "## With 95% intervals" in text and "## Errors by kind" in text and "| missing_call" in text
    value = document.metrics["overall"]["arg_match_full"]
    lo, hi = document.metrics["overall"]["ci"]["arg_match_full"]
    assert f"{value:.4f} [{lo:.2f}, {hi:.2f}]" in text


def test_with_ci_formats() -> None:
    example = with_ci(23 / 32, wilson_interval(23, 32))
    assert example == "0.7188 [0.55, 0.84]"
    assert f"`{example}` for 23 of 32" in (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text()
    assert with_ci(0.5, None) == "0.5000" and with_ci(None, None) == "-"


def test_no_intervals_no_section() -> None:
    result = SampleResult(id="test/0", domain="spotify", scores=Scores(gold_calls=1))
    assert uncertainty_section(aggregate([result]), metric_titles()) == []


def test_the_registered_f1s_are_the_micro_f1s_and_their_clustered_intervals(results: list[SampleResult]) -> None:
    """Values exactly as f1_scores gives them, intervals from (2tp, 2tp+fp+fn) per sample, key order kept."""
    from gqlbench.metrics import get_metric
    from gqlbench.metrics.f1 import F1_KEYS, f1_scores

    metrics = add_uncertainty(aggregate(results), results, resamples=300, seed=2)
    for group, summary in metrics.items():
        members = [r for r in results if r.skipped is None and group in ("overall", r.domain)]
        expected = f1_scores([r.explanation.f1_counts for r in members])
        assert {k: summary[k] for k in F1_KEYS} == expected  # to the last bit
        keys = list(summary)
        assert keys[keys.index("dataflow_f1") :] == [*F1_KEYS, "errors", "stderr", "ci", "ci_method"]
        assert not [k for k in keys if k.startswith("n_") and k[2:] in F1_KEYS]
        counts = [r.explanation.f1_counts["dataflow"] for r in members]
        reference = ratio_estimate([2 * tp for tp, _, _ in counts], [2 * tp + fp + fn for tp, fp, fn in counts], 300, 2)
        assert summary["ci"]["dataflow_f1"] == list(reference.ci) and summary["stderr"]["dataflow_f1"] == reference.stderr
    finer = [get_metric(k) for k in F1_KEYS]
    assert all(m.finer and m.reads == "explanation" and m.aggregation == "ratio" and not m.score_fields for m in finer)


def test_lines_without_f1_counts_get_no_f1s(results: list[SampleResult]) -> None:
    """A run saved before the counts existed is aggregated as before: no F1 keys, no intervals for them."""

    def without_counts(explanation: Explanation) -> Explanation:
        return Explanation.model_validate({k: v for k, v in explanation.to_json().items() if k != "f1_counts"})

    old = [r.model_copy(update={"explanation": without_counts(r.explanation)}) for r in results]
    metrics = add_uncertainty(aggregate(old), old, resamples=50)
    assert "dataflow_f1" not in metrics["overall"] and "dataflow_f1" not in metrics["overall"]["ci"]
    assert "dataflow_f1" not in sample_values(old)


def test_exec_match_over_one_runnable_gold_says_why_it_has_no_interval(results: list[SampleResult]) -> None:
    """Exec Match averages only the samples whose gold runs: with one such sample a bootstrap has nothing to resample."""
    runs = [0, None, None, None, 1, None, None, None]  # exec_match: None where the gold program cannot run
    with_exec = [
        r.model_copy(update={"scores": r.scores.model_copy(update={"exec_success": 0, "exec_match": v})})
        for r, v in zip(results, runs, strict=True)
    ]
    metrics = add_uncertainty(aggregate(with_exec), with_exec, resamples=200)
    assert metrics["overall"]["ci"]["exec_match"] is not None  # two samples: an interval like the others
    single = [g for g in ("spotify", "tmdb") if metrics[g].get("n_exec_match") == 1]
    assert single == ["spotify", "tmdb"] and all(metrics[g]["ci"]["exec_match"] is None for g in single)
    lines = "\n".join(uncertainty_section(metrics, metric_titles())).splitlines()
    [row] = [line for line in lines if line.startswith("| Exec Match ")]
    assert "(n=1)" in row and "[" in row  # overall has its interval, the one-sample group says n=1
    assert any(line.startswith("(n=1):") and "gold program runs" in line for line in lines)
    plain = uncertainty_section(add_uncertainty(aggregate(results), results, resamples=200), metric_titles())
    assert not any("(n=1)" in line for line in plain)


def test_results_and_report_say_which_interval_each_metric_has(results: list[SampleResult]) -> None:
    document = results_document(results, meta={"bootstrap": 300})
    overall = document.metrics["overall"]
    assert overall["ci_method"]["arg_match_full"] == "wilson" and overall["ci_method"]["arg_match_functions"] == "bca_bootstrap"
    text = render_report(document)
    assert "- Wilson score interval (0/1 per sample): Arg Match (full)" in text and "- BCa bootstrap over samples" in text


def test_a_perfect_domain_gets_an_interval_of_nonzero_width(results: list[SampleResult]) -> None:
    perfect = [r for r in results if r.explanation.errors == []]
    metrics = add_uncertainty(aggregate(perfect), perfect, resamples=300)
    assert metrics["overall"]["n_samples"] >= 2
    for group in (g for g in metrics.values() if g["n_samples"] >= 2):
        for name in ("arg_match_full", "arg_match_functions"):
            lo, hi = group["ci"][name]
            assert group[name] == 1.0 and hi == 1.0 and lo < 0.9 and group["stderr"][name] is None
        assert group["ci_method"]["arg_match_functions"] == "wilson_samples"


def _run(clustered: bool) -> list[SampleResult]:
    """32 samples in 8 clusters of 4 identical outcomes (a generated set whose skeletons repeat)."""
    passed = [1, 0, 1, 1, 0, 1, 0, 1]
    return [
        SampleResult(
            id=f"test/{i}",
            domain="tmdb",
            scores=Scores(arg_match_full=passed[i // 4], matched_calls=2 * passed[i // 4], gold_calls=2),
            cluster=f"skeleton-{i // 4}" if clustered else None,
        )
        for i in range(32)
    ]


def test_a_run_whose_samples_come_in_identical_clusters_gets_wider_intervals_resampled_by_cluster() -> None:
    iid = add_uncertainty(aggregate(_run(False)), _run(False), resamples=2000)["overall"]
    clustered = add_uncertainty(aggregate(_run(True)), _run(True), resamples=2000)["overall"]
    for metric in ("arg_match_full", "arg_match_functions"):
        low, high = clustered["ci"][metric]
        assert clustered[metric] == iid[metric] == 0.625
        assert high - low > 1.5 * (iid["ci"][metric][1] - iid["ci"][metric][0])
        assert clustered["ci_method"][metric] == "cluster_bca_bootstrap"
    assert "BCa bootstrap over clusters" in "\n".join(uncertainty_section({"overall": clustered}, metric_titles()))
