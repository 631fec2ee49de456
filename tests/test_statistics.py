"""Intervals and p-values agree with SciPy's own functions on fixed data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gqlbench.statistics import (
    compare_paired,
    mcnemar_exact,
    mean_estimate,
    minimal_detectable_difference,
    paired_permutation_pvalue,
    ratio_estimate,
    seed_spread,
)

BINARY = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1])
MATCHED = np.array([2, 1, 3, 0, 2, 4, 1, 1, 2, 3, 0, 2])
GOLD = np.array([2, 2, 3, 1, 3, 4, 2, 1, 2, 4, 2, 2])


def test_mean_interval_is_scipys_percentile_bootstrap() -> None:
    ours = mean_estimate(BINARY, resamples=2000, seed=7)
    theirs = stats.bootstrap((BINARY,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(7))
    assert ours.value == pytest.approx(BINARY.mean())
    assert ours.ci == pytest.approx((theirs.confidence_interval.low, theirs.confidence_interval.high))
    assert ours.stderr == pytest.approx(stats.sem(BINARY))


def test_the_seed_fixes_the_interval() -> None:
    assert mean_estimate(BINARY, seed=3).ci == mean_estimate(BINARY, seed=3).ci
    assert mean_estimate(BINARY, resamples=500, seed=1).ci != mean_estimate(BINARY, resamples=500, seed=2).ci


def test_a_ratio_of_sums_is_resampled_by_sample() -> None:
    ours = ratio_estimate(MATCHED, GOLD, resamples=3000, seed=5)

    def ratio(m: np.ndarray, g: np.ndarray, axis: int = -1) -> np.ndarray:
        return m.sum(axis=axis) / g.sum(axis=axis)

    theirs = stats.bootstrap(
        (MATCHED, GOLD), ratio, paired=True, vectorized=True, n_resamples=3000, method="percentile",
        rng=np.random.default_rng(5),
    )
    assert ours.value == pytest.approx(MATCHED.sum() / GOLD.sum())
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
    assert paired_permutation_pvalue(a, b, resamples=5000) == pytest.approx(theirs.pvalue)  # both exact: 2**12 < 5000


def test_comparing_a_run_with_itself_finds_no_difference() -> None:
    same = compare_paired(BINARY, BINARY)
    assert (same.difference, same.p_value, same.within_noise, same.ci) == (0.0, 1.0, True, (0.0, 0.0))
    ratio = compare_paired(MATCHED, MATCHED, GOLD, GOLD)
    assert ratio.test == "paired_permutation" and ratio.p_value == 1.0 and ratio.within_noise


def test_a_large_paired_difference_is_not_noise() -> None:
    a = np.zeros(32, dtype=int)
    b = np.ones(32, dtype=int)
    b[:4] = 0
    result = compare_paired(a, b)
    assert result.test == "mcnemar_exact" and result.difference == pytest.approx(28 / 32)
    assert result.p_value == pytest.approx(stats.binomtest(28, 28, 0.5).pvalue) and not result.within_noise
    assert result.ci[0] > 0.5


def test_paired_ratio_difference_resamples_both_runs_together() -> None:
    better = np.minimum(MATCHED + 1, GOLD)
    result = compare_paired(MATCHED, better, GOLD, GOLD, resamples=2000)
    assert result.difference == pytest.approx((better.sum() - MATCHED.sum()) / GOLD.sum())
    assert 0 < result.ci[0] <= result.difference <= result.ci[1]


def test_minimal_detectable_difference_matches_the_normal_formula() -> None:
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert minimal_detectable_difference(32) == pytest.approx(z * np.sqrt(0.5 / 32))
    assert minimal_detectable_difference(32, correlation=0.5) < minimal_detectable_difference(32)
    with pytest.raises(ValueError):
        minimal_detectable_difference(0)


def test_seed_spread_is_mean_and_sample_standard_deviation() -> None:
    assert seed_spread([0.5, 0.6, 0.7]) == pytest.approx((0.6, 0.1))
    assert seed_spread([0.5]) == (0.5, None)


def test_scoring_does_not_import_scipy() -> None:
    """Importing scipy.stats costs seconds; results.json's intervals need NumPy only."""
    import subprocess
    import sys

    code = "import sys, gqlbench.results, gqlbench.evaluation; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
