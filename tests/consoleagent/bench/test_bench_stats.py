"""The benchmark's statistics: the unbiased pass@k against brute force, and the paired bootstrap (over tasks, and
over several results of one recipe)."""

from __future__ import annotations

import itertools
import random

import pytest

from consoleagent.bench.stats import mean_pass_at_k, pass_at_k, paired_bootstrap, paired_bootstrap_over_results, quantile, std


def brute_pass_at_k(outcomes: list[bool], k: int) -> float:
    """The share of all k-subsets of the attempts that hold at least one pass."""
    subsets = list(itertools.combinations(range(len(outcomes)), k))
    return sum(any(outcomes[i] for i in subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_equals_brute_force(n: int) -> None:
    for c in range(n + 1):
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(outcomes, k)), (n, c, k)


def test_pass_at_1_is_the_pass_rate_and_bad_arguments_are_refused() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(3, 0, 3) == 0.0 and pass_at_k(3, 1, 3) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)
    # tasks with fewer attempts than k are left out of the mean
    assert mean_pass_at_k([(3, 1), (1, 1)], 2) == pytest.approx(pass_at_k(3, 1, 2))
    assert mean_pass_at_k([], 1) is None


def test_std_is_the_sample_standard_deviation() -> None:
    assert std([1.0, 0.0]) == pytest.approx(0.7071067811865476)
    assert std([0.5]) == 0.0 and std([]) is None


def test_quantile_interpolates_like_numpy() -> None:
    import numpy as np

    values = sorted(random.Random(1).random() for _ in range(37))
    for q in (0.0, 0.025, 0.5, 0.975, 1.0):
        assert quantile(values, q) == pytest.approx(float(np.quantile(values, q)))


def test_bootstrap_interval_contains_the_true_difference() -> None:
    """Tasks whose success chance rises by 0.2 from A to B: the 95% interval of the paired difference,
    computed from 3 runs per task, holds 0.2 in (about) 95% of simulated suites."""
    rng = random.Random(7)
    covered = 0
    trials = 60
    for trial in range(trials):
        a, b = {}, {}
        for task in range(80):
            p = rng.uniform(0.1, 0.7)
            a[f"t{task}"] = sum(rng.random() < p for _ in range(3)) / 3
            b[f"t{task}"] = sum(rng.random() < p + 0.2 for _ in range(3)) / 3
        interval = paired_bootstrap(a, b, resamples=2000, seed=trial)
        assert interval is not None and interval.low <= interval.estimate <= interval.high
        covered += interval.low <= 0.2 <= interval.high
    assert covered >= 0.85 * trials


def test_bootstrap_is_deterministic_for_a_seed_and_pairs_by_task() -> None:
    rng = random.Random(3)
    a = {f"t{i}": rng.random() for i in range(30)}
    b = {f"t{i}": min(1.0, v + rng.uniform(-0.1, 0.3)) for i, v in enumerate(a.values())}
    first = paired_bootstrap(a, b, seed=11)
    assert first == paired_bootstrap(a, b, seed=11)
    assert paired_bootstrap(a, b, seed=12) != first
    assert first.estimate == pytest.approx(sum(b[t] - a[t] for t in a) / len(a))
    # only shared tasks count; none shared: no interval
    assert paired_bootstrap({**a, "extra": 0.0}, b, seed=11) == first
    assert paired_bootstrap({"x": 1.0}, {"y": 0.0}) is None
    # a constant difference has a zero-width interval
    same = paired_bootstrap(a, {t: v + 0.1 for t, v in a.items()}, resamples=500)
    assert same.low == pytest.approx(0.1) and same.high == pytest.approx(0.1) and same.excludes_zero


def test_several_results_of_one_recipe_are_resampled_as_well_as_the_tasks() -> None:
    rng = random.Random(5)
    a = {f"t{i}": float(rng.random() < 0.3) for i in range(40)}
    gains = {t: 1.0 for t in list(a)[:8]}  # eight tasks A fails or passes that B always passes
    helped = {t: max(v, gains.get(t, 0.0)) for t, v in a.items()}
    # copies of one result: the same interval as the paired bootstrap of that result alone
    assert paired_bootstrap_over_results(a, [helped, helped, helped], seed=4) == paired_bootstrap(a, helped, seed=4)
    # one seed gains, the other does not: the estimate is their mean, and the interval reaches down to the
    # seed that did not gain (pooling the two as runs of one model would exclude 0)
    mixed = paired_bootstrap_over_results(a, [helped, a], seed=4)
    pooled_as_runs = paired_bootstrap(a, {t: (helped[t] + a[t]) / 2 for t in a}, seed=4)
    assert mixed.estimate == pytest.approx(pooled_as_runs.estimate) and mixed.estimate > 0
    assert pooled_as_runs.excludes_zero and not mixed.excludes_zero and mixed.low == pytest.approx(0.0)
    assert mixed.high > pooled_as_runs.high
    # only tasks every result holds count
    assert paired_bootstrap_over_results(a, [helped, {"t0": 1.0}], seed=4).n == 1
    assert paired_bootstrap_over_results(a, [helped, {"zz": 1.0}]) is None
