"""ECS security groups through the public API: groups, rule validation, membership, dependencies, audit."""

from __future__ import annotations

from typing import Any

import pytest

from stratus.sdk import Client, StratusError

from stratus.api.context import CallContext
from stratus.core.identity import Principal

IMAGE = "aliyun_3_x64_20G_alibase_20250629.vhd"


# --- helpers shared with the storage tests -------------------------------------------------


def settle(cloud: Any, client: Client, seconds: float = 10) -> None:
    """Let virtual time pass; any call then applies the due transitions."""
    cloud.advance(seconds)
    client.call("resourcecenter", "SearchResources", Keyword="settle")


def _system_ctx(cloud: Any, db: Any, tenant: Any) -> CallContext:
    return CallContext(db, cloud.runtime, Principal(tenant.account_id, None, "root", "sdk"), "cn-hangzhou", cloud.clock.now())


def make_vpc(cloud: Any, tenant: Any, cidr: str = "192.168.0.0/16", zone: str = "cn-hangzhou-h",
             settle_after: bool = True) -> dict[str, str]:
    """A VPC with one vSwitch in ``zone`` (or, with ``settle_after=False``, a VPC still Pending)."""
    client = tenant.sdk
    vpc = client.call("vpc", "CreateVpc", CidrBlock=cidr, VpcName="test-vpc")["VpcId"]
    if not settle_after:
        return {"vpc": vpc, "zone": zone}
    settle(cloud, client, 5)
    first, second = cidr.split(".")[:2]
    subnet = f"{first}.{second}.1.0/24"
    vsw = client.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId=zone, CidrBlock=subnet, VSwitchName="test-vsw")["VSwitchId"]
    settle(cloud, client, 5)
    return {"vpc": vpc, "vswitch": vsw, "zone": zone}


def make_instance(cloud: Any, tenant: Any, net: dict[str, str], groups: list[str], status: str = "Running") -> str:
    """A Running (or Stopped) pay-as-you-go instance in ``net``'s vSwitch and ``groups``."""
    client = tenant.sdk
    run = client.call("ecs", "RunInstances", ZoneId=net["zone"], InstanceType="ecs.g7.large", ImageId=IMAGE,
                      SecurityGroupId=groups[0], VSwitchId=net["vswitch"], InstanceName="test-vm",
                      InstanceChargeType="PostPaid", SystemDisk={"Category": "cloud_essd", "Size": 40})
    instance = run["InstanceIdSets"]["InstanceIdSet"][0]
    settle(cloud, client, 30)
    for sg in groups[1:]:
        client.call("ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=sg)
    if status != "Running":
        set_instance_status(cloud, tenant, instance, status)
    return instance


def set_instance_status(cloud: Any, tenant: Any, instance_id: str, status: str) -> None:
    """Stop or start an instance and wait until it has settled."""
    client = tenant.sdk
    client.call("ecs", "StopInstance" if status == "Stopped" else "StartInstance", InstanceId=instance_id)
    settle(cloud, client, 30)


# --- tests ---------------------------------------------------------------------------------


def _error(fn: Any, *args: Any, **kwargs: Any) -> StratusError:
    with pytest.raises(StratusError) as info:
        fn(*args, **kwargs)
    return info.value


def _sg(client: Client, vpc: str, **params: Any) -> str:
    return client.call("ecs", "CreateSecurityGroup", VpcId=vpc, **params)["SecurityGroupId"]


def _ingress(client: Client, sg: str, **params: Any) -> dict[str, Any]:
    return client.call("ecs", "AuthorizeSecurityGroup", SecurityGroupId=sg, **params)


def _rules(client: Client, sg: str, direction: str = "all") -> list[dict[str, Any]]:
    return client.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=sg, Direction=direction)["Permissions"]


@pytest.fixture
def net(cloud: Any, tenant: Any) -> dict[str, str]:
    return make_vpc(cloud, tenant)


def test_create_describe_modify_and_filter(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    web = _sg(client, net["vpc"], SecurityGroupName="web-sg", Description="front end")
    _sg(client, net["vpc"], SecurityGroupName="db-sg", SecurityGroupType="enterprise")
    other = make_vpc(cloud, tenant, cidr="10.0.0.0/8")
    _sg(client, other["vpc"], SecurityGroupName="elsewhere")

    listed = client.call("ecs", "DescribeSecurityGroups", VpcId=net["vpc"])
    assert listed["TotalCount"] == 2
    assert {g["SecurityGroupName"] for g in listed["SecurityGroups"]} == {"web-sg", "db-sg"}
    first = next(g for g in listed["SecurityGroups"] if g["SecurityGroupId"] == web)
    assert first["InstanceCount"] == 0 and first["RuleCount"] == 0 and first["SecurityGroupType"] == "normal"
    assert client.call("ecs", "DescribeSecurityGroups", Keyword="-sg")["TotalCount"] == 2
    assert client.call("ecs", "DescribeSecurityGroups", SecurityGroupIds=f'["{web}"]')["SecurityGroups"][0]["SecurityGroupId"] == web
    paged = client.call("ecs", "DescribeSecurityGroups", PageSize=2, PageNumber=2)
    assert paged["TotalCount"] == 3 and len(paged["SecurityGroups"]) == 1

    client.call("ecs", "ModifySecurityGroupAttribute", SecurityGroupId=web, SecurityGroupName="web-public", Description="x")
    attr = client.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=web)
    assert attr["SecurityGroupName"] == "web-public" and attr["Description"] == "x"
    assert attr["Permissions"] == [] and attr["DefaultEgressPolicy"] == "Accept" and attr["InnerAccessPolicy"] == "Accept"

    assert _error(client.call, "ecs", "ModifySecurityGroupAttribute", SecurityGroupId=web,
                  SecurityGroupName="1bad").code == "InvalidParameter.SecurityGroupName"
    assert _error(client.call, "ecs", "CreateSecurityGroup", SecurityGroupName="x-sg").code == "MissingParameter"
    assert _error(client.call, "ecs", "CreateSecurityGroup", VpcId="vpc-nope").code == "NotFound"
    assert _error(_sg, client, net["vpc"], SecurityGroupType="premium").code == "InvalidParameter.SecurityGroupType"


def test_vpc_must_be_available_and_quota(cloud: Any, tenant: Any) -> None:
    pending = make_vpc(cloud, tenant, settle_after=False)
    assert _error(_sg, tenant.sdk, pending["vpc"]).code == "IncorrectStatus"
    settle(cloud, tenant.sdk)
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.security_groups": 1})
    _sg(tenant.sdk, pending["vpc"])
    assert _error(_sg, tenant.sdk, pending["vpc"]).code == "QuotaExceeded"


def test_other_accounts_cannot_see_or_use_groups(cloud: Any, tenant: Any, other_tenant: Any, net: dict[str, str]) -> None:
    sg = _sg(tenant.sdk, net["vpc"])
    assert other_tenant.sdk.call("ecs", "DescribeSecurityGroups")["TotalCount"] == 0
    assert _error(other_tenant.sdk.call, "ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=sg).code == "NotFound"
    assert _error(_sg, other_tenant.sdk, net["vpc"]).code == "NotFound"
    other_vpc = make_vpc(cloud, other_tenant)
    other_sg = _sg(other_tenant.sdk, other_vpc["vpc"])
    assert _error(_ingress, other_tenant.sdk, other_sg, IpProtocol="TCP", PortRange="22/22",
                  SourceGroupId=sg).code == "NotFound"


@pytest.mark.parametrize(("protocol", "port_range", "code"), [
    ("TCP", "22/22", None),
    ("tcp", "1/65535", None),
    ("UDP", "53/53", None),
    ("ICMP", "-1/-1", None),
    ("GRE", "-1/-1", None),
    ("ALL", "-1/-1", None),
    ("TCP", "0/22", "InvalidParameter.PortRange"),
    ("TCP", "22/65536", "InvalidParameter.PortRange"),
    ("TCP", "80/22", "InvalidParameter.PortRange"),
    ("TCP", "-1/-1", "InvalidParameter.PortRange"),
    ("UDP", "abc", "InvalidParameter.PortRange"),
    ("TCP", "22", "InvalidParameter.PortRange"),
    ("TCP", None, "InvalidParameter.PortRange"),
    ("ICMP", "22/22", "InvalidParameter.PortRange"),
    ("ALL", "1/65535", "InvalidParameter.PortRange"),
    ("GRE", "0/0", "InvalidParameter.PortRange"),
    ("SCTP", "1/2", "InvalidParameter.IpProtocol"),
])
def test_port_range_validation_per_protocol(tenant: Any, net: dict[str, str], protocol: str, port_range: str | None,
                                            code: str | None) -> None:
    sg = _sg(tenant.sdk, net["vpc"])
    params = {"IpProtocol": protocol, "PortRange": port_range, "SourceCidrIp": "0.0.0.0/0"}
    if code is None:
        rule_id = _ingress(tenant.sdk, sg, **params)["SecurityGroupRuleId"]
        rule = _rules(tenant.sdk, sg)[0]
        assert rule["SecurityGroupRuleId"] == rule_id and rule["IpProtocol"] == protocol.upper()
        assert rule["PortRange"] == port_range
    else:
        assert _error(_ingress, tenant.sdk, sg, **params).code == code
        assert _rules(tenant.sdk, sg) == []


def test_rule_fields_validation(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    sg = _sg(client, net["vpc"])
    base = {"IpProtocol": "TCP", "PortRange": "22/22"}
    assert _error(_ingress, client, sg, **base).code == "InvalidParameter.SourceCidrIp"
    assert _error(_ingress, client, sg, SourceCidrIp="300.1.1.0/24", **base).code == "InvalidParameter.SourceCidrIp"
    assert _error(_ingress, client, sg, SourceCidrIp="10.0.0.0/8", SourceGroupId=sg, **base).code == "InvalidParameter.SourceGroupId"
    assert _error(_ingress, client, sg, SourceCidrIp="10.0.0.0/8", Policy="reject", **base).code == "InvalidParameter.Policy"
    assert _error(_ingress, client, sg, SourceCidrIp="10.0.0.0/8", Priority=0, **base).code == "InvalidParameter.Priority"
    assert _error(_ingress, client, sg, SourceCidrIp="10.0.0.0/8", Priority=101, **base).code == "InvalidParameter.Priority"
    assert _error(_ingress, client, "sg-missing", SourceCidrIp="10.0.0.0/8", **base).code == "NotFound"
    other_vpc = make_vpc(cloud, tenant, cidr="10.0.0.0/8")
    foreign = _sg(client, other_vpc["vpc"])
    assert _error(_ingress, client, sg, SourceGroupId=foreign, **base).code == "InvalidParameter.SourceGroupId"
    enterprise = _sg(client, net["vpc"], SecurityGroupType="enterprise")
    assert _error(_ingress, client, enterprise, SourceGroupId=sg, **base).code == "InvalidParameter.SourceGroupId"

    peer = _sg(client, net["vpc"], SecurityGroupName="peer")
    _ingress(client, sg, SourceGroupId=peer, Policy="Drop", Priority=100, Description="from peer", **base)
    _ingress(client, sg, SourceCidrIp="10.1.2.3", Priority=5, **base)
    rules = _rules(client, sg)
    assert [r["Priority"] for r in rules] == [5, 100]  # ordered by priority
    assert rules[0]["SourceCidrIp"] == "10.1.2.3/32"
    assert rules[1]["SourceGroupId"] == peer and rules[1]["Policy"] == "Drop" and rules[1]["Description"] == "from peer"


def test_duplicate_rule_and_rule_quota(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    sg = _sg(client, net["vpc"])
    _ingress(client, sg, IpProtocol="TCP", PortRange="22/22", SourceCidrIp="0.0.0.0/0")
    dup = _error(_ingress, client, sg, IpProtocol="tcp", PortRange="22/22", SourceCidrIp="0.0.0.0/0", Priority=7)
    assert dup.code == "InvalidParameter.Permission" and "already exists" in dup.message
    # the same fields in the other direction, or with another policy, are different rules
    client.call("ecs", "AuthorizeSecurityGroupEgress", SecurityGroupId=sg, IpProtocol="TCP", PortRange="22/22",
                DestCidrIp="0.0.0.0/0")
    _ingress(client, sg, IpProtocol="TCP", PortRange="22/22", SourceCidrIp="0.0.0.0/0", Policy="drop")
    assert len(_rules(client, sg, "ingress")) == 2 and len(_rules(client, sg, "egress")) == 1

    cloud.admin.set_quotas(tenant.account_id, **{"ecs.rules_per_security_group": 3})
    assert _error(_ingress, client, sg, IpProtocol="TCP", PortRange="80/80", SourceCidrIp="0.0.0.0/0").code == "QuotaExceeded"


def test_egress_revoke_and_modify(tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    sg = _sg(client, net["vpc"])
    out = client.call("ecs", "AuthorizeSecurityGroupEgress", SecurityGroupId=sg, IpProtocol="ALL", PortRange="-1/-1",
                      DestCidrIp="0.0.0.0/0", Policy="drop")["SecurityGroupRuleId"]
    egress = _rules(client, sg, "egress")[0]
    assert egress["DestCidrIp"] == "0.0.0.0/0" and egress["SourceCidrIp"] == "" and egress["Direction"] == "egress"
    assert _error(client.call, "ecs", "AuthorizeSecurityGroupEgress", SecurityGroupId=sg, IpProtocol="TCP",
                  PortRange="1/2", SourceCidrIp="0.0.0.0/0").code == "InvalidParameter.SourceCidrIp"

    ssh = _ingress(client, sg, IpProtocol="TCP", PortRange="22/22", SourceCidrIp="0.0.0.0/0")["SecurityGroupRuleId"]
    web = _ingress(client, sg, IpProtocol="TCP", PortRange="80/80", SourceCidrIp="0.0.0.0/0")["SecurityGroupRuleId"]
    client.call("ecs", "ModifySecurityGroupRule", SecurityGroupId=sg, SecurityGroupRuleId=ssh, SourceCidrIp="203.0.113.0/24",
                Priority=10, Description="office only")
    rule = next(r for r in _rules(client, sg, "ingress") if r["SecurityGroupRuleId"] == ssh)
    assert (rule["SourceCidrIp"], rule["PortRange"], rule["Priority"], rule["Description"]) == ("203.0.113.0/24", "22/22", 10, "office only")
    assert _error(client.call, "ecs", "ModifySecurityGroupRule", SecurityGroupId=sg, SecurityGroupRuleId=web,
                  PortRange="22/22", SourceCidrIp="203.0.113.0/24").code == "InvalidParameter.Permission"
    assert _error(client.call, "ecs", "ModifySecurityGroupRule", SecurityGroupId=sg, SecurityGroupRuleId=web,
                  PortRange="90/80").code == "InvalidParameter.PortRange"
    assert _error(client.call, "ecs", "ModifySecurityGroupRule", SecurityGroupId=sg, SecurityGroupRuleId=out,
                  Priority=3).code == "NotFound"  # an egress rule is not an inbound rule
    client.call("ecs", "ModifySecurityGroupEgressRule", SecurityGroupId=sg, SecurityGroupRuleId=out, Policy="accept")
    assert _rules(client, sg, "egress")[0]["Policy"] == "Accept"

    # revoke by fields, then by id; a rule that is not there is NotFound
    client.call("ecs", "RevokeSecurityGroup", SecurityGroupId=sg, IpProtocol="TCP", PortRange="80/80", SourceCidrIp="0.0.0.0/0")
    assert _error(client.call, "ecs", "RevokeSecurityGroup", SecurityGroupId=sg, IpProtocol="TCP", PortRange="80/80",
                  SourceCidrIp="0.0.0.0/0").code == "NotFound"
    assert _error(client.call, "ecs", "RevokeSecurityGroup", SecurityGroupId=sg, SecurityGroupRuleId=[out]).code == "NotFound"
    client.call("ecs", "RevokeSecurityGroup", SecurityGroupId=sg, SecurityGroupRuleId=[ssh])
    client.call("ecs", "RevokeSecurityGroupEgress", SecurityGroupId=sg, SecurityGroupRuleId=[out])
    assert _rules(client, sg) == []


def test_membership_and_dependencies(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    first = _sg(client, net["vpc"], SecurityGroupName="first")
    instance = make_instance(cloud, tenant, net, [first])
    listed = client.call("ecs", "DescribeSecurityGroups", SecurityGroupIds=[first])["SecurityGroups"][0]
    assert listed["InstanceCount"] == 1

    # an instance keeps at least one group
    assert _error(client.call, "ecs", "LeaveSecurityGroup", InstanceId=instance, SecurityGroupId=first).code == \
        "InvalidParameter.SecurityGroupId"
    groups = [_sg(client, net["vpc"], SecurityGroupName=f"extra-{n}") for n in range(5)]
    for sg in groups[:4]:
        client.call("ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=sg)
    assert _error(client.call, "ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=groups[0]).code == \
        "InvalidParameter.SecurityGroupId"  # already a member
    too_many = _error(client.call, "ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=groups[4])
    assert too_many.code == "InvalidParameter.SecurityGroupId" and "5" in too_many.message
    client.call("ecs", "LeaveSecurityGroup", InstanceId=instance, SecurityGroupId=groups[0])
    assert _error(client.call, "ecs", "LeaveSecurityGroup", InstanceId=instance, SecurityGroupId=groups[0]).code == \
        "InvalidParameter.SecurityGroupId"
    enterprise = _sg(client, net["vpc"], SecurityGroupType="enterprise")
    assert _error(client.call, "ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=enterprise).code == \
        "InvalidParameter.SecurityGroupId"
    elsewhere = make_vpc(cloud, tenant, cidr="10.0.0.0/8")
    foreign = _sg(client, elsewhere["vpc"])
    assert _error(client.call, "ecs", "JoinSecurityGroup", InstanceId=instance, SecurityGroupId=foreign).code == \
        "InvalidParameter.SecurityGroupId"

    # in use by an instance: DependencyViolation naming it
    blocked = _error(client.call, "ecs", "DeleteSecurityGroup", SecurityGroupId=first)
    assert blocked.code == "DependencyViolation" and instance in blocked.message
    # referenced by another group's rule: DependencyViolation naming that group
    _ingress(client, groups[4], IpProtocol="TCP", PortRange="22/22", SourceGroupId=groups[0])
    referenced = _error(client.call, "ecs", "DeleteSecurityGroup", SecurityGroupId=groups[0])
    assert referenced.code == "DependencyViolation" and groups[4] in referenced.message
    # a group with its own rules deletes with them
    client.call("ecs", "DeleteSecurityGroup", SecurityGroupId=groups[4])
    client.call("ecs", "DeleteSecurityGroup", SecurityGroupId=groups[0])
    assert client.call("ecs", "DescribeSecurityGroups", SecurityGroupIds=[groups[0], groups[4]])["TotalCount"] == 0
    assert _error(client.call, "ecs", "DeleteSecurityGroup", SecurityGroupId=groups[0]).code == "NotFound"


def test_vpc_with_groups_cannot_be_deleted(cloud: Any, tenant: Any) -> None:
    client = tenant.sdk
    vpc = client.call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12")["VpcId"]
    settle(cloud, client, 5)
    sg = _sg(client, vpc)
    blocked = _error(client.call, "vpc", "DeleteVpc", VpcId=vpc)
    assert blocked.code == "DependencyViolation" and sg in blocked.message
    client.call("ecs", "DeleteSecurityGroup", SecurityGroupId=sg)
    client.call("vpc", "DeleteVpc", VpcId=vpc)


def test_audit_records_reference_the_group_and_rule(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    client = tenant.sdk
    sg = _sg(client, net["vpc"])
    rule = _ingress(client, sg, IpProtocol="TCP", PortRange="443/443", SourceCidrIp="0.0.0.0/0")["SecurityGroupRuleId"]
    _error(_ingress, client, sg, IpProtocol="TCP", PortRange="443/443", SourceCidrIp="0.0.0.0/0")
    cloud.advance(600)  # audit delivery delay
    events = client.call("actiontrail", "LookupEvents", ResourceId=sg, PageSize=50)["Events"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        by_name.setdefault(event["eventName"], []).append(event)
    created = by_name["CreateSecurityGroup"][0]
    assert created["referencedResources"]["ACS::ECS::SecurityGroup"] == [sg]
    authorized = [e for e in by_name["AuthorizeSecurityGroup"] if not e.get("errorCode")][0]
    assert authorized["referencedResources"]["ACS::ECS::SecurityGroupRule"] == [rule]
    failed = [e for e in by_name["AuthorizeSecurityGroup"] if e.get("errorCode")][0]
    assert failed["errorCode"] == "InvalidParameter.Permission"
