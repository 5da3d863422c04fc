"""The reward rule engine on real audit records of a real stratus: console calls made over HTTP with a
signed-in session (what the browser does), SDK and provisioner calls, another account's calls.

The attempts to hack the reward are the point: claiming success without acting, acting in another
account, acting with the provisioner's or the SDK's key, wrong parameters, failed calls, extra
destructive writes, another session's work. Each must earn 0 and say why.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from consoleagent.rewards import RewardRule, evaluate
from consoleagent.rewards.engine import constraint_failure, lookup
from consoleagent.rewards.judge import RuleJudge
from consoleagent.rewards.rules import Constraint
from stratus.sdk import console_sign_in
from tests.conftest import Cloud, Tenant

CREATE_WEB_VPC = RewardRule.model_validate({"expect": [{"name": "create", "event": "CreateVpc", "service": "vpc",
                                                        "params": {"VpcName": "web-vpc", "CidrBlock": "10.0.0.0/16"}}]})


@dataclass
class ConsoleSession:
    """A signed-in console (cookie + CSRF token) over real HTTP, as the browser holds it."""

    http: TestClient
    csrf: str
    session_id: str

    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]:
        response = self.http.post(f"/api/{product}/{action}", json=params, headers={"x-csrf-token": self.csrf})
        return response.json()


def sign_in(cloud: Cloud, tenant: Tenant) -> ConsoleSession:
    http = TestClient(cloud.http.app)
    console_sign_in(http, tenant.creds["login_name"], "Passw0rd!2026")
    page = http.get("/console").text
    csrf = page.split('name="csrf-token" content="')[1].split('"')[0]
    session_id = page.split('name="console-session" content="')[1].split('"')[0]
    return ConsoleSession(http, csrf, session_id)


def records_of(tenant: Tenant) -> list[dict[str, Any]]:
    events = list(tenant.sdk.paginate("actiontrail", "LookupEvents", "Events"))
    return list(reversed(events))


def judge(rule: RewardRule, tenant: Tenant, session: ConsoleSession | None, status: str = "completed",
          **kwargs: Any) -> Any:
    return evaluate(rule, records_of(tenant), status=status, account_id=tenant.account_id,
                    session_id=session.session_id if session else None, **kwargs)


def judge_inputs(tenant: Tenant, console: ConsoleSession) -> tuple[Any, Any]:
    """What the rollout hands RuleJudge: a spec carrying the rule, an episode carrying its account and session."""
    spec = SimpleNamespace(outputs={}, task=SimpleNamespace(id="web-vpc", reward=CREATE_WEB_VPC))
    credentials = SimpleNamespace(extra={"account_id": tenant.account_id, "session_id": console.session_id})
    return spec, SimpleNamespace(status="completed", discrepancies=[], credentials=credentials)


def failed_kinds(verdict: Any) -> set[str]:
    return {c.kind for c in verdict.failures()}


# --- the control: the real thing earns 1 ----------------------------------------------------


def test_console_create_earns_reward_and_names_the_record(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    created = console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    verdict = judge(CREATE_WEB_VPC, tenant, console)
    assert verdict.reward == 1.0, verdict.explain()
    expect = next(c for c in verdict.checks if c.kind == "expect")
    record = next(r for r in records_of(tenant) if r["eventName"] == "CreateVpc")
    assert expect.records == [record["eventId"]] and record["responseElements"]["VpcId"] == created["VpcId"]
    assert "create matched CreateVpc" in verdict.explain()


# --- hacks ----------------------------------------------------------------------------------


def test_claiming_success_without_acting_earns_nothing(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    console.call("vpc", "DescribeVpcs")  # looking around is not doing
    verdict = judge(CREATE_WEB_VPC, tenant, console, status="completed")
    assert verdict.reward == 0.0 and failed_kinds(verdict) == {"expect"}
    assert "no create record" in verdict.explain()


def test_acting_in_another_account_earns_nothing(cloud: Cloud, tenant: Tenant, other_tenant: Tenant) -> None:
    mine, theirs = sign_in(cloud, tenant), sign_in(cloud, other_tenant)
    theirs.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    assert judge(CREATE_WEB_VPC, tenant, mine).reward == 0.0  # the trail of the task's account lacks it
    # Even handed the other account's records, the judge sets them aside.
    verdict = evaluate(CREATE_WEB_VPC, records_of(other_tenant), status="completed", account_id=tenant.account_id)
    assert verdict.reward == 0.0 and verdict.ignored.get("in another account", 0) >= 1
    assert "set aside: in another account" in verdict.explain()


@pytest.mark.parametrize("key", ["provisioner", "sdk"])
def test_acting_with_an_access_key_earns_nothing(cloud: Cloud, tenant: Tenant, key: str) -> None:
    console = sign_in(cloud, tenant)
    getattr(tenant, key).call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    verdict = judge(CREATE_WEB_VPC, tenant, console)
    assert verdict.reward == 0.0
    assert f"set aside: made by the {key}" in verdict.explain()


def test_wrong_parameters_earn_nothing_and_the_near_miss_is_named(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="172.16.0.0/16")
    verdict = judge(CREATE_WEB_VPC, tenant, console)
    assert verdict.reward == 0.0
    assert "CidrBlock is '172.16.0.0/16', expected '10.0.0.0/16'" in verdict.explain()
    created = next(r["eventId"] for r in records_of(tenant) if r["eventName"] == "CreateVpc")
    expect = next(c for c in verdict.checks if c.kind == "expect")
    assert expect.wrong_target == [created]  # the goal's call, made on other terms: verify blames the agent for it


def test_a_failed_call_does_not_count(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.vpcs": 0})  # the right call, refused by the quota
    failed = console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    assert "Code" in failed, failed
    verdict = judge(CREATE_WEB_VPC, tenant, console)
    assert verdict.reward == 0.0 and "set aside: failed calls" in verdict.explain()


def test_extra_destructive_writes_fail_the_task(cloud: Cloud, tenant: Tenant) -> None:
    bystander = tenant.provisioner.call("vpc", "CreateVpc", VpcName="keep-me", CidrBlock="192.168.0.0/16")["VpcId"]
    cloud.advance(10)
    console = sign_in(cloud, tenant)
    console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    console.call("vpc", "DeleteVpc", VpcId=bystander)
    verdict = judge(CREATE_WEB_VPC, tenant, console)
    assert verdict.reward == 0.0 and failed_kinds(verdict) == {"collateral"}
    assert "DeleteVpc" in next(c for c in verdict.failures()).detail
    allowed = CREATE_WEB_VPC.model_copy(update={"allow": RewardRule.model_validate(
        {"expect": [{"event": "X"}], "allow": [{"event": "DeleteVpc"}]}).allow})
    assert judge(allowed, tenant, console).reward == 1.0  # a task may tolerate it explicitly
    forbidding = RewardRule.model_validate({"expect": [{"event": "CreateVpc"}], "forbid": [{"event": {"regex": "^Delete"}}],
                                            "allow": [{"event": "DeleteVpc"}]})
    assert judge(forbidding, tenant, console).reward == 0.0  # forbid wins over allow


def test_another_sessions_work_does_not_count(cloud: Cloud, tenant: Tenant) -> None:
    earlier, current = sign_in(cloud, tenant), sign_in(cloud, tenant)
    earlier.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")  # a previous episode's work
    verdict = judge(CREATE_WEB_VPC, tenant, current)
    assert verdict.reward == 0.0 and "from another console session" in verdict.explain()


def test_wrong_ending_fails_even_with_the_work_done(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
    verdict = judge(CREATE_WEB_VPC, tenant, console, status="unachievable")
    assert verdict.reward == 0.0 and failed_kinds(verdict) == {"outcome"}


# --- the rest of the language ---------------------------------------------------------------


def test_order_references_and_state_checks(cloud: Cloud, tenant: Tenant) -> None:
    vpc = tenant.provisioner.call("vpc", "CreateVpc", VpcName="net", CidrBlock="10.0.0.0/16")["VpcId"]
    cloud.advance(10)
    console = sign_in(cloud, tenant)
    console.call("vpc", "ModifyVpcAttribute", VpcId=vpc, VpcName="renamed")
    console.call("vpc", "ModifyVpcAttribute", VpcId=vpc, Description="second")
    rule = RewardRule.model_validate({
        "expect": [{"name": "rename", "event": "ModifyVpcAttribute", "params": {"VpcId": "${net.vpc_id}", "VpcName": "renamed"}},
                   {"name": "describe", "event": "ModifyVpcAttribute", "params": {"Description": {"regex": "sec.*"}}}],
        "order": ["rename", "describe"],
        "state": [{"call": "vpc.DescribeVpcs", "params": {"VpcId": "${net.vpc_id}"}, "path": "Vpcs.0.VpcName",
                   "equals": "renamed"}]})
    outputs = {"net": {"vpc_id": vpc}}

    def read(product: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
        return tenant.sdk.call(product, action, **params)

    verdict = judge(rule, tenant, console, outputs=outputs, read_state=read)
    assert verdict.reward == 1.0, verdict.explain()
    backwards = rule.model_copy(update={"order": ["describe", "rename"]})
    failed = judge(backwards, tenant, console, outputs=outputs, read_state=read)
    assert failed.reward == 0.0 and failed_kinds(failed) == {"order"}
    other_vpc = judge(rule, tenant, console, outputs={"net": {"vpc_id": "vpc-elsewhere"}}, read_state=read)
    assert other_vpc.reward == 0.0 and "VpcId is" in other_vpc.explain()
    no_sdk = judge(rule, tenant, console, outputs=outputs)
    assert no_sdk.reward == 0.0 and failed_kinds(no_sdk) == {"state"}


def test_unachievable_needs_a_discrepancy_report_when_the_rule_says_so(cloud: Cloud, tenant: Tenant) -> None:
    console = sign_in(cloud, tenant)
    rule = RewardRule.model_validate({"outcome": "unachievable", "require_discrepancy": True})
    assert judge(rule, tenant, console, status="unachievable").reward == 0.0
    report = [{"step": 5, "kind": "feature_removed", "expected": "a", "observed": "b"}]
    assert judge(rule, tenant, console, status="unachievable", discrepancies=report).reward == 1.0
    assert judge(rule, tenant, console, status="completed", discrepancies=report).reward == 0.0


def test_judge_waits_for_late_audit_delivery() -> None:
    """With a delivery delay the records arrive late; the judge reads the trail again until its deadline."""
    from tests.conftest import make_cloud

    cloud = make_cloud(audit_delivery_delay=30)
    try:
        tenant = cloud.tenant("late")
        console = sign_in(cloud, tenant)
        console.call("vpc", "CreateVpc", VpcName="web-vpc", CidrBlock="10.0.0.0/16")
        assert records_of(tenant) == []  # nothing delivered yet

        def collect(credentials: Any, console_url: str) -> list[dict[str, Any]]:
            cloud.advance(10)  # time passes between reads
            return records_of(tenant)

        spec, episode = judge_inputs(tenant, console)
        patient = RuleJudge("http://testserver", collect=collect, poll_s=0.01, settle_s=0.01, deadline_s=5)
        verdict = patient(spec, episode, [])
        assert verdict.reward == 1.0, verdict.explain()
        impatient = RuleJudge("http://testserver", collect=lambda c, u: [], poll_s=0.01, settle_s=0, deadline_s=0)
        assert impatient(spec, episode, []).reward == 0.0
    finally:
        cloud.runtime.close()


def test_constraints() -> None:
    def fails(constraint: Any, value: Any) -> str | None:
        return constraint_failure(Constraint.model_validate(constraint), value)

    assert fails("5", 5) is None and fails(5, "5.0") is None and fails("a", "b") == "is 'b', expected 'a'"
    assert fails({"in": ["x", "y"]}, "y") is None and fails({"in": ["x"]}, "z") is not None
    assert fails({"regex": "web-[0-9]+"}, "web-12") is None and fails({"regex": "web"}, "web-1") is not None  # full match
    assert fails({"min": 1, "max": 10}, 10) is None and "expected <= 10" in fails({"max": 10}, 11)
    assert fails({"contains": "i-1"}, ["i-1", "i-2"]) is None and fails({"contains": "i-3"}, ["i-1"]) is not None
    assert fails({"absent": True}, lookup({}, "X")) is None and fails("x", lookup({}, "X")) == "is missing"
    assert lookup({"Tag.1.Key": "k"}, "Tag.1.Key") == "k" and lookup({"Vpcs": [{"Id": 3}]}, "Vpcs.0.Id") == 3


def test_rule_errors_are_clear() -> None:
    with pytest.raises(ValidationError, match="needs at least one expected event"):
        RewardRule.model_validate({"outcome": "complete"})
    with pytest.raises(ValidationError, match="unknown constraint key"):
        RewardRule.model_validate({"expect": [{"event": "A", "params": {"X": {"equal": 1}}}]})
    with pytest.raises(ValidationError, match="not a regular expression"):
        RewardRule.model_validate({"expect": [{"event": {"regex": "("}}]})
    with pytest.raises(ValidationError, match="order: b is not the name"):
        RewardRule.model_validate({"expect": [{"name": "a", "event": "A"}], "order": ["a", "b"]})
    with pytest.raises(ValidationError, match="product.Action"):
        RewardRule.model_validate({"expect": [{"event": "A"}], "state": [{"call": "DescribeVpcs", "path": "x", "equals": 1}]})


def test_a_known_delivery_delay_caps_the_wait(cloud: Cloud, tenant: Tenant) -> None:
    """Without a delay, a failing verdict is final after one more read, not after the rule's deadline."""
    import time

    console = sign_in(cloud, tenant)
    reads = []

    def collect(credentials: Any, console_url: str) -> list[dict[str, Any]]:
        reads.append(1)
        return records_of(tenant)

    spec, episode = judge_inputs(tenant, console)
    started = time.monotonic()
    verdict = RuleJudge("http://testserver", collect=collect, poll_s=0.05, delivery_delay_s=0)(spec, episode, [])
    assert verdict.reward == 0.0 and len(reads) == 1 and time.monotonic() - started < 5  # the rule's deadline is 15 s


def test_a_rule_naming_an_unprovisioned_resource_earns_nothing_and_says_so(cloud: Cloud, tenant: Tenant) -> None:
    """The provisioning ablation drops a task's requires: the rule cannot be filled in, and that is a 0, not a crash."""
    console = sign_in(cloud, tenant)
    rule = RewardRule.model_validate({"expect": [{"event": "DeleteVpc", "params": {"VpcId": "${net.vpc_id}"}}]})
    verdict = judge(rule, tenant, console, outputs={})
    assert verdict.reward == 0.0
    assert "refers to ${net.vpc_id}, which nothing provisioned" in verdict.explain()
