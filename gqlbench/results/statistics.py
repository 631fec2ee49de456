"""Uncertainty of a score and whether a difference between two runs is real.

A split has few samples (the test split: 32, one sample = 3.1 points of Arg
Match; Spotify alone: 12), so each aggregate gets an interval that keeps its
coverage at that size where one is defined, and each comparison one test.
The unit of resampling is always the **sample**: a ratio of sums (Arg Match
(functions), the micro F1s) keeps each sample's numerator and denominator
together, never resampling calls.

Intervals of one run (:class:`Estimate`, its ``method`` names which):

- ``wilson``: a metric whose per-sample values are all 0 or 1 (Arg Match
  (full), Seq Match, Exec Success) gets the Wilson score interval, which keeps
  its coverage at small n and at rates of 0 or 1 (32 of 32: [0.893, 1.0]);
- ``bca_bootstrap``: other metrics (ratios of sums, means of fractions) get a
  bias-corrected and accelerated bootstrap interval with a fixed seed, drawn
  exactly as :func:`scipy.stats.bootstrap` draws them
  (``rng.integers(0, n, (resamples, n))``; the tests check equality with
  SciPy's ``method="BCa"``) but with NumPy alone: importing ``scipy.stats``
  costs seconds, more than scoring a split;
- ``percentile_bootstrap``: when BCa is undefined (the observed value lies
  outside every resample) the percentile interval of the same draws;
- ``wilson_samples``: when every resample of a ratio of sums gives the same
  value, 0 or 1 (a zero-width bootstrap interval), the Wilson interval with
  each sample that has something to count (a denominator) as one success or
  failure; a 0-of-0 sample is neither;
- ``none``: no interval (fewer than two samples, or every sample has the same
  value strictly between 0 and 1).
- ``cluster_bca_bootstrap`` (``cluster_percentile_bootstrap``,
  ``wilson_clusters``): when samples come in clusters that are not
  independent (a generated set's samples sharing a program skeleton: each
  result's ``cluster``), :func:`cluster_estimate` resamples whole clusters,
  for every metric (a Wilson interval would count n independent samples).
  The unit of resampling is then the cluster. :func:`design_effect` gives the
  same correction for the power of a test (n samples weigh as
  n / (1 + (m - 1) * ICC)).

The standard error is the sample mean's (as ``scipy.stats.sem``) for metrics
that are means of per-sample values (0/1 or fractions) and the bootstrap's for
ratios of sums, and ``None`` when every sample has the same value (an SE of 0
would claim certainty that n samples cannot give).

Paired comparisons (:func:`compare_paired`) run one test per metric:

- 0/1 metrics: McNemar's exact test (a binomial test on the discordant pairs)
  and Tango's score interval for the difference of paired proportions
  (:func:`paired_difference_interval`), which is unconditional: unlike an
  interval given the number of discordant pairs, it keeps its coverage when
  they all go one way;
- other metrics: a paired permutation test (swap the two runs' values within
  a sample), enumerated over every arrangement of the k samples whose values
  differ when 2**k <= 2**20, else Monte Carlo with ``resamples`` draws (the
  comparison says which), and the paired BCa bootstrap interval of the
  difference.

When the samples come in clusters (:func:`compare_paired_clusters`), the unit
is the cluster for both: the test is the paired permutation test that swaps
the two runs' values of a whole cluster at once (0/1 metrics too: it is
McNemar's exact test when every cluster has one sample), and the interval the
paired BCa bootstrap of the difference resampling whole clusters
(``cluster_bca_bootstrap``). Samples that are all their own cluster get
:func:`compare_paired` unchanged.

The intervals describe the size and are no second test. A report runs many
tests, so its verdicts use p-values adjusted across them (:func:`holm_adjust`,
applied by :mod:`gqlbench.results.compare`); :func:`verdict` turns a p-value into words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

import numpy as np

__all__ = [
    "DEFAULT_RESAMPLES",
    "ALPHA",
    "CONFIDENCE",
    "MAX_EXACT_PAIRS",
    "Estimate",
    "wilson_interval",
    "mean_estimate",
    "ratio_estimate",
    "cluster_estimate",
    "cluster_sizes",
    "mean_cluster_size",
    "design_effect",
    "intraclass_correlation",
    "Comparison",
    "verdict",
    "holm_adjust",
    "paired_difference_interval",
    "Permutation",
    "compare_paired",
    "compare_paired_clusters",
    "mcnemar_exact",
    "paired_permutation",
    "seed_spread",
]

DEFAULT_RESAMPLES = 10_000
ALPHA = 0.05
CONFIDENCE = 0.95
MAX_EXACT_PAIRS = 20
"""A permutation test enumerates every arrangement of up to this many differing pairs (2**20), else draws."""

Values = Sequence[float] | np.ndarray
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Estimate:
    """A score with its standard error and 95% interval (None when undefined), and how the interval was made."""

    value: float
    stderr: float | None
    ci: tuple[float, float] | None
    method: str = "none"  # see the module docstring


def wilson_interval(successes: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (n >= 1)."""
    z = _NORMAL.inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * float(np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)))
    return max(0.0, centre - half), min(1.0, centre + half)


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


def _bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray], n: int, resamples: int, seed: int
) -> tuple[tuple[float, float], float, str] | None:
    """BCa interval, bootstrap standard error and method of ``statistic`` over resampled samples.

    As ``scipy.stats.bootstrap(..., method="BCa")``: bias from the share of
    resamples below (and half of those equal to) the observed value,
    acceleration from the jackknife. None when every resample gives the same
    value (then the data cannot say how wide the interval is); the percentile
    interval when BCa is undefined.
    """
    distribution = statistic(_resample_weights(n, resamples, seed))
    if np.ptp(distribution) == 0:
        return None
    stderr = float(distribution.std(ddof=1))
    observed = float(statistic(np.ones((1, n)))[0])
    share = (np.count_nonzero(distribution < observed) + np.count_nonzero(distribution <= observed)) / (2 * len(distribution))
    jackknife = statistic(1 - np.eye(n))  # row i leaves sample i out
    u = (n - 1) * (jackknife.mean() - jackknife)
    spread = float((u**2).sum()) / n**2
    alpha = ALPHA / 2
    if 0 < share < 1 and spread > 0:
        z0 = _NORMAL.inv_cdf(share)
        acceleration = float((u**3).sum()) / n**3 / 6 / spread**1.5
        z = _NORMAL.inv_cdf(alpha)
        levels = [_NORMAL.cdf(z0 + (z0 + s * z) / (1 - acceleration * (z0 + s * z))) for s in (1, -1)]
        low, high = np.quantile(distribution, levels)
        return (float(low), float(high)), stderr, "bca_bootstrap"
    low, high = np.quantile(distribution, [alpha, 1 - alpha])
    return (float(low), float(high)), stderr, "percentile_bootstrap"


def _all_equal_estimate(value: float, n: int) -> Estimate:
    """Every sample has the same value: an interval only when that value is 0 or 1 (a rate over samples)."""
    if value in (0.0, 1.0):
        return Estimate(value, None, wilson_interval(value * n, n), "wilson_samples")
    return Estimate(value, None, None, "none")


def mean_estimate(values: Values, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """Mean of per-sample values with its standard error and interval: Wilson for 0/1 values, else BCa."""
    array = np.asarray(values, dtype=float)
    if len(array) == 0:
        return Estimate(0.0, None, None)
    value = float(array.mean())
    if len(array) < 2:
        return Estimate(value, None, None)
    stderr = float(array.std(ddof=1) / np.sqrt(len(array))) if np.ptp(array) else None  # scipy.stats.sem
    if set(np.unique(array)) <= {0.0, 1.0}:
        return Estimate(value, stderr, wilson_interval(array.sum(), len(array)), "wilson")
    if stderr is None:
        return _all_equal_estimate(value, len(array))
    found = _bootstrap(_weighted_ratio(array, np.ones_like(array)), len(array), resamples, seed)
    assert found is not None  # values differ, so resamples do
    return Estimate(value, stderr, found[0], found[2])


def ratio_estimate(numerators: Values, denominators: Values, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> Estimate:
    """A ratio of sums (e.g. matched / gold calls), resampled by sample (BCa); stderr is the bootstrap's."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    value = float(num.sum() / den.sum()) if den.sum() else 0.0
    if len(num) < 2:
        return Estimate(value, None, None)
    found = _bootstrap(_weighted_ratio(num, den), len(num), resamples, seed)
    if found is None:  # a sample with nothing to count (0 of 0) is neither a success nor a failure
        counted = int(np.count_nonzero(den))
        return _all_equal_estimate(value, counted) if counted >= 2 else Estimate(value, None, None)
    return Estimate(value, found[1], found[0], found[2])


def _cluster_rows(clusters: Sequence[str | None]) -> tuple[np.ndarray, int]:
    """Each sample's cluster as a number 0..k-1 (in order of first appearance), and k; a sample without a cluster is its own."""
    index: dict[object, int] = {}
    rows = [index.setdefault(key if key is not None else ("", i), len(index)) for i, key in enumerate(clusters)]
    return np.array(rows, dtype=int), len(index)


def _cluster_sums(values: Values, denominators: Values, clusters: Sequence[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster, the sum of its samples' values and of their denominators."""
    rows, k = _cluster_rows(clusters)
    num = np.bincount(rows, weights=np.asarray(values, dtype=float), minlength=k)
    den = np.bincount(rows, weights=np.asarray(denominators, dtype=float), minlength=k)
    return num, den


def cluster_estimate(
    values: Values,
    denominators: Values | None,
    clusters: Sequence[str | None],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Estimate:
    """A mean (``denominators`` None) or ratio of sums whose samples come in clusters that are not independent.

    The cluster bootstrap: whole clusters are resampled (BCa, jackknife by
    leaving one cluster out), each carrying the sum of its samples' values and
    denominators. A sample whose cluster is None is a cluster of its own; when
    every cluster has one sample this is :func:`mean_estimate` or
    :func:`ratio_estimate`. When every resample gives the same value (0 or 1),
    the Wilson interval counts clusters, not samples.
    """
    if len(clusters) != len(values):
        raise ValueError("one cluster per value")
    den = np.ones(len(values)) if denominators is None else np.asarray(denominators, dtype=float)
    num_c, den_c = _cluster_sums(values, den, clusters)
    if len(num_c) == len(values):
        if denominators is None:
            return mean_estimate(values, resamples, seed)
        return ratio_estimate(values, denominators, resamples, seed)
    value = float(num_c.sum() / den_c.sum()) if den_c.sum() else 0.0
    counted = int(np.count_nonzero(den_c))
    if counted < 2:
        return Estimate(value, None, None)
    found = _bootstrap(_weighted_ratio(num_c, den_c), len(num_c), resamples, seed)
    if found is None:
        if value in (0.0, 1.0):
            return Estimate(value, None, wilson_interval(value * counted, counted), "wilson_clusters")
        return Estimate(value, None, None)
    return Estimate(value, found[1], found[0], f"cluster_{found[2]}")


def cluster_sizes(clusters: Sequence[str | None]) -> list[int]:
    """How many samples each cluster has (a sample without a cluster is one of size 1)."""
    rows, k = _cluster_rows(clusters)
    return [int(m) for m in np.bincount(rows, minlength=k)]


def mean_cluster_size(sizes: Sequence[int]) -> float:
    """The size-weighted mean cluster size ``sum(m_i**2) / sum(m_i)``: the m of the design effect when sizes differ.

    It is the mean size of the cluster a random sample is in (Kish); with equal sizes it is that size.
    """
    total = sum(sizes)
    if total <= 0:
        raise ValueError("no samples")
    return sum(m * m for m in sizes) / total


def design_effect(mean_size: float, icc: float) -> float:
    """``1 + (m - 1) * icc``: how many times the variance of a mean grows when its samples come in clusters.

    ``m`` is the mean cluster size (:func:`mean_cluster_size` when sizes
    differ); ``icc`` the intraclass correlation of the outcome (0: independent
    samples, design effect 1; 1: samples of a cluster always agree, design
    effect m). n samples then weigh as n / design effect.
    """
    if not 0.0 <= icc <= 1.0:
        raise ValueError("the intraclass correlation must be in [0, 1]")
    if mean_size < 1.0:
        raise ValueError("a cluster has at least one sample")
    return 1.0 + (mean_size - 1.0) * icc


def intraclass_correlation(values: Values, clusters: Sequence[str | None]) -> float | None:
    """One-way ANOVA estimate of the intraclass correlation of per-sample values, clipped to [0, 1].

    ``(MSB - MSW) / (MSB + (m0 - 1) * MSW)`` with ``m0 = (N - sum(m_i**2) / N) / (k - 1)``
    for unequal cluster sizes. None when it is undefined: fewer than two
    clusters, no cluster with two samples, or no variation at all.
    """
    array = np.asarray(values, dtype=float)
    rows, k = _cluster_rows(clusters)
    n = len(array)
    if k < 2 or n - k < 1:
        return None
    sizes = np.bincount(rows, minlength=k).astype(float)
    means = np.bincount(rows, weights=array, minlength=k) / sizes
    between = float((sizes * (means - array.mean()) ** 2).sum()) / (k - 1)
    within = float(((array - means[rows]) ** 2).sum()) / (n - k)
    m0 = (n - float((sizes**2).sum()) / n) / (k - 1)
    denominator = between + (m0 - 1) * within
    if denominator <= 0:
        return None
    return min(1.0, max(0.0, (between - within) / denominator))


def _discordant(a: Values, b: Values) -> tuple[int, int]:
    """(samples only A passes, samples only B passes) of paired 0/1 outcomes."""
    x, y = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    return int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())


def mcnemar_exact(a: Values, b: Values) -> float:
    """Two-sided exact McNemar p-value for paired 0/1 outcomes (1.0 with no discordant pair)."""
    only_a, only_b = _discordant(a, b)
    if only_a + only_b == 0:
        return 1.0
    from scipy import stats  # lazily: importing scipy.stats takes seconds

    return float(stats.binomtest(only_b, only_a + only_b, 0.5).pvalue)


def _tango_statistic(only_a: int, only_b: int, n: int, difference: float) -> float:
    """Tango's score statistic for B - A = ``difference``: positive when the data say B - A is larger.

    The variance is taken under the hypothesis, at the restricted maximum
    likelihood estimate of P(only A passes), which has a closed form (Tango 1998, eq. 4).
    """
    d = difference
    a_coef, b_coef, c_coef = 2 * n, -only_a - only_b + (2 * n - only_b + only_a) * d, -only_a * d * (1 - d)
    only_a_prob = (-b_coef + math.sqrt(max(b_coef * b_coef - 4 * a_coef * c_coef, 0.0))) / (2 * a_coef)
    variance = n * (2 * only_a_prob + d * (1 - d))
    observed = only_b - only_a - n * d
    if variance <= 0:
        return 0.0 if observed == 0 else math.copysign(math.inf, observed)
    return observed / math.sqrt(variance)


def paired_difference_interval(only_a: int, only_b: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Tango's score interval for B - A, a difference of two proportions on the same ``n`` samples.

    ``only_a`` and ``only_b`` count the samples only A (only B) passes. The
    interval holds every difference that Tango's score test does not reject
    (T. Tango, "Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design", Statistics in Medicine 17, 1998,
    891-908; one of the intervals Fagerland, Lydersen and Laake recommend,
    Statistics in Medicine 33, 2014, 2850-2875; R: ``PropCIs::scoreci.mp``).
    Unlike an interval conditioned on the number of discordant samples it is
    unconditional: at n = 32 with every discordant sample one way its exact
    coverage is 96.4% on average over B - A from 0.01 to 0.95 and 93.2% at worst
    (0.39), where the conditional one covered about half the time. It has
    width without any discordant sample (n = 32: +-0.107), and excludes 0
    exactly when McNemar's asymptotic test rejects. Found by bisection: the
    statistic decreases in the difference.
    """
    z = _NORMAL.inv_cdf(1 - (1 - confidence) / 2)

    def root(target: float) -> float:
        low, high = -1.0, 1.0
        for _ in range(60):  # 2**-60: exact to a double's precision
            middle = (low + high) / 2
            low, high = (middle, high) if _tango_statistic(only_a, only_b, n, middle) > target else (low, middle)
        return (low + high) / 2

    return root(z), root(-z)


@dataclass(frozen=True)
class Permutation:
    """A permutation test's two-sided p-value and how it was computed."""

    p_value: float
    exact: bool  # every arrangement enumerated, else Monte Carlo
    arrangements: int  # arrangements enumerated, or Monte Carlo draws

    @property
    def method(self) -> str:
        if self.exact:
            return f"exact: all {self.arrangements} arrangements"
        return f"Monte Carlo: {self.arrangements} draws"


def _swaps(k: int, resamples: int, seed: int) -> tuple[list[np.ndarray], bool]:
    """0/1 rows saying which of k pairs are swapped: all 2**k in blocks, or ``resamples`` random rows."""
    if k <= MAX_EXACT_PAIRS:
        total, block = 2**k, 2**16
        bits = np.arange(k)
        return [
            ((np.arange(start, min(start + block, total))[:, None] >> bits) & 1).astype(float) for start in range(0, total, block)
        ], True
    return [np.random.default_rng(seed).integers(0, 2, (resamples, k)).astype(float)], False


def paired_permutation(
    a: Values,
    b: Values,
    a_den: Values | None = None,
    b_den: Values | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Permutation:
    """Two-sided permutation p-value of B - A on paired samples; with denominators, of a ratio of sums.

    Swapping a sample whose values (and denominators) are equal in both runs
    changes nothing, so only the k samples that differ are permuted: every
    one of the 2**k arrangements when k <= :data:`MAX_EXACT_PAIRS`, else
    ``resamples`` random ones. p is twice the smaller tail (capped at 1),
    the observed arrangement included, as :func:`scipy.stats.permutation_test`.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    xd = np.ones_like(x) if a_den is None else np.asarray(a_den, dtype=float)
    yd = np.ones_like(y) if b_den is None else np.asarray(b_den, dtype=float)
    differ = (x != y) | (xd != yd)
    k = int(differ.sum())
    if k == 0:
        return Permutation(1.0, True, 1)

    def ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
        return np.divide(top, bottom, out=np.zeros_like(top, dtype=float), where=bottom != 0)

    dx, dxd = (y - x)[differ], (yd - xd)[differ]
    observed = float(ratio(np.array([y.sum()]), np.array([yd.sum()]))[0] - ratio(np.array([x.sum()]), np.array([xd.sum()]))[0])
    tolerance = 1e-12 * max(1.0, abs(observed))
    blocks, exact = _swaps(k, resamples, seed)
    below = above = total = 0
    for swap in blocks:  # a swapped pair moves its difference from B to A
        null = ratio(y.sum() - swap @ dx, yd.sum() - swap @ dxd) - ratio(x.sum() + swap @ dx, xd.sum() + swap @ dxd)
        below += int(np.count_nonzero(null <= observed + tolerance))
        above += int(np.count_nonzero(null >= observed - tolerance))
        total += len(null)
    extra = 0 if exact else 1  # a Monte Carlo p-value counts the observed arrangement once more
    p = min(1.0, 2 * min(below + extra, above + extra) / (total + extra))
    return Permutation(p, exact, total)


@dataclass(frozen=True)
class Comparison:
    """Run B minus run A on their shared samples: one test and its p-value (unadjusted)."""

    a: float
    b: float
    difference: float
    ci: tuple[float, float] | None
    p_value: float
    test: str  # "mcnemar_exact" or "paired_permutation"
    ci_method: str = "none"  # "tango_score" (0/1 metrics), "bca_bootstrap", "percentile_bootstrap", "none"
    p_method: str = "exact"  # for the permutation test: "exact: all N arrangements" or "Monte Carlo: N draws"
    identical: bool = False  # every shared sample has the same value in both runs: there is nothing to test

    @property
    def within_noise(self) -> bool:
        """No evidence of a difference at this p-value alone (p >= 0.05); a report's verdict uses the adjusted one."""
        return self.p_value >= ALPHA

    @property
    def verdict(self) -> str:
        """The verdict of this comparison tested alone (see :func:`verdict`)."""
        return verdict(self.difference, self.p_value, self.identical)

    @property
    def interval_disagrees(self) -> bool:
        """The interval says otherwise than the unadjusted test (excludes 0 within noise, or the reverse)."""
        if self.ci is None:
            return False
        excludes = self.ci[0] > 0 or self.ci[1] < 0
        return excludes == self.within_noise


def verdict(difference: float, p_value: float, identical: bool = False) -> str:
    """``no difference`` (no shared sample differs), ``B higher``/``A higher`` (p < 0.05), else ``within noise``.

    Samples that differ but cancel out (4 only A passes, 4 only B passes) are
    ``within noise``, not ``no difference``: the runs do differ, on 8 samples.
    """
    if identical:
        return "no difference"
    if p_value >= ALPHA:
        return "within noise"
    return "B higher" if difference > 0 else "A higher"


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the given order (S. Holm, Scand. J. Statist. 6, 1979, 65-70).

    Rejecting where the adjusted p < alpha keeps the chance of any false
    rejection among the m tests at most alpha, whatever their dependence.
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def compare_paired(
    a: Values,
    b: Values,
    a_den: Values | None = None,
    b_den: Values | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Difference, interval and p-value of two runs' per-sample values (see the module docstring).

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
    binary = a_den is None and b_den is None and set(np.unique(np.concatenate([x, y]))) <= {0.0, 1.0}
    identical = bool(np.array_equal(x, y) and np.array_equal(xd, yd))
    if binary:
        only_a, only_b = _discordant(x, y)
        ci = paired_difference_interval(only_a, only_b, n) if n >= 1 else None
        p = mcnemar_exact(x, y)
        return Comparison(value_a, value_b, value_b - value_a, ci, p, "mcnemar_exact", "tango_score" if ci else "none", identical=identical)

    def difference(weights: np.ndarray) -> np.ndarray:
        return ratio_b(weights) - ratio_a(weights)

    found = _bootstrap(difference, n, resamples, seed) if n >= 2 else None
    test = paired_permutation(x, y, a_den, b_den, resamples, seed)
    ci, ci_method = (found[0], found[2]) if found is not None else (None, "none")
    return Comparison(value_a, value_b, value_b - value_a, ci, test.p_value, "paired_permutation", ci_method, test.method, identical)


def compare_paired_clusters(
    a: Values,
    b: Values,
    a_den: Values | None,
    b_den: Values | None,
    clusters: Sequence[str | None],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """:func:`compare_paired` for samples in clusters that are not independent (one key per sample; None: its own).

    Each cluster carries the sums of its samples' values and denominators (a
    mean's denominator is the cluster's size), so B - A is unchanged. The test
    swaps A and B in a whole cluster at once (:func:`paired_permutation` over
    the clusters' sums: valid when the clusters are independent, whatever the
    correlation inside one); the interval is the paired bootstrap of the
    difference resampling clusters (BCa, jackknife leaving one cluster out).
    When no cluster differs in sum (every resample gives 0), a 0/1 metric gets
    Tango's interval for no discordant pair among k clusters: the width that
    k independent units allow (as :func:`compare_paired` has width without a
    discordant sample).
    Clusters of one sample each give :func:`compare_paired` itself.
    """
    if len(clusters) != len(a) or len(a) != len(b):
        raise ValueError("one cluster per pair of values; align them by sample id first")
    k = _cluster_rows(clusters)[1]
    if k == len(a):
        return compare_paired(a, b, a_den, b_den, resamples, seed)
    ones = np.ones(len(a))
    xd = ones if a_den is None else np.asarray(a_den, dtype=float)
    yd = ones if b_den is None else np.asarray(b_den, dtype=float)
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    xc, xdc = _cluster_sums(x, xd, clusters)
    yc, ydc = _cluster_sums(y, yd, clusters)
    ratio_a, ratio_b = _weighted_ratio(xc, xdc), _weighted_ratio(yc, ydc)
    value_a, value_b = float(ratio_a(np.ones((1, k)))[0]), float(ratio_b(np.ones((1, k)))[0])
    identical = bool(np.array_equal(x, y) and np.array_equal(xd, yd))

    def difference(weights: np.ndarray) -> np.ndarray:
        return ratio_b(weights) - ratio_a(weights)

    found = _bootstrap(difference, k, resamples, seed)
    test = paired_permutation(xc, yc, xdc, ydc, resamples, seed)
    ci, ci_method = (found[0], f"cluster_{found[2]}") if found is not None else (None, "none")
    binary = a_den is None and b_den is None and set(np.unique(np.concatenate([x, y]))) <= {0.0, 1.0}
    if found is None and binary and np.array_equal(xc, yc):  # no cluster differs: the width k clusters allow
        ci, ci_method = paired_difference_interval(0, 0, k), "cluster_tango_score"
    return Comparison(value_a, value_b, value_b - value_a, ci, test.p_value, "cluster_permutation", ci_method, test.method, identical)


def seed_spread(values: Values) -> tuple[float, float | None]:
    """Mean and standard deviation (ddof=1) of one metric across runs that differ only in seed."""
    array = np.asarray(values, dtype=float)
    return float(array.mean()), (float(array.std(ddof=1)) if len(array) > 1 else None)
