"""bench/learning_table.py: issue 16's learning table built from benchmark results, seeds pooled per row."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.consoleagent.bench.scripts import ROOT, load_bench_script

BENCH = ROOT / "bench" / "learning_table.py"
SESSION56 = ROOT / "bench" / "results" / "2026-12-07-session56"
SESSION57 = ROOT / "bench" / "results" / "2026-12-07-session57"


def test_the_table_of_committed_results_gives_their_figures() -> None:
    seeds = ",".join(str(SESSION56 / f"test-select-seed{seed}") for seed in range(3))
    run = subprocess.run([sys.executable, str(BENCH), f"SFT={seeds}", f"GRPO={SESSION57 / 'test-grpo-seed13'}"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    header, _, sft, grpo = run.stdout.splitlines()
    assert header.startswith("| policy | results | pass@1 ± std | pass@k | ecs (28) | vpc (15) | hard (33) | standard (10) |")
    # three seeds at 44.2, 44.2 and 34.9%: their mean and the spread between them, not a run's spread
    assert sft.startswith("| SFT | 3 | 41.1 ± 5.4% | 1: 41.1% | 50.0% | 24.4% |"), sft
    assert grpo.startswith("| GRPO | 1 | 58.1 ± 0.0% | 1: 58.1% | 67.9% | 40.0% | 45.5% | 100.0% |"), grpo


def test_results_of_other_task_sets_make_no_table(tmp_path) -> None:
    script = load_bench_script("learning_table")
    grpo = json.loads((SESSION57 / "test-grpo-seed13" / "results.json").read_text())
    fewer = json.loads(json.dumps(grpo))
    fewer["summary"]["tasks"] = 12
    with pytest.raises(ValueError, match=r"different numbers of tasks \(\[12, 43\]\)"):
        script.table([("a", [grpo]), ("b", [fewer])])
    with pytest.raises(Exception, match="'no-equals': expected LABEL=RESULTS"):
        script._row_spec("no-equals")
    label, paths = script._row_spec("ranker (model=base)=runs/a,runs/b")  # a label may say how the policy ran
    assert label == "ranker (model=base)" and [str(path) for path in paths] == ["runs/a", "runs/b"]
