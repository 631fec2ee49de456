"""Uncertainty of a score and whether a difference between two runs is real.

A split has few samples (the test split: 32, one sample = 3.1 points of Arg
Match), so every aggregate gets an interval and every comparison a p-value.
The statistics are SciPy's; this module only says what is resampled:

- the unit of resampling is always the **sample**: a per-sample metric is the
  mean of its values; a ratio of sums (Arg Match (functions), the micro F1s) is
  resampled by sample with its numerator and denominator together (clustered),
  never by call;
- intervals are percentile bootstrap intervals with a fixed seed, so a report
  is reproducible. They are drawn exactly as :func:`scipy.stats.bootstrap`
  draws them (``rng.integers(0, n, (resamples, n))``, linear quantiles; the
  tests check equality with SciPy), but with NumPy alone: importing
  ``scipy.stats`` costs seconds, more than scoring a split, and every
  ``evaluate`` computes intervals. SciPy is imported only for p-values and power;
- paired comparisons resample the shared samples once for both runs; p-values
  are McNemar's exact test (:func:`scipy.stats.binomtest` on the discordant
  pairs) for 0/1 metrics and a paired permutation test
  (:func:`scipy.stats.permutation_test`, swapping the two runs' values within
  a sample) otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = [
    "DEFAULT_RESAMPLES",
    "Estimate",
    "mean_estimate",
    "ratio_estimate",
    "Comparison",
    "compare_paired",
    "mcnemar_exact",
    "paired_permutation_pvalue",
    "minimal_detectable_difference",
    "seed_spread",
]

DEFAULT_RESAMPLES = 10_000
CONFIDENCE = 0.95

Values = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Estimate:
    """A score with its standard error and 95% interval (None when undefined, e.g. n < 2)."""

    value: float
    stderr: float | None
    ci: tuple[float, float] | None


def _ratio(num: np.ndarray, den: np.ndarray) -> Callable[[np.ndarray, int], np.ndarray]:
    def statistic(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        top, bottom = num[idx].sum(axis=axis), den[idx].sum(axis=axis)
        return np.divide(top, bottom, out=np.zeros_like(top, dtype=float), where=bottom != 0)

    return statistic


@lru_cache(maxsize=8)
def _resample_weights(n: int, resamples: int, seed: int) -> np.ndarray:
    """How often each sample is drawn in each resample, from the draws of ``scipy.stats.bootstrap``.

    ``rng.integers(0, n, (resamples, n))`` as SciPy draws them, counted per
    sample, so a resampled sum is one matrix product. Every metric of a group
    of n samples reuses them (same seed, same draws).
    """
    draws = np.random.default_rng(seed).integers(0, n, (resamples, n))
    rows = np.arange(resamples)[:, None] * n
    weights = np.bincount((draws + rows).ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)
    weights.setflags(write=False)
    return weights


def _weighted_ratio(num: np.ndarray, den: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Sum of numerators over sum of denominators for each row of sample weights (0 when no denominator)."""

    def statistic(weights: np.ndarray) -> np.ndarray:
        top, bottom = weights @ num, weights @ den
        return np.divide(top, bottom, out=np.zeros_like(top, dtype=float), where=bottom != 0)

    return statistic


def _bootstrap(statistic: Callable[[np.ndarray], np.ndarray], n: int, resamples: int, seed: int) -> tuple[tuple[float, float], float]:
    """Percentile interval and bootstrap standard error of ``statistic`` over resampled samples.

    The draws and quantiles of ``scipy.stats.bootstrap(..., method="percentile")``.
    """
    distribution = statistic(_resample_weights(n, resamples, seed))
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(distribution, [alpha, 1 - alpha])
    return (float(low), float(high)), float(distribution.std(ddof=1))


def mean_estimate(values: Values, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """Mean of per-sample values, its standard error (as ``scipy.stats.sem``) and bootstrap interval."""
    array = np.asarray(values, dtype=float)
    if len(array) == 0:
        return Estimate(0.0, None, None)
    if len(array) < 2:
        return Estimate(float(array.mean()), None, None)
    ci, _ = _bootstrap(_weighted_ratio(array, np.ones_like(array)), len(array), resamples, seed)
    return Estimate(float(array.mean()), float(array.std(ddof=1) / np.sqrt(len(array))), ci)  # scipy.stats.sem


def ratio_estimate(numerators: Values, denominators: Values, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """A ratio of sums (e.g. matched / gold calls), resampled by sample; stderr is the bootstrap's."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    value = float(num.sum() / den.sum()) if den.sum() else 0.0
    if len(num) < 2:
        return Estimate(value, None, None)
    ci, stderr = _bootstrap(_weighted_ratio(num, den), len(num), resamples, seed)
    return Estimate(value, stderr, ci)


def mcnemar_exact(a: Values, b: Values) -> float:
    """Two-sided exact McNemar p-value for paired 0/1 outcomes (1.0 with no discordant pair)."""
    x, y = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    only_b, only_a = int(((x == 0) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())
    if only_a + only_b == 0:
        return 1.0
    from scipy import stats  # lazily: importing scipy.stats takes seconds

    return float(stats.binomtest(only_b, only_a + only_b, 0.5).pvalue)


def _swap_pvalue(statistic: Callable[[np.ndarray, np.ndarray, int], np.ndarray], n: int, resamples: int, seed: int) -> float:
    from scipy import stats

    # Index n + i is sample i of run B; swapping within a pair is permutation_type="samples".
    result = stats.permutation_test(
        (np.arange(n), np.arange(n) + n),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        axis=-1,
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def paired_permutation_pvalue(
    a: Values, b: Values, a_den: Values | None = None, b_den: Values | None = None,
    resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
) -> float:
    """Two-sided p-value of a paired difference; with denominators, of a ratio of sums.

    Exact (every one of the 2**n swaps) when 2**n <= ``resamples``, else Monte Carlo.
    """
    num = np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    n = len(num) // 2
    if n == 0 or np.array_equal(num[:n], num[n:]) and a_den is None:
        return 1.0
    if a_den is None or b_den is None:
        den = np.ones_like(num)
    else:
        den = np.concatenate([np.asarray(a_den, dtype=float), np.asarray(b_den, dtype=float)])
    ratio = _ratio(num, den)

    def difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return ratio(y, axis) - ratio(x, axis)

    return _swap_pvalue(difference, n, resamples, seed)


@dataclass(frozen=True)
class Comparison:
    """Run B minus run A on their shared samples."""

    a: float
    b: float
    difference: float
    ci: tuple[float, float] | None
    p_value: float
    test: str  # "mcnemar_exact" or "paired_permutation"

    @property
    def within_noise(self) -> bool:
        """No evidence of a difference: p >= 0.05 (then the interval also contains 0, up to resampling)."""
        return self.p_value >= 0.05


def compare_paired(
    a: Values, b: Values, a_den: Values | None = None, b_den: Values | None = None,
    resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
) -> Comparison:
    """Difference, paired bootstrap interval and exact p-value of two runs' per-sample values.

    Values must be aligned by sample. Without denominators the metric is a
    mean (0/1 values get McNemar's test); with them, a ratio of sums.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = len(x)
    if len(y) != n:
        raise ValueError(f"paired values differ in length ({n} and {len(y)}); align them by sample id first")
    xd = np.ones(n) if a_den is None else np.asarray(a_den, dtype=float)
    yd = np.ones(n) if b_den is None else np.asarray(b_den, dtype=float)
    ratio_a, ratio_b = _weighted_ratio(x, xd), _weighted_ratio(y, yd)
    everything = np.ones((1, n))
    value_a, value_b = float(ratio_a(everything)[0]), float(ratio_b(everything)[0])

    def difference(weights: np.ndarray) -> np.ndarray:
        return ratio_b(weights) - ratio_a(weights)

    ci = _bootstrap(difference, n, resamples, seed)[0] if n >= 2 else None
    binary = a_den is None and b_den is None and set(np.unique(np.concatenate([x, y]))) <= {0.0, 1.0}
    if binary:
        p, test = mcnemar_exact(x, y), "mcnemar_exact"
    else:
        p, test = paired_permutation_pvalue(x, y, a_den, b_den, resamples, seed), "paired_permutation"
    return Comparison(value_a, value_b, value_b - value_a, ci, p, test)


def minimal_detectable_difference(n: int, p: float = 0.5, correlation: float = 0.0, power: float = 0.8, alpha: float = 0.05) -> float:
    """Smallest true difference of a 0/1 metric (rate ``p``) that ``n`` paired samples detect.

    Normal approximation for a two-sided test at level ``alpha`` with the
    given ``power``: (z_{1-alpha/2} + z_power) * sqrt(2 p (1-p) (1 - correlation) / n),
    where ``correlation`` is between the two runs' per-sample outcomes (0: as
    if independent; paired runs of similar models are positively correlated).
    """
    if n < 1:
        raise ValueError("the number of samples must be positive")
    from scipy import stats

    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return float(z * np.sqrt(2 * p * (1 - p) * (1 - correlation) / n))


def seed_spread(values: Values) -> tuple[float, float | None]:
    """Mean and standard deviation (ddof=1) of one metric across runs that differ only in seed."""
    array = np.asarray(values, dtype=float)
    return float(array.mean()), (float(array.std(ddof=1)) if len(array) > 1 else None)
