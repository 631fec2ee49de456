"""Power of the paired test ``gqlbench report`` runs on a 0/1 metric: McNemar's exact test.

The power is computed exactly, by enumeration, for the test that is run
(:func:`gqlbench.results.statistics.mcnemar_exact`, rejecting at p < alpha), not
from a normal approximation (at n = 32 the differences it gives, 0.35 and 0.25,
have 73% and 72% power at rate 0.5 where it promises 80%; 82% and 81% at 0.3). The model of two runs on ``n`` paired samples: run A passes a
sample with probability ``rate - d/2``, run B with ``rate + d/2``, and their
outcomes have the given (Pearson) correlation, the joint probability being
clipped to what the two rates allow. Then the number of discordant samples
is binomial, and so is B's share of them given their number; the power sums
the probability of every outcome whose exact p-value is below alpha.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mcnemar_power", "minimal_detectable_difference", "DIFFERENCE_STEP"]

DIFFERENCE_STEP = 0.001
"""Resolution of :func:`minimal_detectable_difference`."""


def _critical(n: int, alpha: float) -> np.ndarray:
    """For k = 0..n discordant pairs, the largest count c with exact two-sided p-value < alpha at c (and at k - c); -1: none."""
    from scipy import stats  # lazily: importing scipy.stats takes seconds

    out = np.full(n + 1, -1)
    for k in range(1, n + 1):
        j = np.arange(k // 2 + 1)
        below = 2 * stats.binom.cdf(j, k, 0.5) < alpha  # binomtest's two-sided p-value at 1/2 (symmetric)
        if below.any():
            out[k] = int(j[below].max())
    return out


def _cells(rate: float, difference: float, correlation: float) -> tuple[float, float]:
    """(P(only A passes), P(only B passes)) of the model in the module docstring."""
    p_a, p_b = rate - difference / 2, rate + difference / 2
    both = p_a * p_b + correlation * np.sqrt(p_a * (1 - p_a) * p_b * (1 - p_b))
    both = min(max(both, max(0.0, p_a + p_b - 1)), min(p_a, p_b))
    return p_a - both, p_b - both


def mcnemar_power(n: int, rate: float, difference: float, correlation: float = 0.0, alpha: float = 0.05) -> float:
    """Probability that McNemar's exact test on ``n`` paired samples gives p < ``alpha`` (model: module docstring)."""
    return _power(n, rate, difference, correlation, _critical(n, alpha))


def _power(n: int, rate: float, difference: float, correlation: float, critical: np.ndarray) -> float:
    from scipy import stats

    only_a, only_b = _cells(rate, difference, correlation)
    discordant = only_a + only_b
    if discordant <= 0:
        return 0.0
    k = np.arange(n + 1)
    share = only_b / discordant
    c = critical
    # reject when B's count is <= c or >= k - c
    reject = np.where(c >= 0, stats.binom.cdf(c, k, share) + stats.binom.sf(k - c - 1, k, share), 0.0)
    return float(np.sum(stats.binom.pmf(k, n, discordant) * reject))


def minimal_detectable_difference(
    n: int, rate: float = 0.5, correlation: float = 0.0, power: float = 0.8, alpha: float = 0.05
) -> float | None:
    """Smallest difference (on a grid of :data:`DIFFERENCE_STEP`) at which the exact test reaches ``power``.

    None when no difference the rates allow reaches it (e.g. n < 6: McNemar's
    exact test cannot reject at 0.05 with fewer than 6 discordant pairs).
    """
    if n < 1:
        raise ValueError("the number of samples must be positive")
    critical = _critical(n, alpha)
    largest = 2 * min(rate, 1 - rate)
    for step in range(1, int(round(largest / DIFFERENCE_STEP)) + 1):
        difference = step * DIFFERENCE_STEP
        if _power(n, rate, difference, correlation, critical) >= power:
            return round(difference, 6)
    return None
