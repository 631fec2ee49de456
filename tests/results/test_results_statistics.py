"""Intervals and p-values agree with SciPy's own functions on fixed data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from gqlbench.results.power import DIFFERENCE_STEP, mcnemar_power, minimal_detectable_difference
from gqlbench.results.statistics import (
    MAX_EXACT_PAIRS,
    cluster_estimate,
    cluster_sizes,
    compare_paired,
    compare_paired_clusters,
    design_effect,
    holm_adjust,
    intraclass_correlation,
    mcnemar_exact,
    mean_cluster_size,
    mean_estimate,
    paired_difference_interval,
    paired_permutation,
    ratio_estimate,
    seed_spread,
    verdict,
    wilson_interval,
)

BINARY = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1])
MATCHED = np.array([2, 1, 3, 0, 2, 4, 1, 1, 2, 3, 0, 2])
GOLD = np.array([2, 2, 3, 1, 3, 4, 2, 1, 2, 4, 2, 2])


def test_a_0_1_metric_gets_the_wilson_interval() -> None:
    ours = mean_estimate(BINARY)
    theirs = stats.binomtest(int(BINARY.sum()), len(BINARY)).proportion_ci(0.95, method="wilson")
    assert ours.value == pytest.approx(BINARY.mean()) and ours.method == "wilson"
    assert ours.ci == pytest.approx((theirs.low, theirs.high))
    assert ours.stderr == pytest.approx(stats.sem(BINARY))


@pytest.mark.parametrize("n", [32, 12])
@pytest.mark.parametrize("value", [0, 1])
def test_a_perfect_or_zero_0_1_score_gets_a_wilson_interval_not_zero_width(n: int, value: int) -> None:
    ours = mean_estimate([value] * n)
    theirs = stats.binomtest(value * n, n).proportion_ci(0.95, method="wilson")
    assert ours.ci == pytest.approx((theirs.low, theirs.high)) and ours.ci[1] - ours.ci[0] > 0.1
    assert ours.stderr is None  # a plug-in SE of 0 would claim certainty
    if n == 32 and value == 1:
        assert round(ours.ci[0], 3) == 0.893


def test_a_non_0_1_mean_gets_scipys_bca_interval() -> None:
    values = np.array([0.5, 1.0, 0.25, 1.0, 0.75, 0.0, 1.0, 0.5, 1.0, 0.25, 0.75, 1.0, 0.5, 0.25, 1.0, 0.0])  # sums exact in floats
    ours = mean_estimate(values, resamples=2000, seed=7)
    theirs = stats.bootstrap((values,), np.mean, n_resamples=2000, method="BCa", rng=np.random.default_rng(7))
    assert ours.method == "bca_bootstrap"
    assert ours.ci == pytest.approx((theirs.confidence_interval.low, theirs.confidence_interval.high))
    assert ours.stderr == pytest.approx(stats.sem(values))  # a mean's SE is analytic, not the bootstrap's


def test_the_seed_fixes_the_interval() -> None:
    assert ratio_estimate(MATCHED, GOLD, seed=3).ci == ratio_estimate(MATCHED, GOLD, seed=3).ci
    assert ratio_estimate(MATCHED, GOLD, resamples=500, seed=1).ci != ratio_estimate(MATCHED, GOLD, resamples=500, seed=2).ci


def test_a_ratio_where_every_sample_agrees_gets_the_stated_fallback_never_zero_width() -> None:
    perfect = ratio_estimate(GOLD, GOLD)  # every sample's ratio is 1: every resample gives 1
    theirs = stats.binomtest(len(GOLD), len(GOLD)).proportion_ci(0.95, method="wilson")
    assert perfect.method == "wilson_samples" and perfect.ci == pytest.approx((theirs.low, theirs.high))
    assert perfect.stderr is None
    half = ratio_estimate(GOLD, 2 * GOLD)  # every sample 0.5: no interval, and it says so
    assert (half.value, half.ci, half.method, half.stderr) == (0.5, None, "none", None)


def test_wilson_over_samples_counts_only_samples_with_something_to_count() -> None:
    """A sample with 0 of 0 (no gold call) is neither a success nor a failure: 10 perfect samples are 10 of 10, not 12."""
    perfect = ratio_estimate(list(GOLD[:10]) + [0, 0], list(GOLD[:10]) + [0, 0])
    theirs = stats.binomtest(10, 10).proportion_ci(0.95, method="wilson")
    assert perfect.method == "wilson_samples" and perfect.ci == pytest.approx((theirs.low, theirs.high))


def test_a_ratio_of_sums_is_resampled_by_sample() -> None:
    ours = ratio_estimate(MATCHED, GOLD, resamples=3000, seed=5)

    def ratio(m: np.ndarray, g: np.ndarray, axis: int = -1) -> np.ndarray:
        return m.sum(axis=axis) / g.sum(axis=axis)

    theirs = stats.bootstrap(
        (MATCHED, GOLD),
        ratio,
        paired=True,
        vectorized=True,
        n_resamples=3000,
        method="BCa",
        rng=np.random.default_rng(5),
    )
    assert ours.value == pytest.approx(MATCHED.sum() / GOLD.sum()) and ours.method == "bca_bootstrap"
    assert ours.ci == pytest.approx((theirs.confidence_interval.low, theirs.confidence_interval.high))
    assert ours.stderr == pytest.approx(theirs.standard_error)


def test_too_few_samples_have_no_interval() -> None:
    assert mean_estimate([1]).ci is None and mean_estimate([]).stderr is None
    assert ratio_estimate([1], [2]).ci is None


def test_mcnemar_is_an_exact_binomial_test_on_discordant_pairs() -> None:
    a = np.array([1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1])
    b = np.array([1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1])
    # discordant: a-only 1, b-only 4
    assert mcnemar_exact(a, b) == pytest.approx(stats.binomtest(4, 5, 0.5).pvalue)
    assert mcnemar_exact(a, a) == 1.0


def test_permutation_p_value_is_scipys_paired_test() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(0.5, 0.2, 12)
    b = a + rng.normal(0.1, 0.1, 12)

    def mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(y - x, axis=axis)

    theirs = stats.permutation_test((a, b), mean_difference, permutation_type="samples", vectorized=True, n_resamples=5000)
    ours = paired_permutation(a, b, resamples=5000)
    assert ours.exact and ours.arrangements == 2**12 and ours.p_value == pytest.approx(theirs.pvalue)  # both exact


def _brute_force_p(a, b, a_den, b_den) -> float:
    """Every one of the 2**n within-pair swaps, the statistic recomputed from scratch for each."""
    n = len(a)

    def stat(x, xd, y, yd) -> float:
        return (sum(y) / sum(yd) if sum(yd) else 0.0) - (sum(x) / sum(xd) if sum(xd) else 0.0)

    observed = stat(a, a_den, b, b_den)
    null = []
    for swaps in itertools.product((False, True), repeat=n):
        x = [b[i] if s else a[i] for i, s in enumerate(swaps)]
        xd = [b_den[i] if s else a_den[i] for i, s in enumerate(swaps)]
        y = [a[i] if s else b[i] for i, s in enumerate(swaps)]
        yd = [a_den[i] if s else b_den[i] for i, s in enumerate(swaps)]
        null.append(stat(x, xd, y, yd))
    eps = 1e-12
    below = sum(v <= observed + eps for v in null) / len(null)
    above = sum(v >= observed - eps for v in null) / len(null)
    return min(1.0, 2 * min(below, above))


def test_permutation_p_value_of_a_ratio_is_the_brute_force_enumeration() -> None:
    better = np.minimum(MATCHED + np.array([1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0]), GOLD)
    ours = paired_permutation(MATCHED, better, GOLD, GOLD)
    assert ours.exact and ours.p_value == pytest.approx(_brute_force_p(list(MATCHED), list(better), list(GOLD), list(GOLD)))


def test_permutation_at_n_32_enumerates_the_pairs_that_differ() -> None:
    """Swapping an equal pair changes nothing, so the 2**32 arrangements are 2**22 copies of the 2**10 of the differing pairs."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 5, 32).astype(float)
    den = np.full(32, 4.0)
    b = a.copy()
    b[:10] = np.minimum(a[:10] + rng.integers(-1, 3, 10), 4)
    b[0], b[1] = a[0] + 1, a[1] - 1  # at least some differ both ways
    k = int((a != b).sum())
    ours = paired_permutation(a, b, den, den)
    expected = _brute_force_p(list(a[a != b]) + [0.0] * 0, list(b[a != b]), list(den[a != b]), list(den[a != b]))
    # the brute force over the differing pairs alone has other totals; shift by the equal pairs' sums
    same = a == b

    def stat_full(x, y):
        return y.sum() / den.sum() - x.sum() / den.sum()

    null = []
    for swaps in itertools.product((False, True), repeat=k):
        x, y = a.copy(), b.copy()
        idx = np.flatnonzero(~same)
        for i, s in zip(idx, swaps, strict=True):
            if s:
                x[i], y[i] = b[i], a[i]
        null.append(stat_full(x, y))
    observed = stat_full(a, b)
    expected = min(1.0, 2 * min(np.mean(np.array(null) <= observed + 1e-12), np.mean(np.array(null) >= observed - 1e-12)))
    assert ours.exact and ours.arrangements == 2**k and ours.method == f"exact: all {2**k} arrangements"
    assert ours.p_value == pytest.approx(expected)


def test_permutation_beyond_the_enumerable_says_monte_carlo_and_its_draws() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0.5, 0.2, MAX_EXACT_PAIRS + 5)
    result = paired_permutation(a, a + 0.05, resamples=999)
    assert not result.exact and result.arrangements == 999 and result.method == "Monte Carlo: 999 draws"


def test_comparing_a_run_with_itself_finds_no_difference() -> None:
    same = compare_paired(BINARY, BINARY)
    assert (same.difference, same.p_value, same.within_noise, same.identical, same.verdict) == (0.0, 1.0, True, True, "no difference")
    # no discordant sample still leaves an interval of the size n samples allow, never a zero-width one
    assert same.ci is not None and same.ci[0] < -0.1 and same.ci[1] > 0.1
    ratio = compare_paired(MATCHED, MATCHED, GOLD, GOLD)
    assert ratio.test == "paired_permutation" and ratio.p_value == 1.0 and ratio.within_noise and ratio.verdict == "no difference"


def test_discordant_samples_that_cancel_are_within_noise_not_no_difference() -> None:
    a = np.array([1] * 4 + [0] * 4 + [1] * 24)
    b = np.array([0] * 4 + [1] * 4 + [1] * 24)  # 4 samples only A passes, 4 only B: the runs differ on 8
    result = compare_paired(a, b)
    assert (result.difference, result.p_value, result.verdict) == (0.0, 1.0, "within noise") and not result.identical
    assert verdict(0.0, 1.0) == "within noise" and verdict(0.0, 1.0, identical=True) == "no difference"


def test_a_large_paired_difference_is_not_noise() -> None:
    a = np.zeros(32, dtype=int)
    b = np.ones(32, dtype=int)
    b[:4] = 0
    result = compare_paired(a, b)
    assert result.test == "mcnemar_exact" and result.difference == pytest.approx(28 / 32)
    assert result.p_value == pytest.approx(stats.binomtest(28, 28, 0.5).pvalue) and not result.within_noise
    assert result.ci[0] > 0.5 and result.verdict == "B higher"


def _score_interval_by_brute_force(only_a: int, only_b: int, n: int) -> tuple[float, float]:
    """Tango's interval from its definition: the restricted MLE found numerically, the score test inverted by root finding."""
    from scipy import optimize

    z = stats.norm.ppf(0.975)
    neither = n - only_a - only_b

    def statistic(d: float) -> float:
        def minus_log_likelihood(q: float) -> float:  # q = P(only A), P(only B) = q + d
            cells = np.array([q, q + d, 1 - 2 * q - d])
            counts = np.array([only_a, only_b, neither])
            return float(-np.sum(counts[counts > 0] * np.log(np.clip(cells[counts > 0], 1e-300, None))))

        upper = (1 - d) / 2
        q = optimize.minimize_scalar(minus_log_likelihood, bounds=(max(0.0, -d), upper), method="bounded", options={"xatol": 1e-12}).x
        return (only_b - only_a - n * d) / np.sqrt(n * (2 * q + d * (1 - d)))

    estimate = (only_b - only_a) / n  # the statistic is 0 there and falls as d grows: one root on each side
    return (
        optimize.brentq(lambda d: statistic(d) - z, -0.9999, estimate, xtol=1e-10),
        optimize.brentq(lambda d: statistic(d) + z, estimate, 0.9999, xtol=1e-10),
    )


@pytest.mark.parametrize(("only_a", "only_b", "n"), [(0, 10, 32), (3, 9, 32), (40, 20, 160), (2, 0, 12)])
def test_the_paired_interval_is_tangos_score_interval(only_a: int, only_b: int, n: int) -> None:
    low, high = paired_difference_interval(only_a, only_b, n)
    reference = _score_interval_by_brute_force(only_a, only_b, n)
    assert (low, high) == pytest.approx(reference, abs=1e-6)
    assert low < (only_b - only_a) / n < high  # the estimate inside, never at an end


def _coverage(n: int, only_b_rate: float, both_rate: float, draws: int, seed: int) -> float:
    """Share of ``draws`` simulated pairs of runs whose interval for B - A holds the true difference ``only_b_rate``.

    One-sided discordance: B passes every sample A passes (A at ``both_rate``)
    and ``only_b_rate`` more. Each distinct (only A, only B) count is compared once.
    """
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, [both_rate, only_b_rate, 1 - both_rate - only_b_rate], size=draws)
    covered: dict[int, bool] = {}
    hits = 0
    for both, only_b, _ in counts:
        if only_b not in covered:
            a = np.array([1] * both + [0] * (n - both))
            b = np.array([1] * (both + only_b) + [0] * (n - both - only_b))
            ci = compare_paired(a, b).ci
            covered[only_b] = ci is not None and ci[0] <= only_b_rate <= ci[1]
        hits += covered[only_b]
    return hits / draws


@pytest.mark.parametrize(("only_b_rate", "both_rate"), [(0.1, 0.5), (0.2, 0.3), (0.3, 0.5), (0.5, 0.2)])
def test_the_paired_interval_covers_the_true_difference_when_discordance_is_one_sided(only_b_rate: float, both_rate: float) -> None:
    """At n = 32 with only B-better discordant samples, at least 94% of 20,000 seeded draws cover the truth.

    The interval conditioned on the number of discordant samples covered 40-56% here.
    """
    assert _coverage(32, only_b_rate, both_rate, draws=20_000, seed=33) >= 0.94


@pytest.mark.parametrize("n", [12, 32])
def test_the_interval_excludes_0_exactly_when_mcnemars_score_test_rejects_and_flags_disagreement_with_the_exact_test(n: int) -> None:
    """Tango's interval at difference 0 is McNemar's asymptotic test; the verdict stays the exact test's, a * marks the rest."""
    z = stats.norm.ppf(0.975)
    for only_a in range(n + 1):
        for only_b in range(n + 1 - only_a):
            a = np.array([1] * only_a + [0] * only_b + [1] * (n - only_a - only_b))
            b = np.array([0] * only_a + [1] * only_b + [1] * (n - only_a - only_b))
            result = compare_paired(a, b)
            k = only_a + only_b
            exact_rejects = k > 0 and stats.binomtest(only_b, k, 0.5).pvalue < 0.05
            assert result.within_noise != exact_rejects
            excludes = result.ci is not None and (result.ci[0] > 0 or result.ci[1] < 0)
            score = abs(only_b - only_a) / np.sqrt(k) if k else 0.0
            if abs(score - z) > 1e-9:
                assert excludes == (score > z), (only_a, only_b, result.ci)
            assert result.interval_disagrees == (excludes != exact_rejects)


def test_holm_adjusts_in_the_given_order() -> None:
    assert holm_adjust([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm_adjust([0.3, 0.3]) == [0.6, 0.6] and holm_adjust([0.9, 0.8]) == [1.0, 1.0] and holm_adjust([]) == []


def test_a_bootstrap_interval_that_disagrees_with_the_test_is_flagged_and_the_verdict_is_the_tests() -> None:
    a = np.array([0.5] * 10 + [0.4, 0.6])
    b = a.copy()
    b[:3] += 0.1  # three small gains: the bootstrap interval excludes 0, the exact test cannot reject with k = 3
    result = compare_paired(a, b)
    assert result.p_value == pytest.approx(0.25) and result.verdict == "within noise"
    assert result.ci is not None and result.ci[0] > 0 and result.interval_disagrees


def test_paired_ratio_difference_resamples_both_runs_together() -> None:
    better = np.minimum(MATCHED + 1, GOLD)
    result = compare_paired(MATCHED, better, GOLD, GOLD, resamples=2000)
    assert result.difference == pytest.approx((better.sum() - MATCHED.sum()) / GOLD.sum())
    assert 0 < result.ci[0] <= result.difference <= result.ci[1]


def _brute_force_power(n: int, rate: float, difference: float, correlation: float) -> float:
    """Every outcome (both pass, only A, only B, neither) of n paired samples, with SciPy's exact test on each."""
    p_a, p_b = rate - difference / 2, rate + difference / 2
    both = p_a * p_b + correlation * np.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    only_a, only_b = p_a - both, p_b - both
    rest = 1 - only_a - only_b
    total = 0.0
    for x in range(n + 1):
        for y in range(n + 1 - x):
            if x + y and stats.binomtest(y, x + y, 0.5).pvalue < 0.05:
                total += stats.multinomial.pmf([x, y, n - x - y], n, [only_a, only_b, rest])
    return total


@pytest.mark.parametrize(("n", "rate", "difference", "correlation"), [(10, 0.5, 0.4, 0.0), (14, 0.3, 0.3, 0.5), (20, 0.7, 0.25, 0.2)])
def test_mcnemar_power_is_the_exact_tests_by_enumeration(n: int, rate: float, difference: float, correlation: float) -> None:
    assert mcnemar_power(n, rate, difference, correlation) == pytest.approx(_brute_force_power(n, rate, difference, correlation))


@pytest.mark.parametrize(("rate", "correlation"), [(0.5, 0.0), (0.5, 0.5), (0.3, 0.0)])
def test_minimal_detectable_difference_reaches_80_percent_power_of_the_exact_test(rate: float, correlation: float) -> None:
    difference = minimal_detectable_difference(32, rate, correlation)
    assert difference is not None
    assert _brute_force_power(32, rate, difference, correlation) >= 0.8
    assert _brute_force_power(32, rate, difference - DIFFERENCE_STEP, correlation) < 0.8
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    normal = z * np.sqrt(2 * rate * (1 - rate) * (1 - correlation) / 32)
    assert _brute_force_power(32, rate, normal, correlation) < 0.75  # the normal approximation promises too much


def test_too_few_samples_reach_no_power() -> None:
    assert minimal_detectable_difference(5) is None  # 5 discordant pairs all one way: p = 0.0625
    with pytest.raises(ValueError):
        minimal_detectable_difference(0)


def test_seed_spread_is_mean_and_sample_standard_deviation() -> None:
    assert seed_spread([0.5, 0.6, 0.7]) == pytest.approx((0.6, 0.1))
    assert seed_spread([0.5]) == (0.5, None)


def test_scoring_does_not_import_scipy() -> None:
    """Importing scipy.stats costs seconds; results.json's intervals need NumPy only."""
    import subprocess
    import sys

    code = "import sys, gqlbench.results.files, gqlbench.scoring.evaluation; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# -- clusters ---------------------------------------------------------------------


def _clustered(values: list[float], size: int) -> tuple[list[float], list[str | None]]:
    """Each value repeated ``size`` times, the copies forming one cluster."""
    return [v for v in values for _ in range(size)], [f"c{i}" for i in range(len(values)) for _ in range(size)]


def test_identical_clusters_get_a_wider_interval_than_independent_samples() -> None:
    values, clusters = _clustered([1, 0, 1, 1, 0, 1, 0, 1], 4)
    iid = mean_estimate(values)
    clustered = cluster_estimate(values, None, clusters)
    assert clustered.value == iid.value == 0.625
    assert clustered.method == "cluster_bca_bootstrap" and iid.method == "wilson"
    assert clustered.ci is not None and iid.ci is not None
    assert clustered.ci[1] - clustered.ci[0] > 1.5 * (iid.ci[1] - iid.ci[0])  # 8 clusters, not 32 samples


def test_clusters_of_one_give_the_independent_estimate() -> None:
    values = [0.2, 0.9, 0.4, 0.4, 1.0, 0.0, 0.7]
    assert cluster_estimate(values, None, [None] * 7) == mean_estimate(values)
    assert cluster_estimate(values, [2, 1, 1, 3, 1, 2, 1], list("abcdefg")) == ratio_estimate(values, [2, 1, 1, 3, 1, 2, 1])


def test_a_ratio_of_sums_resamples_each_clusters_numerators_and_denominators_together() -> None:
    estimate = cluster_estimate([1, 1, 0, 2, 0, 1], [1, 2, 1, 2, 1, 1], ["a", "a", "b", "b", "c", "c"], 2000)
    assert estimate.value == pytest.approx(5 / 8)
    assert estimate.method.startswith("cluster_")


def test_every_cluster_passing_counts_clusters_in_wilsons_interval() -> None:
    values, clusters = _clustered([1, 1, 1, 1, 1], 4)
    estimate = cluster_estimate(values, None, clusters)
    assert (estimate.method, estimate.ci) == ("wilson_clusters", wilson_interval(5, 5))


def test_the_design_effect_of_clusters_of_size_m_with_icc_1_is_m() -> None:
    assert design_effect(mean_cluster_size([4] * 10), 1.0) == 4.0
    assert design_effect(4.0, 0.0) == 1.0 and design_effect(4.0, 0.5) == 2.5
    assert mean_cluster_size([1, 3]) == pytest.approx((1 + 9) / 4)  # the size of the cluster a random sample is in
    assert cluster_sizes(["a", None, "a", None, "b"]) == [2, 1, 1, 1]
    with pytest.raises(ValueError):
        design_effect(2.0, 1.5)


def test_the_intraclass_correlation_is_1_for_identical_clusters_and_0_when_clusters_do_not_matter() -> None:
    values, clusters = _clustered([1, 0, 1, 0, 1], 3)
    assert intraclass_correlation(values, clusters) == 1.0
    assert intraclass_correlation([1, 0, 1, 0, 1, 0], ["a", "a", "b", "b", "c", "c"]) == 0.0  # each cluster half and half
    assert intraclass_correlation([1, 0, 1], [None, None, None]) is None  # no cluster of two


# -- paired comparisons of clustered samples -----------------------------------------


def test_a_paired_comparison_of_identical_clusters_is_wider_and_less_sure_than_of_independent_samples() -> None:
    a, clusters = _clustered([1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1], 5)
    b, _ = _clustered([1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1], 5)
    iid = compare_paired(a, b)
    clustered = compare_paired_clusters(a, b, None, None, clusters, 2000)
    assert clustered.difference == iid.difference == pytest.approx(0.25)
    assert (iid.test, iid.ci_method) == ("mcnemar_exact", "tango_score")
    assert clustered.test == "cluster_permutation" and clustered.ci_method.startswith("cluster_")
    assert clustered.ci is not None and iid.ci is not None
    assert clustered.ci[1] - clustered.ci[0] > 1.5 * (iid.ci[1] - iid.ci[0])  # 12 clusters, not 60 samples
    assert iid.p_value < 0.05 < clustered.p_value  # 15 discordant samples all one way, but only 3 clusters
    assert clustered.p_value == pytest.approx(2 / 2**3)  # exact: 3 differing clusters, all one way


def test_a_paired_comparison_of_clusters_of_one_is_the_independent_one() -> None:
    a, b = [1, 0, 1, 0, 0, 1, 1, 0], [1, 1, 1, 1, 0, 1, 0, 1]
    assert compare_paired_clusters(a, b, None, None, [None] * 8) == compare_paired(a, b)
    assert compare_paired_clusters(a, b, None, None, list("abcdefgh")) == compare_paired(a, b)
    x, y, den = [0.5, 1, 0, 2, 1], [1, 1, 1, 2, 0], [1, 2, 1, 2, 1]
    assert compare_paired_clusters(x, y, den, den, list("abcde"), 500) == compare_paired(x, y, den, den, 500)


def test_a_paired_ratio_of_clustered_samples_keeps_each_clusters_sums_together() -> None:
    x, y = [1, 0, 2, 1, 0, 1], [1, 1, 2, 2, 1, 1]
    den = [1, 1, 2, 2, 1, 1]
    result = compare_paired_clusters(x, y, den, den, ["a", "a", "b", "b", "c", "c"], 500)
    assert (result.a, result.b) == (pytest.approx(5 / 8), pytest.approx(8 / 8))
    assert result.test == "cluster_permutation" and result.p_method == "exact: all 8 arrangements"


def test_clusters_that_never_differ_get_the_width_their_number_allows() -> None:
    a, clusters = _clustered([1, 0, 1, 1, 0], 4)
    result = compare_paired_clusters(a, a, None, None, clusters)
    assert result.identical and result.p_value == 1.0
    assert (result.ci_method, result.ci) == ("cluster_tango_score", paired_difference_interval(0, 0, 5))
