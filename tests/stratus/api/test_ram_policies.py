"""RAM policies: deny by default for RAM users, system and custom policies, explicit Deny wins,
enforced in the one dispatcher for the SDK, the console's API calls and console pages alike.

The attack (issue 13, item 3): a RAM user with no policy deleted the root account's VPC and read
the whole trail. ``test_attack_ram_user_without_policy_is_refused`` reproduces it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from stratus.api.dispatch import Caller, invoke
from stratus.core.identity import Principal
from stratus.core.policy_language import (
    NamedPolicy,
    PolicyError,
    Request,
    document_from,
    evaluate,
    parse_document,
    wildcard_match,
)
from stratus.sdk import Client, ForbiddenError, InvalidParameterError, NotFoundError, StratusError, console_sign_in
from tests.conftest import Cloud, Tenant

PASSWORD = "Us3r-Passw0rd!"


def ram_user(cloud: Cloud, tenant: Tenant, name: str, *policies: str) -> Client:
    """A RAM user of ``tenant`` with an access key and the named system policies."""
    user = cloud.admin.create_user(tenant.account_id, name, password=PASSWORD, with_access_key=True)
    for policy in policies:
        tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="System", PolicyName=policy, UserName=name)
    return Client("http://testserver", user["access_key_id"], user["access_key_secret"], transport=cloud.http._transport)


def policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "1", "Statement": list(statements)})


def denied(client: Client, product: str, action: str, **params: Any) -> str:
    with pytest.raises(ForbiddenError) as info:
        client.call(product, action, **params)
    assert info.value.code == "Forbidden.RAM"
    return info.value.message


def test_attack_ram_user_without_policy_is_refused(cloud: Cloud, tenant: Tenant) -> None:
    vpc = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8")["VpcId"]
    mallory = ram_user(cloud, tenant, "mallory")
    message = denied(mallory, "vpc", "DeleteVpc", VpcId=vpc)
    assert f"vpc:DeleteVpc on acs:vpc:cn-hangzhou:{tenant.account_id}:vpc/{vpc}" in message
    assert "denied by default" in message
    denied(mallory, "actiontrail", "LookupEvents")
    assert tenant.sdk.call("vpc", "DescribeVpcs", VpcId=vpc)["TotalCount"] == 1, "the VPC survived"
    denials = tenant.sdk.call("actiontrail", "LookupEvents", ErrorCode="Forbidden.RAM")["Events"]
    assert [(e["eventName"], e["userIdentity"]["userName"]) for e in denials] == [
        ("LookupEvents", "mallory"), ("DeleteVpc", "mallory")]
    assert "no attached policy allows it" in denials[1]["errorMessage"]


def test_ram_user_cannot_grant_itself_access(cloud: Cloud, tenant: Tenant) -> None:
    mallory = ram_user(cloud, tenant, "mallory", "VPCFullAccess")
    denied(mallory, "ram", "AttachPolicyToUser", PolicyType="System", PolicyName="AdministratorAccess",
           UserName="mallory")
    assert [p["PolicyName"] for p in tenant.sdk.call("ram", "ListPoliciesForUser", UserName="mallory")["Policies"]] == [
        "VPCFullAccess"]


def test_system_policies(cloud: Cloud, tenant: Tenant) -> None:
    admin = ram_user(cloud, tenant, "admin", "AdministratorAccess")
    reader = ram_user(cloud, tenant, "reader", "ReadOnlyAccess")
    networker = ram_user(cloud, tenant, "networker", "VPCFullAccess")
    vpc = admin.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8")["VpcId"]
    assert admin.call("actiontrail", "LookupEvents")["TotalCount"] > 0
    assert reader.call("vpc", "DescribeVpcs")["TotalCount"] == 1
    assert reader.call("ecs", "DescribeSecurityGroups")["TotalCount"] == 0
    denied(reader, "vpc", "ModifyVpcAttribute", VpcId=vpc, Description="x")
    denied(reader, "ram", "CreatePolicy", PolicyName="p", PolicyDocument=policy())
    networker.call("vpc", "ModifyVpcAttribute", VpcId=vpc, Description="changed")
    denied(networker, "ecs", "DescribeSecurityGroups")
    names = {p["PolicyName"] for p in tenant.sdk.call("ram", "ListPolicies", PolicyType="System", PageSize=100)["Policies"]}
    assert {"AdministratorAccess", "ReadOnlyAccess", "ECSFullAccess", "ECSReadOnlyAccess", "VPCFullAccess",
            "VPCReadOnlyAccess", "ActionTrailReadOnlyAccess", "RAMFullAccess", "RAMReadOnlyAccess"} <= names


def test_custom_policy_explicit_deny_wins_and_names_the_statement(cloud: Cloud, tenant: Tenant) -> None:
    keep = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8", VpcName="keep")["VpcId"]
    scratch = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12", VpcName="scratch")["VpcId"]
    cloud.advance(10)
    document = policy(
        {"Effect": "Allow", "Action": ["vpc:*"], "Resource": "*"},
        {"Effect": "Deny", "Action": "vpc:Delete*", "Resource": f"acs:vpc:*:*:vpc/{keep}"},
    )
    tenant.sdk.call("ram", "CreatePolicy", PolicyName="NetOpsNoDeleteKeep", PolicyDocument=document)
    user = ram_user(cloud, tenant, "netops")
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="NetOpsNoDeleteKeep", UserName="netops")
    message = denied(user, "vpc", "DeleteVpc", VpcId=keep)
    assert "explicitly denied by Custom policy NetOpsNoDeleteKeep, statement 2" in message
    user.call("vpc", "DeleteVpc", VpcId=scratch)
    # the Allow of the policy does not reach beyond its product
    denied(user, "ecs", "DescribeInstances")
    # an AdministratorAccess beside it does not lift the Deny
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="System", PolicyName="AdministratorAccess", UserName="netops")
    denied(user, "vpc", "DeleteVpc", VpcId=keep)


def test_resource_scoped_allow(cloud: Cloud, tenant: Tenant) -> None:
    mine = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8")["VpcId"]
    other = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12")["VpcId"]
    tenant.sdk.call("ram", "CreatePolicy", PolicyName="OneVpc", PolicyDocument=policy(
        {"Effect": "Allow", "Action": "vpc:ModifyVpcAttribute", "Resource": f"acs:vpc:*:{tenant.account_id}:vpc/{mine}"}))
    user = ram_user(cloud, tenant, "owner-of-one")
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="OneVpc", UserName="owner-of-one")
    user.call("vpc", "ModifyVpcAttribute", VpcId=mine, Description="mine")
    denied(user, "vpc", "ModifyVpcAttribute", VpcId=other, Description="not mine")


def test_ram_resources_are_users_and_policies(cloud: Cloud, tenant: Tenant) -> None:
    tenant.sdk.call("ram", "CreatePolicy", PolicyName="SeeAlice", PolicyDocument=policy(
        {"Effect": "Allow", "Action": "ram:ListPoliciesForUser", "Resource": "acs:ram:*:*:user/alice"}))
    helpdesk = ram_user(cloud, tenant, "helpdesk")
    for name in ("alice", "bob"):
        cloud.admin.create_user(tenant.account_id, name, password=PASSWORD)
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="SeeAlice", UserName="helpdesk")
    assert helpdesk.call("ram", "ListPoliciesForUser", UserName="alice")["Policies"] == []
    message = denied(helpdesk, "ram", "ListPoliciesForUser", UserName="bob")
    assert f"acs:ram::{tenant.account_id}:user/bob" in message
    assert f"acs:ram::{tenant.account_id}:*" in denied(helpdesk, "ram", "ListPolicies")


def test_conditions_on_region_and_source_ip(cloud: Cloud, tenant: Tenant) -> None:
    tenant.sdk.call("ram", "CreatePolicy", PolicyName="HangzhouFromOffice", PolicyDocument=policy(
        {"Effect": "Allow", "Action": "vpc:Describe*", "Resource": "*",
         "Condition": {"StringEquals": {"acs:CurrentRegion": "cn-hangzhou"}, "IpAddress": {"acs:SourceIp": ["10.0.0.0/8"]}}}))
    user = cloud.admin.create_user(tenant.account_id, "office", password=PASSWORD)
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="HangzhouFromOffice", UserName="office")
    principal = Principal(tenant.account_id, user["user_id"], "office", "sdk")

    def call(region: str, ip: str) -> str:
        result = invoke(cloud.runtime, Caller(principal, source_ip=ip), "vpc", "DescribeVpcs", {"RegionId": region})
        return "ok" if result.ok else result.body["Code"]

    assert call("cn-hangzhou", "10.1.2.3") == "ok"
    assert call("cn-shanghai", "10.1.2.3") == "Forbidden.RAM"
    assert call("cn-hangzhou", "192.168.1.1") == "Forbidden.RAM"
    assert call("cn-hangzhou", "testclient") == "Forbidden.RAM", "an unparseable address never matches IpAddress"


@pytest.mark.parametrize(("document", "place"), [
    ("not json", "not valid JSON"),
    ('{"Version": "2", "Statement": []}', 'Version must be "1"'),
    (policy({"Effect": "Maybe", "Action": "*", "Resource": "*"}), "Statement[1].Effect"),
    (policy({"Effect": "Allow", "Action": "*", "Resource": "*"}, {"Effect": "Allow", "Action": "vpc", "Resource": "*"}),
     "Statement[2].Action"),
    (policy({"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3:::x"}), "Statement[1].Resource"),
    (policy({"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"StringSorta": {"acs:SourceIp": "x"}}}),
     "unknown operator 'StringSorta'"),
    (policy({"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"StringEquals": {"acs:Mood": "x"}}}),
     "unknown key 'acs:Mood'"),
    (policy({"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"IpAddress": {"acs:SourceIp": "nope"}}}),
     "Statement[1].Condition.IpAddress.acs:SourceIp"),
    ('{"Version": "1", "Statement": ' + "[" * 5000 + "]" * 5000 + "}", "characters; at most 6144"),
    ('{"Version": "1", "Statement": ' + "[" * 2000 + "]" * 2000 + "}", "not valid JSON"),
])
def test_bad_documents_are_refused_naming_the_place(cloud: Cloud, tenant: Tenant, document: str, place: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        tenant.sdk.call("ram", "CreatePolicy", PolicyName="Bad", PolicyDocument=document)
    assert info.value.code == "InvalidParameter.PolicyDocument"
    assert place in info.value.message


def test_policy_management(cloud: Cloud, tenant: Tenant, other_tenant: Tenant) -> None:
    sdk = tenant.sdk
    sdk.call("ram", "CreatePolicy", PolicyName="ReadVpc", Description="read VPCs",
             PolicyDocument=policy({"Effect": "Allow", "Action": "vpc:Describe*", "Resource": "*"}))
    with pytest.raises(StratusError) as dup:
        sdk.call("ram", "CreatePolicy", PolicyName="ReadVpc", PolicyDocument=policy())
    assert dup.value.code == "EntityAlreadyExists.Policy"
    with pytest.raises(StratusError) as clash:
        sdk.call("ram", "CreatePolicy", PolicyName="AdministratorAccess", PolicyDocument=policy())
    assert clash.value.code == "EntityAlreadyExists.Policy"
    cloud.admin.create_user(tenant.account_id, "bob", password=PASSWORD)
    sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="ReadVpc", UserName="bob")
    with pytest.raises(StratusError) as again:
        sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="ReadVpc", UserName="bob")
    assert again.value.code == "EntityAlreadyExists.User.Policy"
    got = sdk.call("ram", "GetPolicy", PolicyType="Custom", PolicyName="ReadVpc")["Policy"]
    assert got["AttachmentCount"] == 1 and json.loads(got["PolicyDocument"])["Statement"][0]["Action"] == "vpc:Describe*"
    custom = sdk.call("ram", "ListPolicies", PolicyType="Custom")["Policies"]
    assert [(p["PolicyName"], p["AttachmentCount"], p["Description"]) for p in custom] == [("ReadVpc", 1, "read VPCs")]
    with pytest.raises(StratusError) as conflict:
        sdk.call("ram", "DeletePolicy", PolicyName="ReadVpc")
    assert conflict.value.code == "DeleteConflict.Policy.User"
    sdk.call("ram", "DetachPolicyFromUser", PolicyType="Custom", PolicyName="ReadVpc", UserName="bob")
    sdk.call("ram", "DeletePolicy", PolicyName="ReadVpc")
    assert sdk.call("ram", "ListPolicies", PolicyType="Custom")["TotalCount"] == 0
    with pytest.raises(NotFoundError):
        sdk.call("ram", "GetPolicy", PolicyType="System", PolicyName="NoSuchAccess")
    # another account sees neither the user nor the policy
    sdk.call("ram", "CreatePolicy", PolicyName="Mine",
             PolicyDocument=policy({"Effect": "Allow", "Action": "vpc:Describe*", "Resource": "*"}))
    with pytest.raises(NotFoundError):
        other_tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="Custom", PolicyName="Mine", UserName="bob")
    with pytest.raises(NotFoundError):
        other_tenant.sdk.call("ram", "GetPolicy", PolicyType="Custom", PolicyName="Mine")
    assert other_tenant.sdk.call("ram", "ListPolicies", PolicyType="Custom")["TotalCount"] == 0


def test_snapshot_restore_does_not_give_a_permission_back(cloud: Cloud, tenant: Tenant) -> None:
    user = ram_user(cloud, tenant, "temp", "VPCReadOnlyAccess")
    snapshot = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    tenant.sdk.call("ram", "DetachPolicyFromUser", PolicyType="System", PolicyName="VPCReadOnlyAccess", UserName="temp")
    cloud.admin.restore(snapshot)
    denied(user, "vpc", "DescribeVpcs")


def test_console_is_authorised_by_the_same_policies(cloud: Cloud, tenant: Tenant) -> None:
    tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8")
    cloud.admin.create_user(tenant.account_id, "viewer", password=PASSWORD)
    assert console_sign_in(cloud.http, "viewer@alpha", PASSWORD).status_code == 303
    home = cloud.http.get("/console")
    assert home.status_code == 200, "the home page renders without the tiles the user may not read"
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', home.text).group(1)  # type: ignore[union-attr]
    api = cloud.http.post("/api/vpc/DescribeVpcs", json={}, headers={"x-csrf-token": csrf})
    assert (api.status_code, api.json()["Code"]) == (403, "Forbidden.RAM")
    page = cloud.http.get("/vpc/vpcs")
    assert page.status_code == 403 and "Forbidden.RAM" in page.text
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="System", PolicyName="VPCReadOnlyAccess", UserName="viewer")
    assert cloud.http.get("/vpc/vpcs").status_code == 200
    assert cloud.http.post("/api/vpc/DescribeVpcs", json={}, headers={"x-csrf-token": csrf}).json()["TotalCount"] == 1
    records = tenant.sdk.call("actiontrail", "LookupEvents", ErrorCode="Forbidden.RAM", Actor="console")["Events"]
    assert records and all(r["userIdentity"]["userName"] == "viewer" for r in records)


# --- the policy language on its own -------------------------------------------------------


def test_wildcards() -> None:
    assert wildcard_match("vpc:Describe*", "vpc:describevpcs", ignore_case=True)
    assert not wildcard_match("vpc:Describe*", "ecs:DescribeInstances", ignore_case=True)
    assert wildcard_match("acs:vpc:*:*:vpc/vpc-?bc", "acs:vpc:cn-hangzhou:1:vpc/vpc-abc")
    assert not wildcard_match("acs:vpc:*:*:vpc/*", "acs:vpc:cn-hangzhou:1:*"), "a list/create is not a named VPC"
    assert not wildcard_match("a.c", "abc"), "only * and ? are special"


def test_evaluation_rules() -> None:
    allow_all = NamedPolicy("System", "All", document_from(json.loads(policy({"Effect": "Allow", "Action": "*", "Resource": "*"}))))
    deny_b = NamedPolicy("Custom", "NoB", document_from(json.loads(policy(
        {"Effect": "Deny", "Action": "vpc:*", "Resource": "acs:vpc:*:*:vpc/vpc-b"}))))
    two = Request("vpc:DeleteVpc", ("acs:vpc:r:1:vpc/vpc-a", "acs:vpc:r:1:vpc/vpc-b"))
    assert evaluate([], two).reason == "ImplicitDeny"
    assert evaluate([allow_all], two).allowed
    decision = evaluate([allow_all, deny_b], two)
    assert (decision.allowed, decision.reason, decision.policy.name, decision.statement) == (False, "ExplicitDeny", "NoB", 1)  # type: ignore[union-attr]
    only_a = NamedPolicy("Custom", "OnlyA", document_from(json.loads(policy(
        {"Effect": "Allow", "Action": "vpc:*", "Resource": "acs:vpc:*:*:vpc/vpc-a"}))))
    partial = evaluate([only_a], two)
    assert not partial.allowed and partial.resource == "acs:vpc:r:1:vpc/vpc-b", "every resource must be allowed"


def test_negated_conditions_fail_closed() -> None:
    deny_outside = NamedPolicy("Custom", "Office", document_from(json.loads(policy(
        {"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "*", "Resource": "*", "Condition": {"NotIpAddress": {"acs:SourceIp": "10.0.0.0/8"}}}))))
    assert evaluate([deny_outside], Request("vpc:DescribeVpcs", ("*",), {"acs:sourceip": "10.0.0.1"})).allowed
    assert not evaluate([deny_outside], Request("vpc:DescribeVpcs", ("*",), {"acs:sourceip": "8.8.8.8"})).allowed
    assert not evaluate([deny_outside], Request("vpc:DescribeVpcs", ("*",), {})).allowed, "no address: denied"


def test_parse_limits() -> None:
    with pytest.raises(PolicyError, match="at most 100 statements"):
        document_from({"Version": "1", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}] * 101})
    with pytest.raises(PolicyError, match="unknown field 'Principal'"):
        parse_document(policy({"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"}))
