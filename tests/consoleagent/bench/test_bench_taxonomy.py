"""The failure taxonomy on synthetic trajectories and verdicts: provisioning gap, UI interaction
failure, agent decision error, in that order of precedence."""

from __future__ import annotations

from typing import Any

from consoleagent.bench.taxonomy import classify
from consoleagent.bench.trace import compact_step
from tests.consoleagent.bench.test_bench_results import step

OUTCOME_OK = {"kind": "outcome", "ok": True, "detail": "the agent ended with completed"}
EXPECT_MISSED = {"kind": "expect", "ok": False, "label": "CreateVSwitch", "detail": "no CreateVSwitch record with VpcId = 'vpc-1'"}
EXPECT_NEAR = {"kind": "expect", "ok": False, "label": "CreateVpc",
               "detail": "no CreateVpc record with VpcName = 'web'; near misses: CreateVpc 1A2B at t: VpcName is 'doc-vpc', expected 'web'"}


def episode(status: str = "completed", checks: list[dict[str, Any]] | None = None, trace: list[dict[str, Any]] | None = None,
            **fields: Any) -> dict[str, Any]:
    checks = checks if checks is not None else [OUTCOME_OK, EXPECT_MISSED]
    return {"status": status, "passed": False, "env_error": False, "expected": "complete",
            "verdict": {"reward": 0.0, "checks": checks}, "trace": trace or [step(), step('task_complete("done")', "task_complete")],
            **fields}


def kind(item: dict[str, Any]) -> str:
    result = classify(item)
    assert result is not None and result["reason"]
    return result["class"]


def test_passes_and_environment_errors_are_not_classified() -> None:
    assert classify({**episode(), "passed": True}) is None
    assert classify({**episode(status="env_error"), "env_error": True}) is None


def test_provisioning_gap() -> None:
    asked = episode(trace=[step('request_resource("a VPC with a vSwitch")', "request_resource"), step()])
    assert kind(asked) == "provisioning_gap"
    assert "request_resource" in classify(asked)["reason"]
    missing = episode(failed_calls=[{"event": "CreateVSwitch", "error": "NotFound"}])
    assert kind(missing) == "provisioning_gap" and "CreateVSwitch failed with NotFound" in classify(missing)["reason"]
    assert kind(episode(failed_calls=[{"event": "AttachDisk", "error": "InvalidDiskId.NotFound"}])) == "provisioning_gap"
    # an unknown action is the agent's mistake, not a missing resource
    assert kind(episode(failed_calls=[{"event": "Frobnicate", "error": "InvalidAction.NotFound"}])) == "agent_decision"
    gave_up = episode(status="unachievable", answer="There is no VPC named prod-vpc in this region.",
                      checks=[{"kind": "outcome", "ok": False, "detail": "ended unachievable"}])
    assert kind(gave_up) == "provisioning_gap"
    unplayable = episode(status="env_error", policy_error=True, checks=[],
                         cause="policy failed: oracle cannot be played: its solution refers to the output of 'net', "
                               "and nothing provisioned that resource")
    assert kind(unplayable) == "provisioning_gap"
    unjudgeable = episode(checks=[{"kind": "expect", "ok": False,
                                   "detail": "the reward rule refers to ${net.vpc_id}, which nothing provisioned"}])
    assert kind(unjudgeable) == "provisioning_gap"


def test_ui_interaction_failure() -> None:
    assert kind(episode(status="truncated", cause="step limit of 40 reached")) == "ui_interaction"
    not_found = episode(status="env_error", policy_error=True, checks=[],
                        cause="policy failed: oracle step 3 (click): no button named 'OK' on http://x/vpc/create after 20 s")
    assert kind(not_found) == "ui_interaction" and "element not found" in classify(not_found)["reason"]
    # rejected and unparseable actions, and the required call never went through
    fumbling = episode(trace=[step("click(99)", result="there is no element [99] on this page"),
                              step("clik(3)", name=None, result="unknown action 'clik'"), step(),
                              step('task_complete("done")', "task_complete")])
    result = classify(fumbling)
    assert result["class"] == "ui_interaction" and "2 of 4 actions" in result["reason"] and "unparseable" in result["reason"]
    # a place in the UI not reached is not a resource missing from the world (measured: 9 docfollower episodes)
    lost = episode(status="unachievable", answer="step 4: could not find 'Disassociate' in the console (the document "
                                                 "does not say how to reach it)")
    assert kind(lost) == "ui_interaction" and "did not reach" in classify(lost)["reason"]
    # mostly rejected, even though an expectation was nearly met
    assert kind(episode(checks=[OUTCOME_OK, EXPECT_NEAR], trace=[step(result="[4] is disabled")] * 3 + [step()])) \
        == "ui_interaction"


def test_agent_decision_error() -> None:
    wrong_params = classify(episode(checks=[OUTCOME_OK, EXPECT_NEAR]))
    assert wrong_params["class"] == "agent_decision" and wrong_params["reason"].startswith("wrong parameters")
    # one rejection along the way, but the agent got the call through with other values: its decision
    assert kind(episode(checks=[OUTCOME_OK, EXPECT_NEAR], trace=[step(result="[4] is disabled"), step(), step(), step()])) \
        == "agent_decision"
    collateral = classify(episode(checks=[OUTCOME_OK, {"kind": "expect", "ok": True, "detail": "ok"},
                                          {"kind": "collateral", "ok": False, "detail": "destructive writes: DeleteVpc"}]))
    assert collateral["reason"].startswith("collateral write")
    outcome = classify(episode(status="unachievable", answer="The console does not allow it.",
                               checks=[{"kind": "outcome", "ok": False, "detail": "ended unachievable, expects completed"}]))
    assert outcome["class"] == "agent_decision" and outcome["reason"].startswith("wrong outcome")
    missing_step = classify(episode())
    assert missing_step["reason"].startswith("missing step")


def test_compact_steps_from_trajectory_records() -> None:
    record = {"type": "step", "step": 1, "action": "click(3)", "parsed": {"name": "click", "args": {"id": 3}},
              "result": "ok", "usage": {"prompt_tokens": 900, "completion_tokens": 40},
              "timings": {"policy": 1.25, "policy_cpu": 1.1}, "observation": "long text" * 100}
    assert compact_step(record) == {"action": "click(3)", "name": "click", "result": "ok", "prompt_tokens": 900,
                                    "completion_tokens": 40, "policy_s": 1.25, "policy_cpu_s": 1.1}
    # recorded before CPU seconds were measured: unknown, never 0
    assert compact_step({**record, "timings": {"policy": 1.25}})["policy_cpu_s"] is None
    assert compact_step({**record, "parsed": None, "result": "cannot parse"})["name"] is None
