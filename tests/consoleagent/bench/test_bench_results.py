"""Benchmark results from synthetic ledgers: pass@1 over runs, pass@k, environment errors apart,
groups by product and difficulty, costs from tokens (API models) or policy seconds (local ones)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from consoleagent.bench.pricing import PriceTable, PriceTableError
from consoleagent.bench.report import cost_label
from consoleagent.bench.results import aggregate, load_results, ResultsError
from consoleagent.rollout.ledger import RunLedger
from consoleagent.tasks.spec import TaskSpec

RULE = {"expect": [{"event": "CreateVpc", "params": {"VpcName": "web"}}]}


def task(task_id: str, product: str = "vpc", difficulty: str = "standard") -> TaskSpec:
    return TaskSpec.model_validate({
        "id": task_id, "product": product, "difficulty": difficulty, "split": "test", "document": "stratus/vpc/create-vpc.md",
        "release": "2026.03", "goal": "Create a VPC named web.", "reward": RULE,
        "hard_kinds": ["long"] if difficulty == "hard" else [], "oracle": [{"task_complete": "done"}]})


def step(action: str = "click(3)", name: str | None = "click", result: str = "ok", prompt: int = 0, completion: int = 0,
         policy_s: float = 0.0, policy_cpu_s: float | None = None) -> dict[str, Any]:
    return {"action": action, "name": name, "result": result, "prompt_tokens": prompt, "completion_tokens": completion,
            "policy_s": policy_s, "policy_cpu_s": policy_cpu_s}


def record(key: str, *, reward: float | None = 1.0, status: str = "completed", trace: list[dict[str, Any]] | None = None,
           checks: list[dict[str, Any]] | None = None, lost: int = 0, failure_phase: str | None = None,
           cause: str | None = None, answer: str | None = None, failed_calls: list[dict[str, Any]] | None = None,
           policy_error: bool = False) -> dict[str, Any]:
    """A ledger record as the bench worker writes it (a RolloutResult plus the bench's fields)."""
    trace = trace if trace is not None else [step(), step('task_complete("ok")', "task_complete")]
    verdict = None
    if status != "env_error" or policy_error:
        checks = checks if checks is not None else [{"kind": "outcome", "ok": True, "detail": "ended completed"},
                                                    {"kind": "expect", "ok": reward == 1.0, "detail": "CreateVpc ..."}]
        verdict = {"reward": reward, "passed": reward == 1.0, "counted": 1, "ignored": {}, "checks": checks}
    return {
        "key": key, "status": status, "reward": reward if verdict else None, "verdict": verdict,
        "failure_phase": failure_phase, "cause": cause,
        "phases": [{"phase": "lease", "seconds": 0.1, "ok": True, "error": None},
                   {"phase": "episode", "seconds": 4.0, "ok": True, "error": None}],
        "episode": {"status": status, "steps": len(trace), "duration_s": 4.0, "answer": answer},
        "attempts": lost + 1, "env_error_attempts": [{"phase": "prepare", "cause": "boom"}] * lost,
        "policy_error": policy_error, "failed_calls": failed_calls or [], "trace": trace, "worker": "worker-0",
        "trajectory": None,
    }


META = {"policy": {"name": "llm", "options": {"model": "gpt-4o"}}, "runs": 3}


def synthetic() -> tuple[list[TaskSpec], list[dict[str, Any]]]:
    tasks = [task("vpc-a"), task("vpc-b", difficulty="hard"), task("ecs-c", product="ecs")]
    tokens = [step(prompt=1000, completion=100, policy_s=0.5), step('task_complete("x")', "task_complete", prompt=1000,
                                                                    completion=100, policy_s=0.5)]
    records = [
        # vpc-a passes every run
        *(record(f"vpc-a#{r}", trace=tokens) for r in range(3)),
        # vpc-b passes run 0 only; its run 2 was lost to the environment after retries
        record("vpc-b#0", trace=tokens), record("vpc-b#1", reward=0.0, trace=tokens),
        record("vpc-b#2", status="env_error", failure_phase="prepare", cause="provisioning failed", lost=2, trace=[]),
        # ecs-c fails run 0, passes 1 and 2 (run 1 after one lost attempt)
        record("ecs-c#0", reward=0.0, trace=tokens), record("ecs-c#1", lost=1, trace=tokens), record("ecs-c#2", trace=tokens),
        # not selected: ignored
        record("other#0"), record("vpc-a#3"),
    ]
    return tasks, records


def test_aggregate_pass_rates_over_runs_and_pass_at_k() -> None:
    tasks, records = synthetic()
    results = aggregate(records, tasks, 3, meta=META, model="gpt-4o")
    summary = results["summary"]
    assert summary["episodes"] == 9 and summary["scored"] == 8 and summary["passed"] == 6
    # run 0: a pass, b pass, c fail = 2/3; run 1: a pass, b fail, c pass = 2/3; run 2: a pass, c pass (b lost) = 2/2
    assert summary["pass1"]["per_run"] == pytest.approx([2 / 3, 2 / 3, 1.0])
    assert summary["pass1"]["mean"] == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert summary["pass1"]["std"] == pytest.approx(0.19245008972987526)
    # pass@k per task: a (3,3), b (2,1), c (3,2); pass@3 only over tasks with 3 scored runs
    assert summary["pass_at_k"]["1"] == pytest.approx((1 + 0.5 + 2 / 3) / 3)
    assert summary["pass_at_k"]["2"] == pytest.approx((1 + 1 + 1) / 3)
    assert summary["pass_at_k"]["3"] == pytest.approx(1.0)
    assert summary["env_errors"] == {"episodes": 1, "retried_attempts": 3, "by_phase": {"prepare": 4}}
    assert results["complete"] is True


def test_environment_errors_are_never_failures_and_groups_split() -> None:
    tasks, records = synthetic()
    results = aggregate(records, tasks, 3, meta=META)
    lost = next(e for e in results["episodes"] if e["key"] == "vpc-b#2")
    assert lost["env_error"] and not lost["passed"] and lost["failure"] is None
    assert results["by_product"]["ecs"]["pass1"]["per_run"] == [0.0, 1.0, 1.0]
    assert results["by_product"]["vpc"]["scored"] == 5
    assert results["by_difficulty"]["hard"]["passed"] == 1
    assert sum(results["summary"]["failures"].values()) == 2  # vpc-b#1 and ecs-c#0
    rows = {row["id"]: row for row in results["tasks"]}
    assert rows["vpc-b"]["pass1"] == 0.5 and rows["vpc-b"]["env_errors"] == 1
    assert results["by_product"]["ecs"]["env_errors"]["retried_attempts"] == 1


def test_an_oracle_that_cannot_play_is_a_failure_not_an_environment_error() -> None:
    tasks = [task("vpc-a")]
    records = [record("vpc-a#0", status="env_error", reward=None, policy_error=True, checks=[],
                      cause="policy failed: oracle step 2 (click): no link named 'vpc-1' on http://x/vpc; the page offers: ...")]
    # the oracle now ends such an episode itself, with task_complete("oracle failed: ...")
    records.append(record("vpc-a#1", reward=0.0, answer="oracle failed: oracle step 2 (click): no link named 'vpc-1' on "
                                                        "http://x/vpc after 20 s; the page offers: ..."))
    results = aggregate(records, tasks, 2, meta=META)
    for episode in results["episodes"]:
        assert not episode["env_error"] and not episode["passed"]
        assert episode["failure"]["class"] == "ui_interaction"
    assert results["summary"]["scored"] == 2 and results["summary"]["pass1"]["mean"] == 0.0


def test_cost_from_tokens_for_priced_models_and_policy_seconds_otherwise(tmp_path: Path) -> None:
    tasks, records = synthetic()
    priced = aggregate(records, tasks, 3, meta=META, model="gpt-4o")["summary"]["cost"]
    # 2 steps x (1000 in, 100 out) at $2.50 / $10 per million: 2 * (0.0025 + 0.001) = 0.007 per task; the lost
    # episode has no steps, so it costs 0 and the mean is over all 9 episodes
    assert priced["usd_per_task"] == pytest.approx(0.007 * 8 / 9, abs=1e-6)
    assert priced["prompt_tokens_per_task"] == pytest.approx(2000 * 8 / 9, abs=1e-3)
    local = aggregate(records, tasks, 3, meta=META, model="my-local-model")
    # these steps did not measure CPU seconds, so the local model has no cost in US$
    assert local["summary"]["cost"]["usd_per_task"] is None and local["price"] == {"cpu_core_hour": 0.0425}
    assert local["summary"]["cost"]["policy_seconds_per_task"] == pytest.approx(8 / 9, abs=1e-4)
    # a price table file overrides and extends the built-in one; dated model names find their entry
    table = tmp_path / "prices.yaml"
    table.write_text("my-local-model: {input_per_mtok: 1, output_per_mtok: 2}\ngpt-4o: {input_per_mtok: 5, output_per_mtok: 20}\n")
    prices = PriceTable.load(table)
    assert prices.price("my-local-model").cost(1_000_000, 1_000_000) == 3.0
    assert prices.price("gpt-4o-2024-08-06").input_per_mtok == 5
    assert prices.price("openai/gpt-4o-mini").input_per_mtok == 0.15
    bad = tmp_path / "bad.json"
    bad.write_text('{"m": {"input_per_mtok": 1}}')
    with pytest.raises(PriceTableError, match="output_per_mtok"):
        PriceTable.load(bad)


def test_a_local_policy_is_priced_by_its_cpu_seconds_when_every_step_measured_them(tmp_path: Path) -> None:
    tasks = [task("vpc-a")]
    measured = [step(policy_s=0.9, policy_cpu_s=0.6), step('task_complete("x")', "task_complete", policy_s=0.3,
                                                           policy_cpu_s=0.3)]
    results = aggregate([record(f"vpc-a#{r}", trace=measured) for r in range(3)], tasks, 3, meta=META, model=None)
    cost = results["summary"]["cost"]
    # 0.9 CPU-s per episode at the built-in $0.0425 per core-hour
    assert cost["policy_cpu_seconds_per_task"] == pytest.approx(0.9)
    assert cost["usd_per_task"] == pytest.approx(0.9 * 0.0425 / 3600, rel=1e-6)
    assert results["price"] == {"cpu_core_hour": 0.0425}
    assert cost_label(results["summary"]) == "$1.06e-05 (0.90 CPU-s)"
    # one step without the measurement (a trajectory recorded before it existed): no price, not a guess
    mixed = [step(policy_cpu_s=0.6), step('task_complete("x")', "task_complete")]
    unmeasured = aggregate([record("vpc-a#0", trace=mixed)], tasks, 1, meta=META, model=None)["summary"]["cost"]
    assert unmeasured["usd_per_task"] is None and unmeasured["policy_cpu_seconds_per_task"] is None
    table = tmp_path / "prices.yaml"
    table.write_text("cpu_core_hour: 0.36\n")
    priced = aggregate([record("vpc-a#0", trace=measured)], tasks, 1, meta=META, model=None,
                       prices=PriceTable.load(table))["summary"]["cost"]
    assert priced["usd_per_task"] == pytest.approx(0.9 * 0.36 / 3600, rel=1e-6)
    table.write_text("cpu_core_hour: cheap\n")
    with pytest.raises(PriceTableError, match="cpu_core_hour: needs a number"):
        PriceTable.load(table)


def test_results_from_a_real_ledger_file_and_loading(tmp_path: Path) -> None:
    tasks, records = synthetic()
    ledger = RunLedger(tmp_path / "ledger.jsonl")
    for item in records:
        ledger.record(item["key"], {k: v for k, v in item.items() if k != "key"})
    results = aggregate(RunLedger(tmp_path / "ledger.jsonl").results(), tasks, 3, meta=META)
    assert results["summary"]["passed"] == 6
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert load_results(tmp_path)["summary"] == results["summary"]
    with pytest.raises(ResultsError, match="no such results file"):
        load_results(tmp_path / "missing")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(ResultsError, match="not a consoleagent bench results"):
        load_results(tmp_path / "other.json")


def test_incomplete_runs_are_flagged() -> None:
    tasks, records = synthetic()
    results = aggregate(records[:4], tasks, 3, meta=META)
    assert results["complete"] is False and results["summary"]["episodes"] == 4
