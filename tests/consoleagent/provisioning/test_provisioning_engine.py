"""The requirement engine: parsing ``requires:``, planning the graph (references, implicit
dependencies, order, clear errors), provisioning in order on a real in-process stratus, and
cleaning up after a failure half-way."""

from __future__ import annotations

from dataclasses import replace

import pytest

from consoleagent.provisioning.engine import (
    Provisioned, ProvisioningEngine, parse_requirements, substitute,
)
from consoleagent.consoles.stratus.provisioning import clock_waiter, inventory, provisioner_client
from consoleagent.consoles.stratus.templates import stratus_library
from consoleagent.provisioning.templates import TemplateLibrary
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement
from tests.conftest import Cloud, LiveServer
from tests.consoleagent.consoles.stratus.test_meta_templates import engine_for, non_provisioner_writes, pooled

LIBRARY = stratus_library()
PLANNER = ProvisioningEngine(LIBRARY, lambda account: None)  # type: ignore[arg-type,return-value]  (plan never calls it)


def plan(*requirements: Requirement) -> list[tuple[str, str, dict]]:
    return [(s.name, s.template, s.params) for s in PLANNER.plan(list(requirements))]


def plan_error(*requirements: Requirement) -> str:
    with pytest.raises(ProvisioningError) as info:
        PLANNER.plan(list(requirements))
    assert info.value.phase == "plan"
    return str(info.value)


# --- parse_requirements ----------------------------------------------------------------------


def test_parse_requirements_reads_task_entries() -> None:
    data = [{"name": "net", "template": "vpc", "params": {"cidr_block": "10.0.0.0/16"}},
            {"name": "key", "template": "key_pair"}]
    assert parse_requirements(data, "tasks/t1.yaml") == [Requirement("net", "vpc", {"cidr_block": "10.0.0.0/16"}),
                                                          Requirement("key", "key_pair", {})]
    assert parse_requirements(None) == []


@pytest.mark.parametrize(("data", "message"), [
    ({"name": "x"}, "t.yaml: requires must be a list"),
    (["vpc"], "t.yaml: requires[0]: an entry must be a mapping"),
    ([{"name": "net"}], "t.yaml: requires[0]: field 'template' is required"),
    ([{"template": "vpc"}], "t.yaml: requires[0]: field 'name' must start with a letter"),
    ([{"name": "_auto_vpc_1", "template": "vpc"}], "requires[0]: field 'name'"),
    ([{"name": "a", "template": "vpc"}, {"name": "a", "template": "vpc"}], "requires[1]: field 'name': 'a' is used twice"),
    ([{"name": "a", "template": "vpc", "params": ["x"]}], "requires[0]: field 'params' must be a mapping"),
    ([{"name": "a", "template": "vpc", "with": {}}], "requires[0]: unknown field 'with'"),
])
def test_parse_requirements_names_the_entry_and_field(data: object, message: str) -> None:
    with pytest.raises(ProvisioningError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_requirements(data, "t.yaml")


# --- plan ------------------------------------------------------------------------------------


def test_plan_orders_a_graph_whatever_the_declaration_order() -> None:
    steps = plan(
        Requirement("web", "ecs_instance", {"vswitch_id": "${sub.vswitch_id}", "security_group_id": "${sg.security_group_id}"}),
        Requirement("sg", "security_group", {"vpc_id": "${net.vpc_id}", "rules": ["tcp:22:0.0.0.0/0"]}),
        Requirement("sub", "vswitch", {"vpc_id": "${net.vpc_id}"}),
        Requirement("net", "vpc", {}),
    )
    names = [name for name, _, _ in steps]
    assert names == ["net", "sg", "sub", "web"]
    assert not any(name.startswith("_auto_") for name in names)


def test_plan_adds_implicit_dependencies_sharing_one_vpc() -> None:
    steps = plan(Requirement("web", "ecs_instance", {"state": "stopped"}))
    assert [(n, t) for n, t, _ in steps] == [("_auto_vpc_1", "vpc"), ("_auto_vswitch_1", "vswitch"),
                                             ("_auto_security_group_1", "security_group"), ("web", "ecs_instance")]
    params = {name: p for name, _, p in steps}
    assert params["_auto_vswitch_1"]["vpc_id"] == "${_auto_vpc_1.vpc_id}"
    assert params["_auto_security_group_1"]["vpc_id"] == "${_auto_vpc_1.vpc_id}"  # same VPC as the vSwitch
    assert params["web"] == {"state": "stopped", "vswitch_id": "${_auto_vswitch_1.vswitch_id}",
                             "security_group_id": "${_auto_security_group_1.security_group_id}"}


def test_implicit_dependencies_reuse_what_the_task_declares() -> None:
    steps = plan(
        Requirement("net", "vpc", {"cidr_block": "10.0.0.0/16"}),
        Requirement("sub", "vswitch", {}),
        Requirement("web", "ecs_instance", {"vswitch_id": "${sub.vswitch_id}"}),
    )
    params = {name: p for name, _, p in steps}
    assert params["sub"]["vpc_id"] == "${net.vpc_id}"
    assert params["_auto_security_group_1"]["vpc_id"] == "${net.vpc_id}"
    assert [n for n, _, _ in steps] == ["net", "sub", "_auto_security_group_1", "web"]


def test_implicit_dependency_follows_the_resources_already_used() -> None:
    """Two VPCs: the instance's security group goes in the VPC of the vSwitch it was given."""
    steps = plan(
        Requirement("a", "vpc", {}), Requirement("b", "vpc", {"cidr_block": "10.0.0.0/16"}),
        Requirement("sub", "vswitch", {"vpc_id": "${b.vpc_id}"}),
        Requirement("web", "ecs_instance", {"vswitch_id": "${sub.vswitch_id}"}),
    )
    assert {n: p for n, _, p in steps}["_auto_security_group_1"]["vpc_id"] == "${b.vpc_id}"


def test_ambiguous_implicit_dependency_is_an_error() -> None:
    message = plan_error(Requirement("a", "vpc", {}), Requirement("b", "vpc", {}), Requirement("sub", "vswitch", {}))
    assert "requires[2] ('sub', template 'vswitch'): params.vpc_id is not given and the plan has 2 vpc resources (a, b)" in message


@pytest.mark.parametrize(("requirements", "message"), [
    ([Requirement("x", "database", {})], "requires[0] ('x', template 'database'): field 'template': unknown template 'database'"),
    ([Requirement("net", "vpc", {"size": 3})], "requires[0] ('net', template 'vpc'): params.size: no such attribute"),
    ([Requirement("web", "ecs_instance", {"state": "paused"})], "params.state: 'paused' is not one of running, stopped"),
    ([Requirement("d", "disk", {"size": "big"})], "params.size: expected int, got str"),
    ([Requirement("sg", "security_group", {"rules": ["tcp:22"]})], "params.rules: rule 'tcp:22' is not protocol:ports:cidr"),
    ([Requirement("sub", "vswitch", {"vpc_id": "${net.vpc_id}"})], "params.vpc_id: ${net.vpc_id} names no requirement"),
    ([Requirement("net", "vpc", {}), Requirement("sub", "vswitch", {"vpc_id": "${net.id}"})],
     "requires[1] ('sub', template 'vswitch'): params.vpc_id: ${net.id}: template 'vpc' has no output 'id'"),
])
def test_plan_errors_name_the_requirement_and_field(requirements: list[Requirement], message: str) -> None:
    assert message in plan_error(*requirements)


def test_plan_reports_cycles() -> None:
    message = plan_error(
        Requirement("a", "vpc", {"name": "${b.vpc_name}-x"}),
        Requirement("b", "vpc", {"name": "${a.vpc_name}"}),
    )
    assert "dependency cycle: a -> b -> a" in message


def test_references_inside_lists_and_dicts_are_resolved() -> None:
    outputs = {"net": {"vpc_id": "vpc-1", "cidr_block": "10.0.0.0/16"}, "n": {"size": 40}}
    value = {"rules": ["tcp:22:${net.cidr_block}"], "nested": {"id": "${net.vpc_id}"}, "size": "${n.size}"}
    assert substitute(value, outputs) == {"rules": ["tcp:22:10.0.0.0/16"], "nested": {"id": "vpc-1"}, "size": 40}
    steps = plan(Requirement("net", "vpc", {"cidr_block": "10.0.0.0/16"}),
                 Requirement("sg", "security_group", {"vpc_id": "${net.vpc_id}", "rules": ["tcp:22:${net.cidr_block}"]}))
    assert [n for n, _, _ in steps] == ["net", "sg"]


# --- provision / destroy -----------------------------------------------------------------------


def test_provision_fills_references_and_destroys_in_reverse(cloud: Cloud) -> None:
    tenant = cloud.tenant("engine")
    engine = engine_for(cloud, tenant)
    requirements = parse_requirements([
        {"name": "web", "template": "ecs_instance",
         "params": {"vswitch_id": "${sub.vswitch_id}", "security_group_id": "${sg.security_group_id}", "name": "web-01"}},
        {"name": "sg", "template": "security_group", "params": {"vpc_id": "${net.vpc_id}", "rules": ["tcp:22:${net.cidr_block}"]}},
        {"name": "sub", "template": "vswitch", "params": {"vpc_id": "${net.vpc_id}", "cidr_block": "10.1.2.0/24"}},
        {"name": "net", "template": "vpc", "params": {"cidr_block": "10.1.0.0/16"}},
        {"name": "ngw", "template": "nat_gateway", "params": {"vswitch_id": "${sub.vswitch_id}"}},
        {"name": "rt", "template": "route_table", "params": {"vswitch_id": "${sub.vswitch_id}",
                                                            "route_destination": "0.0.0.0/0",
                                                            "route_next_hop_id": "${ngw.nat_gateway_id}"}},
        {"name": "ip", "template": "eip", "params": {"instance_id": "${ngw.nat_gateway_id}"}},
    ], "tasks/demo.yaml")
    made = engine.provision(pooled(tenant), requirements)
    out = made.outputs
    assert [r.name for r in made.resources] == ["net", "sg", "sub", "web", "ngw", "rt", "ip"]
    assert out["sub"]["vpc_id"] == out["net"]["vpc_id"] == out["web"]["vpc_id"] == out["rt"]["vpc_id"]
    assert out["web"]["instance_name"] == "web-01" and out["web"]["private_ip"].startswith("10.1.2.")
    group = tenant.sdk.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=out["sg"]["security_group_id"])
    assert [p["SourceCidrIp"] for p in group["Permissions"]] == ["10.1.0.0/16"]
    table = tenant.sdk.call("vpc", "DescribeRouteTables", RouteTableId=out["rt"]["route_table_id"])["RouteTables"][0]
    assert table["VSwitchIds"] == [out["sub"]["vswitch_id"]]

    report = made.report()
    assert report.source == "template" and [r["name"] for r in report.resources] == [r.name for r in made.resources]
    assert f"web (ecs_instance): instance_id={out['web']['instance_id']}" in report.text()

    again = Provisioned.from_dict(made.to_dict())  # destroy may run in another process
    engine.destroy(again)
    assert again.resources == [] and inventory(tenant.provisioner) == set()
    assert non_provisioner_writes(tenant) == []
    deletes = [e["eventName"] for e in reversed(tenant.sdk.call("actiontrail", "LookupEvents", Actor="provisioner",
                                                                PageSize=500)["Events"])
               if e["eventName"].startswith(("Delete", "Release")) and e["errorCode"] is None]
    assert deletes == ["ReleaseEipAddress", "DeleteRouteTable", "DeleteNatGateway", "DeleteInstance", "DeleteVSwitch",
                       "DeleteSecurityGroup", "DeleteVpc"]


def test_failure_in_the_middle_destroys_what_was_created(cloud: Cloud) -> None:
    tenant = cloud.tenant("fails")
    engine = engine_for(cloud, tenant)
    with pytest.raises(ProvisioningError) as info:
        engine.provision(pooled(tenant), [
            Requirement("key", "key_pair", {}),
            Requirement("web", "ecs_instance", {"instance_type": "ecs.impossible.huge"}),
            Requirement("ip", "eip", {}),
        ])
    err = info.value
    assert (err.phase, err.template) == ("create", "ecs_instance")
    assert "requires[1] ('web', template 'ecs_instance'): create failed: InvalidParameter.InstanceType" in str(err)
    assert "what was created is destroyed" in str(err)
    assert inventory(tenant.provisioner) == set()
    assert non_provisioner_writes(tenant) == []


def test_failure_of_verify_destroys_the_resource_too(cloud: Cloud) -> None:
    def never_right(ctx: object, params: object, outputs: dict) -> None:
        raise ProvisioningError(f"{outputs['vpc_id']} is not what was asked for")

    library = TemplateLibrary([replace(LIBRARY.get("vpc"), verify=never_right)], binding=LIBRARY.binding)
    tenant = cloud.tenant("verify")
    engine = engine_for(cloud, tenant, library)
    with pytest.raises(ProvisioningError, match=r"requires\[0\] \('net', template 'vpc'\): verify failed: vpc-") as info:
        engine.provision(pooled(tenant), [Requirement("net", "vpc", {})])
    assert (info.value.phase, info.value.template) == ("verify", "vpc")
    assert inventory(tenant.provisioner) == set()


def test_wait_timeout_during_create_destroys_the_half_made_resource(cloud: Cloud) -> None:
    """An instance that is not Running within the (virtual) timeout: the create fails, but the
    instance exists; the engine destroys it with everything made before it."""
    tenant = cloud.tenant("timeout")
    engine = ProvisioningEngine(LIBRARY, lambda account: tenant.provisioner, waiter=clock_waiter(cloud.advance),
                                wait_timeout_s=5)  # an instance takes 8 virtual seconds to run
    with pytest.raises(ProvisioningError) as info:
        engine.provision(pooled(tenant), [Requirement("web", "ecs_instance", {})])
    assert (info.value.phase, info.value.template) == ("create", "ecs_instance")
    assert "did not become Running" in str(info.value) and "what was created is destroyed" in str(info.value)
    assert inventory(tenant.provisioner) == set()


def test_destroy_reports_what_it_could_not_remove(cloud: Cloud) -> None:
    """An agent that put its own vSwitch into the provisioned VPC blocks the VPC's deletion: destroy
    removes everything else and then says which resource is stuck and why."""
    tenant = cloud.tenant("stuck")
    engine = engine_for(cloud, tenant)
    made = engine.provision(pooled(tenant), [Requirement("net", "vpc", {}), Requirement("ip", "eip", {})])
    tenant.sdk.call("vpc", "CreateVSwitch", VpcId=made.outputs["net"]["vpc_id"], ZoneId="cn-hangzhou-h",
                    CidrBlock="192.168.9.0/24")
    cloud.advance(5)
    with pytest.raises(ProvisioningError, match="vpc 'net': DependencyViolation") as info:
        engine.destroy(made)
    assert info.value.phase == "destroy" and info.value.template == "vpc"
    assert [r.name for r in made.resources] == ["net"]  # the EIP is gone; the VPC is what remains


def test_default_client_and_real_time_waiting_on_a_live_server(live_server: LiveServer) -> None:
    """The production path: the provisioner key from the pooled account, the SDK's own waiting
    (a x20 clock makes the instance run in well under a second)."""
    creds = live_server.admin.create_account("live-engine", password="Passw0rd!2026", balance_cents=100_000)
    account = PooledAccount(creds["account_id"], creds.get("login_name", "root"), "Passw0rd!2026", live_server.url,
                            provisioner_key=(creds["provisioner_key_id"], creds["provisioner_key_secret"]))
    engine = ProvisioningEngine(LIBRARY, wait_timeout_s=30)
    made = engine.provision(account, [Requirement("web", "ecs_instance", {"state": "stopped"})])
    assert [r.name for r in made.resources] == ["_auto_vpc_1", "_auto_vswitch_1", "_auto_security_group_1", "web"]
    engine.destroy(made)
    client = provisioner_client(account)
    try:
        assert inventory(client) == set()
    finally:
        client.close()
