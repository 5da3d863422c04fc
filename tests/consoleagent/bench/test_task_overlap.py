"""bench/task_overlap.py: how much heads' successes overlap, from committed benchmark results."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.consoleagent.bench.scripts import ROOT, load_bench_script

RESULTS = ROOT / "bench" / "results"
SFT = [RESULTS / "2026-12-07-session56" / f"test-select-seed{seed}" for seed in range(3)]
ENSEMBLE = RESULTS / "2026-12-07-session59" / "test-ens-sft-select"


def test_the_committed_seeds_overlap_as_recorded() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "task_overlap.py"), *map(str, SFT), "--against", str(ENSEMBLE)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    first, second = run.stdout.splitlines()
    assert first == "passed (of 43): 19, 19, 15; union 20, intersection 15, majority 18"
    assert second.startswith("--against passes 19; outside the majority: ecs-instance-batch-operations-02, "
                             "ecs-instance-reset-password-02; the majority's tasks it fails: vpc-create-vpc-with-vswitch-01")


def test_counts_follow_the_definitions_and_other_task_sets_are_refused() -> None:
    script = load_bench_script("task_overlap")

    def result(passed: dict[str, float | None]) -> dict:
        return {"tasks": [{"id": task, "pass1": rate} for task, rate in passed.items()]}

    a = result({"t1": 1.0, "t2": 1.0, "t3": 0.0, "t4": None})  # t4: every episode lost to the environment
    b = result({"t1": 1.0, "t2": 0.0, "t3": 0.0, "t4": 1.0})
    c = result({"t1": 0.67, "t2": 0.33, "t3": 1.0, "t4": 1.0})  # 2 of 3 runs passed t1: counted; 1 of 3: not
    found = script.overlap([a, b, c], against=result({"t1": 0.0, "t2": 1.0, "t3": 1.0, "t4": 1.0}))
    assert {k: found[k] for k in ("tasks", "each", "union", "intersection", "majority")} == \
        {"tasks": 4, "each": [2, 2, 3], "union": 4, "intersection": 1, "majority": 2}
    assert found["outside_majority"] == ["t2", "t3"] and found["majority_failed"] == ["t1"]
    other = json.loads(json.dumps(a))
    other["tasks"].pop()
    with pytest.raises(ValueError, match=r"different tasks \(\[3, 4\] tasks\)"):
        script.overlap([a, other])
