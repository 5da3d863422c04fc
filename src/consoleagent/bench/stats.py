"""The statistics of a benchmark: pass@1 over runs, the unbiased pass@k, and paired bootstrap intervals.

Pure functions over plain numbers, so they are tested against brute force.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def std(values: Sequence[float]) -> float | None:
    """The sample standard deviation (n - 1); 0 for one value, None for none."""
    if not values:
        return None
    if len(values) == 1:
        return 0.0
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from ``n`` attempts of which ``c`` passed (Chen et al., 2021):
    1 - C(n - c, k) / C(n, k), the chance that ``k`` attempts drawn without replacement hold a pass."""
    if not 0 <= c <= n:
        raise ValueError(f"pass_at_k: c={c} must lie in [0, n={n}]")
    if k < 1 or k > n:
        raise ValueError(f"pass_at_k: k={k} must lie in [1, n={n}]")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """pass@k averaged over tasks, each given as (n, c); tasks with fewer than ``k`` attempts are left out."""
    values = [pass_at_k(n, c, k) for n, c in counts if n >= k]
    return mean(values)


@dataclass
class Interval:
    """A difference and its bootstrap confidence interval."""

    estimate: float
    low: float
    high: float
    n: int  # paired units (tasks)
    level: float = 0.95

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, float | int | bool]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "n": self.n, "level": self.level,
                "excludes_zero": self.excludes_zero}


def paired_bootstrap(a: Mapping[str, float], b: Mapping[str, float], *, resamples: int = 10_000, seed: int = 0,
                     level: float = 0.95) -> Interval | None:
    """The difference ``mean(b) - mean(a)`` over the units both hold (tasks), with a percentile bootstrap
    interval: units are resampled with replacement, each keeping its pair (a[u], b[u]). Deterministic for
    a seed; None when no unit is shared."""
    return paired_bootstrap_over_results(a, [b], resamples=resamples, seed=seed, level=level)


def paired_bootstrap_over_results(a: Mapping[str, float], bs: Sequence[Mapping[str, float]], *, resamples: int = 10_000,
                                  seed: int = 0, level: float = 0.95) -> Interval | None:
    """B as several independent results of one recipe (models trained with different seeds): the
    difference of their mean over the units all hold, ``mean_s mean_u (b_s[u] - a[u])``. Each resample
    draws the units, then the results, with replacement, so the interval holds how much the results
    disagree as well as which tasks the suite holds; pooling them as runs of one model would hide the
    first. With one result this is the paired bootstrap over units alone (the same draws, the same
    interval). None when no unit is shared."""
    import numpy as np

    units = sorted(set(a).intersection(*bs))
    if not units or not bs:
        return None
    diffs = np.array([[b[u] - a[u] for u in units] for b in bs], dtype=float)  # results × units
    rng = np.random.default_rng(seed)
    unit_picks = rng.integers(0, diffs.shape[1], size=(resamples, diffs.shape[1]))
    result_picks = rng.integers(0, diffs.shape[0], size=(resamples, diffs.shape[0]))
    per_unit = diffs[result_picks].mean(axis=1)  # resamples × units: each unit's mean over the drawn results
    samples = sorted(np.take_along_axis(per_unit, unit_picks, axis=1).mean(axis=1).tolist())
    tail = (1.0 - level) / 2
    return Interval(float(diffs.mean()), quantile(samples, tail), quantile(samples, 1.0 - tail), len(units), level)


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    if not sorted_values:
        raise ValueError("quantile of nothing")
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)
