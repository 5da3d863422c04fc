"""The oracle proves tasks solvable: in CI it runs on one task of every family (and on every
hand-written task) in a real stratus and real Chromium, through the whole rollout lifecycle, and
must earn reward 1. The full check, every task three times, is the determinism benchmark
(bench/bench_suite_determinism.py). Also: a policy that claims success without acting earns 0 through
the same lifecycle, and the oracle's element finding on synthetic observations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.oracle import OracleError, OraclePolicy
from consoleagent.rewards.engine import STATUS_OF_OUTCOME
from consoleagent.suite.catalog import load_suite
from consoleagent.tasks.spec import TaskSpec


def ci_sample() -> list[TaskSpec]:
    """The first task (by id) of every family, and every task that belongs to none."""
    chosen: dict[str, TaskSpec] = {}
    for spec in load_suite():
        chosen.setdefault(spec.family or spec.id, spec)
    return sorted(chosen.values(), key=lambda s: s.id)


SAMPLE = ci_sample()


@pytest.fixture(scope="module")
def console(stratus_console: Any) -> Any:
    return stratus_console


def run(console: Any, playwright_instance: Any, tmp_path: Path, tasks: list[TaskSpec]) -> list[dict[str, Any]]:
    """The episodes' ledger records, through the harness of `consoleagent bench` and `tasks check`."""
    records: list[dict[str, Any]] = []
    config = BenchConfig(results_dir=tmp_path, policy="oracle", runs=1, console="stratus",
                         console_options={"url": console.base_url, "admin_token": console.admin_token,
                                          "delivery_delay_s": 0.0},
                         plots=False)
    run_bench(config, tasks, playwright=playwright_instance, on_record=records.append)
    return records


@pytest.mark.browser
@pytest.mark.parametrize("task", SAMPLE, ids=[t.id for t in SAMPLE])
def test_oracle_earns_reward_one(console: Any, playwright_instance: Any, tmp_path: Path, task: TaskSpec) -> None:
    [result] = run(console, playwright_instance, tmp_path, [task])
    explanation = "\n".join(f"{c['kind']} {c['ok']}: {c['detail']}" for c in (result["verdict"] or {}).get("checks", []))
    assert result["status"] == STATUS_OF_OUTCOME[task.reward.outcome], (result["cause"], explanation)
    assert result["reward"] == 1.0, explanation


@pytest.mark.browser
def test_claiming_success_without_acting_earns_nothing(console: Any, playwright_instance: Any, tmp_path: Path) -> None:
    task = load_suite("vpc-create-vpc-01")[0]
    lazy = task.model_copy(update={"oracle": [{"task_complete": "I created the VPC"}]})
    [result] = run(console, playwright_instance, tmp_path, [lazy])
    assert result["status"] == "completed" and result["reward"] == 0.0
    failed = [c for c in result["verdict"]["checks"] if not c["ok"]]
    assert [c["kind"] for c in failed] == ["expect"] and "no CreateVpc record" in failed[0]["detail"]


# --- the oracle on synthetic observations --------------------------------------------------


def observation(marks: list[Mark], text: str = "") -> Observation:
    return Observation(url="http://console.test/vpc/vpcs", title="VPCs", text=text, marks=marks)


def test_oracle_finds_elements_by_role_name_and_context() -> None:
    marks = [Mark(3, "button", "Delete", context="row: vpc-a | web"), Mark(7, "button", "Delete", context="row: vpc-b | db"),
             Mark(9, "textbox", "Name"), Mark(11, "link", "Create VPC", in_viewport=False)]
    policy = OraclePolicy([{"click": {"role": "button", "name": "Delete", "context": "${db.vpc_id}"}},
                           {"type": {"role": "textbox", "name": "Name"}, "text": "x \"quoted\""},
                           {"click": {"role": "link", "name_contains": "create"}},
                           {"wait_until": {"text": "Available", "context": "vpc-b"}},
                           {"report_discrepancy": {"step": 4, "kind": "label_changed", "expected": "A", "observed": "B"}},
                           {"task_unachievable": "gone"}],
                          outputs={"db": {"vpc_id": "vpc-b"}})
    policy.reset("goal")
    page = observation(marks, text="vpc-b | db | Available")
    actions = [policy.act(page).action for _ in range(5)]
    assert actions == ["click(7)", 'type(9, "x \\"quoted\\"")', "click(11)",
                       'report_discrepancy(4, "label_changed", "A", "B")', 'task_unachievable("gone")']
    assert policy.act(page).action.startswith("task_complete(")


def test_oracle_waits_then_fails_naming_the_step_and_what_the_page_offers() -> None:
    import time

    page = observation([Mark(1, "button", "Present")])
    for strict in (True, False):
        policy = OraclePolicy([{"click": {"role": "button", "name": "Missing"}, "timeout_s": 0.05}], strict=strict)
        policy.reset("goal")
        assert policy.act(page).action.startswith("wait(")
        time.sleep(0.06)
        if strict:
            with pytest.raises(OracleError, match=r"oracle step 1 \(click\): no button named 'Missing'.*button 'Present'"):
                policy.act(page)
        else:  # the episode ends, and the audit log decides (nothing was done: reward 0)
            decision = policy.act(page)
            assert decision.action.startswith('task_complete("oracle failed: oracle step 1 (click)')
            assert decision.meta["oracle_failed"] and policy.act(page).action.startswith("task_complete(")


def test_a_solution_naming_an_unprovisioned_resource_ends_the_episode() -> None:
    steps = [{"click": {"role": "button", "name": "Delete", "context": "${db.vpc_id}"}}]
    policy = OraclePolicy(steps, outputs={})
    policy.reset("goal")
    decision = policy.act(observation([Mark(1, "button", "Delete")]))
    assert decision.action.startswith('task_complete("oracle failed: the solution refers to ${db.vpc_id}')
    assert decision.meta["oracle_failed"]
    with pytest.raises(OracleError, match="nothing provisioned"):
        OraclePolicy(steps, outputs={}, strict=True)
