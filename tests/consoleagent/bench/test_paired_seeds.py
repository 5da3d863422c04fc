"""bench/paired_seeds.py: a recipe's mean gain when every seed has its own baseline (session 55)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.consoleagent.bench.scripts import ROOT, load_bench_script, write_results

BENCH = ROOT / "bench" / "paired_seeds.py"
SESSION54 = ROOT / "bench" / "results" / "2026-11-30-session54"
SESSION55 = ROOT / "bench" / "results" / "2026-11-30-session55"


def test_each_candidate_is_measured_against_its_own_baseline_on_the_tasks_every_pair_scored(tmp_path: Path) -> None:
    bench = load_bench_script("paired_seeds")
    # seed 0 starts weak and gains task b; seed 1 starts strong and keeps it. Task c is scored by seed 0 only.
    pairs = [(write_results(tmp_path / "sft0", {"a": 1.0, "b": 0.0, "c": 0.0}), write_results(tmp_path / "rl0", {"a": 1.0, "b": 1.0, "c": 1.0})),
             (write_results(tmp_path / "sft1", {"a": 1.0, "b": 1.0}), write_results(tmp_path / "rl1", {"a": 1.0, "b": 1.0}))]
    interval = bench.paired_gain(pairs, resamples=2000)
    assert interval.n == 2 and interval.estimate == pytest.approx(0.25)  # (0 + 1 + 0 + 0) / 4, c left out
    assert interval.low == pytest.approx(0.0) and interval.high == pytest.approx(1.0)
    # against one shared baseline (seed 0's SFT), seed 1 would count a gain it did not make
    shared = bench.paired_gain([(pairs[0][0], pairs[0][1]), (pairs[0][0], pairs[1][1])], resamples=2000)
    assert shared.estimate == pytest.approx(0.5)


def test_a_malformed_pair_is_refused_naming_it() -> None:
    bench = load_bench_script("paired_seeds")
    with pytest.raises(Exception, match="'only-one-path': expected BASELINE_RESULTS:CANDIDATE_RESULTS"):
        bench._pair("only-one-path")


def test_the_committed_session55_grpo_figure_is_what_its_results_give() -> None:
    run = subprocess.run([sys.executable, str(BENCH), f"{SESSION54}/test-sft-e12-seed1:{SESSION54}/test-grpo-seed11-step24",
                          f"{SESSION55}/test-sft-e12-seed2:{SESSION55}/test-grpo-seed12"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    assert run.stdout.strip() == "mean gain +10.5 pt, 95% CI [+2.3, +18.6] over 43 tasks and 2 seeds"
