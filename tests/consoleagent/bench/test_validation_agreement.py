"""bench/validation_agreement.py: a validation split's ranking of heads against the held-out one (session 48)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("scipy")  # the rank correlation; installed with the train extra

from consoleagent.bench.results import load_results, task_pass1
from tests.consoleagent.bench.scripts import ROOT, load_bench_script, write_results

SESSION42 = ROOT / "bench" / "results" / "2026-11-28-session42"
SESSION48 = ROOT / "bench" / "results" / "2026-11-29-session48"


def test_a_split_that_orders_heads_as_held_out_does_scores_one_and_its_subset_is_scored_apart(tmp_path: Path) -> None:
    bench = load_bench_script("validation_agreement")
    # three heads: validation tasks a, b, c; the subset is {a}, on which the heads tie the other way round
    val = {"weak": {"a": 1.0, "b": 0.0, "c": 0.0}, "middle": {"a": 0.0, "b": 1.0, "c": 0.0},
           "strong": {"a": 0.0, "b": 1.0, "c": 1.0}}
    held = {"weak": {"x": 0.0, "y": 0.0}, "middle": {"x": 1.0, "y": 0.0}, "strong": {"x": 1.0, "y": 1.0}}
    pairs = [(name, write_results(tmp_path / f"val-{name}", val[name]), write_results(tmp_path / f"held-{name}", held[name]))
             for name in val]
    rows, rho = bench.agreement(pairs, subset={"a"})
    assert [r["val"] for r in rows] == pytest.approx([1 / 3, 1 / 3, 2 / 3])
    assert [r["subset"] for r in rows] == [1.0, 0.0, 0.0] and [r["held_out"] for r in rows] == [0.0, 0.5, 1.0]
    assert rho["subset"] == pytest.approx(-0.866, abs=1e-3)  # the subset orders them against held-out
    assert rho["val"] == pytest.approx(0.866, abs=1e-3)  # weak and middle tie on all three tasks
    table = bench.markdown(rows, rho, 1)
    assert "| strong | 66.7% | 0.0% | 100.0% |" in table and "the subset vs held-out, 3 heads: -0.87" in table


def test_a_malformed_pair_is_refused_naming_it() -> None:
    bench = load_bench_script("validation_agreement")
    with pytest.raises(Exception, match="'seed1=only-one-path': expected NAME=VAL_RESULTS:HELD_OUT_RESULTS"):
        bench._pair("seed1=only-one-path")


def test_the_committed_session48_table_is_what_its_results_give() -> None:
    bench = load_bench_script("validation_agreement")
    old_split = set(task_pass1(load_results(SESSION42 / "plain-val-sft")))
    rows, _ = bench.agreement([("sft", SESSION48 / "val44-sft", SESSION42 / "plain-test-sft")], old_split)
    committed = (SESSION48 / "validation-agreement.md").read_text(encoding="utf-8").splitlines()
    assert len(old_split) == 19 and rows[0]["val_tasks"] == 44
    assert committed[2] == bench.markdown(rows, {}, len(old_split)).splitlines()[2] == "| sft | 40.9% | 47.4% | 25.6% |"
