"""Resource META templates against a real in-process stratus: each creates, verifies and destroys
cleanly, waits on asynchronous states through a manual-clock waiter, and writes only as the
provisioner (so the audit-log reward never counts set-up as the agent's work)."""

from __future__ import annotations

from typing import Any

import pytest

from consoleagent.provisioning.engine import ProvisioningEngine
from consoleagent.consoles.stratus.provisioning import BINDING, clock_waiter, inventory
from consoleagent.consoles.stratus.templates import parse_rule, stratus_library
from consoleagent.provisioning.templates import Attribute, Template, TemplateContext, TemplateLibrary
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement
from consoleagent.provisioning.validation import validate_library
from tests.conftest import Cloud, Tenant

LIBRARY = stratus_library()


def pooled(tenant: Tenant) -> PooledAccount:
    creds = tenant.creds
    return PooledAccount(creds["account_id"], creds.get("login_name", "root"), "Passw0rd!2026", "http://testserver",
                         sdk_key=(creds["access_key_id"], creds["access_key_secret"]),
                         provisioner_key=(creds["provisioner_key_id"], creds["provisioner_key_secret"]))


def engine_for(cloud: Cloud, tenant: Tenant, library: TemplateLibrary = LIBRARY) -> ProvisioningEngine:
    return ProvisioningEngine(library, lambda account: tenant.provisioner, waiter=clock_waiter(cloud.advance),
                              wait_timeout_s=60)


def non_provisioner_writes(tenant: Tenant) -> list[dict[str, Any]]:
    """Write API calls in the account not made by the provisioner (service events are the system's)."""
    events = []
    number = 1
    while True:
        page = tenant.sdk.call("actiontrail", "LookupEvents", PageNumber=number, PageSize=500)
        events.extend(page["Events"])
        if number * page["PageSize"] >= page["TotalCount"]:
            break
        number += 1
    return [e for e in events if e["eventRW"] == "Write" and e["eventType"] == "ApiCall" and e["actor"] != "provisioner"]


# Each template on its own (implicit dependencies are added by the engine), plus variants.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("vpc", {}),
    ("vpc", {"cidr_block": "10.0.0.0/16", "name": "prod-vpc"}),
    ("vswitch", {}),
    ("security_group", {"rules": ["tcp:22:0.0.0.0/0", "tcp:80-443:10.0.0.0/8", "icmp:-1:0.0.0.0/0",
                                  "all:-1:0.0.0.0/0:egress:drop"]}),
    ("key_pair", {"name": "ops-key"}),
    ("ecs_instance", {"internet_bandwidth": 5, "key_pair_name": ""}),
    ("ecs_instance", {"state": "stopped", "name": "web-01", "deletion_protection": True}),
    ("disk", {"size": 60}),
    ("snapshot", {}),
    ("eip", {}),
    ("nat_gateway", {"spec": "Middle"}),
    ("route_table", {}),
    ("image", {}),
]


@pytest.mark.parametrize(("template", "params"), CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CASES)])
def test_template_creates_verifies_and_destroys(cloud: Cloud, template: str, params: dict[str, Any]) -> None:
    tenant = cloud.tenant("meta")
    engine = engine_for(cloud, tenant)
    before = inventory(tenant.provisioner)
    made = engine.provision(pooled(tenant), [Requirement("subject", template, params)])
    subject = made.outputs["subject"]
    assert set(subject) == set(LIBRARY.get(template).outputs)
    assert all(value is not None for value in subject.values())
    if "name" in params:
        assert params["name"] in subject.values()
    engine.destroy(made)
    assert made.resources == []
    assert inventory(tenant.provisioner) == before
    assert non_provisioner_writes(tenant) == []
    provisioner_writes = tenant.sdk.call("actiontrail", "LookupEvents", Actor="provisioner", PageSize=500)["Events"]
    assert any(e["eventRW"] == "Write" for e in provisioner_writes)


def test_instance_in_a_stopped_state_and_a_disk_attached_to_it(cloud: Cloud) -> None:
    tenant = cloud.tenant("attach")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [
        Requirement("web", "ecs_instance", {"state": "stopped"}),
        Requirement("data", "disk", {"instance_id": "${web.instance_id}", "size": 100}),
        Requirement("ip", "eip", {"instance_id": "${web.instance_id}"}),
    ])
    web, data = made.outputs["web"], made.outputs["data"]
    view = tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=web["instance_id"])
    assert view["Status"] == "Stopped"
    disk = tenant.sdk.call("ecs", "DescribeDisks", DiskIds=[data["disk_id"]])["Disks"][0]
    assert (disk["Status"], disk["InstanceId"], disk["ZoneId"]) == ("In_use", web["instance_id"], web["zone_id"])
    assert tenant.sdk.call("vpc", "DescribeEipAddresses", AllocationId=made.outputs["ip"]["allocation_id"]
                           )["EipAddresses"][0]["Status"] == "InUse"
    engine.destroy(made)  # unassociates the EIP and detaches the disk before the instance goes
    assert inventory(tenant.provisioner) == set()


def test_destroy_undoes_what_the_agent_changed(cloud: Cloud) -> None:
    """The agent may start a stopped instance or detach a disk; destroy still leaves nothing behind."""
    tenant = cloud.tenant("changed")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [
        Requirement("web", "ecs_instance", {"state": "stopped"}),
        Requirement("data", "disk", {"instance_id": "${web.instance_id}"}),
    ])
    instance_id = made.outputs["web"]["instance_id"]
    tenant.sdk.call("ecs", "StartInstance", InstanceId=instance_id)  # the agent's own write, mid-transition
    engine.destroy(made)
    assert inventory(tenant.provisioner) == set()


def test_destroy_tolerates_resources_already_gone(cloud: Cloud) -> None:
    tenant = cloud.tenant("gone")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [Requirement("ip", "eip", {}), Requirement("key", "key_pair", {})])
    tenant.sdk.call("vpc", "ReleaseEipAddress", AllocationId=made.outputs["ip"]["allocation_id"])
    tenant.sdk.call("ecs", "DeleteKeyPairs", KeyPairNames=[made.outputs["key"]["key_pair_name"]])
    engine.destroy(made)
    assert made.resources == []


def test_verify_fails_when_the_resource_is_not_in_the_required_state(cloud: Cloud) -> None:
    tenant = cloud.tenant("verify")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [Requirement("web", "ecs_instance", {})])
    web = made.resources[-1]
    ctx = engine.context(tenant.provisioner, "web")
    tenant.sdk.call("ecs", "StopInstance", InstanceId=web.outputs["instance_id"])
    with pytest.raises(ProvisioningError, match="Status is 'Stopping', expected 'Running'") as info:
        LIBRARY.get("ecs_instance").verify(ctx, web.params, web.outputs)
    assert info.value.phase == "verify" and info.value.template == "ecs_instance"
    engine.destroy(made)


def test_subscription_instance_with_auto_renewal(cloud: Cloud) -> None:
    """The "disable auto-renewal" class of tasks starts from a prepaid instance with auto-renewal on.
    stratus releases subscription instances only at expiry, so destroy says so instead of pretending."""
    tenant = cloud.tenant("prepaid")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [
        Requirement("web", "ecs_instance", {"charge_type": "prepaid", "auto_renew": True, "period": 1}),
    ])
    renew = tenant.sdk.call("ecs", "DescribeInstanceAutoRenewAttribute", InstanceId=made.outputs["web"]["instance_id"])
    assert renew["InstanceRenewAttributes"][0]["AutoRenewEnabled"] is True
    with pytest.raises(ProvisioningError, match="subscription") as info:
        engine.destroy(made)
    assert info.value.phase == "destroy"


def test_wait_timeout_is_a_provisioning_error(cloud: Cloud) -> None:
    tenant = cloud.tenant("slow")
    vpc = tenant.provisioner.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16")["VpcId"]
    ctx = TemplateContext(tenant.provisioner, "cn-hangzhou", 0.5, clock_waiter(lambda s: None, 0.25))
    with pytest.raises(ProvisioningError, match="did not become Available"):
        ctx.wait(vpc, "Available")


def test_validate_library_reports_every_template_ok(cloud: Cloud) -> None:
    tenant = cloud.tenant("scratch")
    results = validate_library(LIBRARY, pooled(tenant), client_factory=lambda account: tenant.provisioner,
                               waiter=clock_waiter(cloud.advance))
    assert [r.name for r in results] == LIBRARY.names()
    assert all(r.ok for r in results), [r for r in results if not r.ok]
    assert inventory(tenant.provisioner) == set()
    assert non_provisioner_writes(tenant) == []


def test_validate_library_reports_a_template_that_leaves_something_behind(cloud: Cloud) -> None:
    leaky = Template(
        name="leaky", description="forgets to delete", attributes={}, outputs=["vpc_id"],
        create=lambda ctx, p: {"vpc_id": ctx.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16")["VpcId"]},
        verify=lambda ctx, p, out: None, destroy=lambda ctx, out: None,
    )
    tenant = cloud.tenant("leak")
    results = validate_library(TemplateLibrary([leaky], binding=BINDING), pooled(tenant), client_factory=lambda account: tenant.provisioner,
                               waiter=clock_waiter(cloud.advance))
    assert not results[0].ok and "left behind" in results[0].error and "Vpcs:vpc-" in results[0].error


def test_library_describes_what_matching_needs() -> None:
    described = {item["name"]: item for item in LIBRARY.describe()}
    assert {"vpc", "vswitch", "security_group", "ecs_instance", "key_pair", "disk", "snapshot", "eip", "nat_gateway",
            "route_table", "image"} <= set(described)
    instance = described["ecs_instance"]
    assert instance["attributes"]["state"]["choices"] == ["running", "stopped"]
    assert instance["attributes"]["charge_type"]["default"] == "postpaid"
    assert instance["depends"] == {"vswitch_id": "vswitch", "security_group_id": "security_group"}
    assert "instance" in instance["keywords"]
    text = LIBRARY.describe_text()
    assert "ecs_instance:" in text and "else a new vswitch" in text


def test_library_refuses_inconsistent_templates() -> None:
    noop = {"create": lambda ctx, p: {}, "verify": lambda ctx, p, o: None, "destroy": lambda ctx, o: None}
    orphan = Template("orphan", "x", {"vpc_id": Attribute(required=True)}, [], depends={"vpc_id": "nowhere"}, **noop)
    with pytest.raises(ValueError, match="unknown template 'nowhere'"):
        TemplateLibrary([orphan]).check()
    with pytest.raises(ValueError, match="no attribute"):
        TemplateLibrary([Template("bad", "x", {}, [], depends={"vpc_id": "vpc"}, **noop)])
    with pytest.raises(ProvisioningError, match="unknown template 'nope'"):
        LIBRARY.get("nope")


def test_security_group_rules_parse_and_refuse_nonsense() -> None:
    assert parse_rule("tcp:22:0.0.0.0/0") == {"direction": "ingress", "IpProtocol": "TCP", "PortRange": "22/22",
                                              "SourceCidrIp": "0.0.0.0/0", "Policy": "accept"}
    assert parse_rule("udp:53-54:10.0.0.0/8:egress:drop")["PortRange"] == "53/54"
    assert parse_rule("icmp:-1:0.0.0.0/0")["PortRange"] == "-1/-1"
    for bad in ("tcp:22", "smtp:25:0.0.0.0/0", "tcp:22:nowhere", "tcp:22:0.0.0.0/0:sideways"):
        with pytest.raises(ValueError):
            parse_rule(bad)
