"""VPC API semantics: validation, quotas, dependencies, asynchronous states, idempotency, audit."""

from __future__ import annotations

import pytest

from stratus.sdk import (
    DependencyViolationError, IdempotencyConflictError, IncorrectStatusError, InsufficientBalanceError,
    InvalidParameterError, NotFoundError, QuotaExceededError, StratusError,
)


def settle(cloud, client, seconds: float = 5) -> None:  # noqa: ANN001
    cloud.advance(seconds)
    client.call("vpc", "DescribeVpcs")  # any call applies due transitions


def make_vpc(cloud, client, cidr: str = "192.168.0.0/16", name: str = "prod-vpc") -> str:  # noqa: ANN001
    vpc = client.call("vpc", "CreateVpc", CidrBlock=cidr, VpcName=name)["VpcId"]
    settle(cloud, client, 3)
    return vpc


def make_vswitch(cloud, client, vpc: str, cidr: str = "192.168.1.0/24", zone: str = "cn-hangzhou-h", name: str = "web-a") -> str:  # noqa: ANN001
    vsw = client.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId=zone, CidrBlock=cidr, VSwitchName=name)["VSwitchId"]
    settle(cloud, client, 3)
    return vsw


# --- VPCs ------------------------------------------------------------------------------------

def test_create_vpc_starts_pending_then_becomes_available_with_system_route_table(cloud, tenant) -> None:
    sdk = tenant.sdk
    created = sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8", VpcName="prod", Description="main network")
    assert created["VpcId"].startswith("vpc-") and created["VRouterId"].startswith("vrt-")
    vpc = sdk.call("vpc", "DescribeVpcAttribute", VpcId=created["VpcId"])
    assert (vpc["Status"], vpc["CidrBlock"], vpc["VpcName"], vpc["RouteTableId"]) == ("Pending", "10.0.0.0/8", "prod", created["RouteTableId"])
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "DeleteVpc", VpcId=created["VpcId"])
    settle(cloud, sdk, 2)
    assert sdk.call("vpc", "DescribeVpcAttribute", VpcId=created["VpcId"])["Status"] == "Available"
    tables = sdk.call("vpc", "DescribeRouteTables", VpcId=created["VpcId"])["RouteTables"]
    assert [(t["RouteTableId"], t["RouteTableType"]) for t in tables] == [(created["RouteTableId"], "System")]
    entries = sdk.call("vpc", "DescribeRouteEntryList", RouteTableId=created["RouteTableId"])["RouteEntrys"]
    assert [(e["DestinationCidrBlock"], e["Type"], e["NextHopType"]) for e in entries] == [("10.0.0.0/8", "System", "local")]


@pytest.mark.parametrize("cidr, fragment", [
    ("8.8.0.0/16", "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16"),
    ("10.0.0.0/25", "between /8 and /24"),
    ("10.0.0.1/16", "host bits"),
    ("10.0.0.0/33", "not a valid IPv4 CIDR block"),
    ("172.32.0.0/16", "subnet of one of them"),
])
def test_create_vpc_rejects_invalid_cidr_blocks(tenant, cidr: str, fragment: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        tenant.sdk.call("vpc", "CreateVpc", CidrBlock=cidr)
    assert err.value.code == "InvalidParameter.CidrBlock"
    assert fragment in err.value.message


@pytest.mark.parametrize("name", ["1vpc", "a", "http://x", "bad name!"])
def test_create_vpc_rejects_invalid_names(tenant, name: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16", VpcName=name)
    assert err.value.code == "InvalidParameter.VpcName"


def test_vpc_quota_is_enforced(cloud, tenant) -> None:
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.vpcs": 1})
    tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16")
    with pytest.raises(QuotaExceededError) as err:
        tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.1.0.0/16")
    assert "vpc.vpcs" in err.value.message


def test_client_token_makes_create_vpc_idempotent(tenant) -> None:
    first = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16", VpcName="once", ClientToken="tok-1")
    again = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16", VpcName="once", ClientToken="tok-1")
    assert again["VpcId"] == first["VpcId"]
    assert tenant.sdk.call("vpc", "DescribeVpcs")["TotalCount"] == 1
    with pytest.raises(IdempotencyConflictError):
        tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.9.0.0/16", VpcName="once", ClientToken="tok-1")


def test_describe_vpcs_pages_filters_and_sorts(cloud, tenant) -> None:
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.vpcs": 20})
    ids = [tenant.sdk.call("vpc", "CreateVpc", CidrBlock=f"10.{i}.0.0/16", VpcName=f"net-{i:02d}")["VpcId"] for i in range(12)]
    first = tenant.sdk.call("vpc", "DescribeVpcs", PageSize=5, PageNumber=1, SortBy="VpcName", SortOrder="asc")
    second = tenant.sdk.call("vpc", "DescribeVpcs", PageSize=5, PageNumber=3, SortBy="VpcName", SortOrder="asc")
    assert first["TotalCount"] == 12 and len(first["Vpcs"]) == 5 and len(second["Vpcs"]) == 2
    assert [v["VpcName"] for v in first["Vpcs"]] == [f"net-{i:02d}" for i in range(5)]
    assert [v["VpcName"] for v in second["Vpcs"]] == ["net-10", "net-11"]
    every = [v["VpcId"] for v in tenant.sdk.paginate("vpc", "DescribeVpcs", "Vpcs")]
    assert sorted(every) == sorted(ids)
    assert tenant.sdk.call("vpc", "DescribeVpcs", Keyword="net-07")["Vpcs"][0]["VpcId"] == ids[7]
    assert tenant.sdk.call("vpc", "DescribeVpcs", VpcName="net-03")["TotalCount"] == 1
    assert tenant.sdk.call("vpc", "DescribeVpcs", VpcIds=f"{ids[1]},{ids[2]}")["TotalCount"] == 2
    assert tenant.sdk.call("vpc", "DescribeVpcs", IsDefault=True)["TotalCount"] == 0


def test_vpcs_are_invisible_to_other_accounts(cloud, tenant, other_tenant) -> None:
    vpc = make_vpc(cloud, tenant.sdk)
    with pytest.raises(NotFoundError):
        other_tenant.sdk.call("vpc", "DescribeVpcAttribute", VpcId=vpc)
    with pytest.raises(NotFoundError):
        other_tenant.sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="192.168.1.0/24")
    assert other_tenant.sdk.call("vpc", "DescribeVpcs")["TotalCount"] == 0


def test_modify_vpc_cidr_must_keep_every_vswitch(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk, "10.0.0.0/8")
    make_vswitch(cloud, sdk, vpc, "10.20.1.0/24")
    with pytest.raises(InvalidParameterError) as err:
        sdk.call("vpc", "ModifyVpcAttribute", VpcId=vpc, CidrBlock="10.0.0.0/16")
    assert "10.20.1.0/24" in err.value.message
    sdk.call("vpc", "ModifyVpcAttribute", VpcId=vpc, CidrBlock="10.16.0.0/12", VpcName="renamed", Description="d")
    attrs = sdk.call("vpc", "DescribeVpcAttribute", VpcId=vpc)
    assert (attrs["CidrBlock"], attrs["VpcName"], attrs["Description"]) == ("10.16.0.0/12", "renamed", "d")
    entries = sdk.call("vpc", "DescribeRouteEntryList", RouteTableId=attrs["RouteTableId"])["RouteEntrys"]
    assert entries[0]["DestinationCidrBlock"] == "10.16.0.0/12"


def test_delete_vpc_is_blocked_by_vswitches_then_succeeds(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    with pytest.raises(DependencyViolationError) as err:
        sdk.call("vpc", "DeleteVpc", VpcId=vpc)
    assert vsw in err.value.message
    sdk.call("vpc", "DeleteVSwitch", VSwitchId=vsw)
    sdk.call("vpc", "DeleteVpc", VpcId=vpc)
    assert sdk.call("vpc", "DescribeVpcs")["TotalCount"] == 0
    assert sdk.call("vpc", "DescribeRouteTables")["TotalCount"] == 0


# --- vSwitches -------------------------------------------------------------------------------

def test_vswitch_cidr_rules(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk, "192.168.0.0/16")
    first = make_vswitch(cloud, sdk, vpc, "192.168.0.0/20", name="web-a")
    cases = [
        ("10.0.0.0/24", "not within the CIDR block 192.168.0.0/16"),
        ("192.168.0.0/30", "between /16 and /29"),
        ("192.168.8.0/24", f"overlaps with the CIDR block 192.168.0.0/20 of vSwitch {first} (web-a)"),
    ]
    for cidr, fragment in cases:
        with pytest.raises(InvalidParameterError) as err:
            sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock=cidr)
        assert err.value.code == "InvalidParameter.CidrBlock"
        assert fragment in err.value.message
    with pytest.raises(InvalidParameterError) as err:
        sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-shanghai-e", CidrBlock="192.168.16.0/24")
    assert err.value.code == "InvalidParameter.ZoneId"


def test_vswitch_needs_an_available_vpc_and_respects_quota(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16")["VpcId"]
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="10.0.1.0/24")
    settle(cloud, sdk, 2)
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.vswitches_per_vpc": 2})
    sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="10.0.1.0/24")
    sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-i", CidrBlock="10.0.2.0/24")
    with pytest.raises(QuotaExceededError):
        sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-j", CidrBlock="10.0.3.0/24")


def test_describe_vswitches_filters_and_available_addresses(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    other = make_vpc(cloud, sdk, "10.0.0.0/16", name="other")
    a = make_vswitch(cloud, sdk, vpc, "192.168.1.0/24", "cn-hangzhou-h")
    make_vswitch(cloud, sdk, vpc, "192.168.2.0/28", "cn-hangzhou-i", name="tiny")
    make_vswitch(cloud, sdk, other, "10.0.1.0/24", "cn-hangzhou-h")
    listed = sdk.call("vpc", "DescribeVSwitches", VpcId=vpc, ZoneId="cn-hangzhou-h")["VSwitches"]
    assert [v["VSwitchId"] for v in listed] == [a]
    assert listed[0]["AvailableIpAddressCount"] == 252
    assert listed[0]["RouteTable"]["RouteTableType"] == "System"
    tiny = sdk.call("vpc", "DescribeVSwitches", VSwitchName="tiny")["VSwitches"][0]
    assert sdk.call("vpc", "DescribeVSwitchAttributes", VSwitchId=tiny["VSwitchId"])["AvailableIpAddressCount"] == 12
    assert sdk.call("vpc", "DescribeVSwitches", VpcId=vpc)["TotalCount"] == 2


def test_delete_vswitch_is_blocked_by_a_nat_gateway(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    nat = sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw, Spec="Small", Name="egress")["NatGatewayId"]
    attrs = sdk.call("vpc", "DescribeVSwitchAttributes", VSwitchId=vsw)
    assert attrs["CloudResources"] == [{"ResourceType": "NAT gateway", "ResourceCount": 1}]
    assert attrs["AvailableIpAddressCount"] == 251
    with pytest.raises(DependencyViolationError) as err:
        sdk.call("vpc", "DeleteVSwitch", VSwitchId=vsw)
    assert nat in err.value.message
    with pytest.raises(DependencyViolationError):
        sdk.call("vpc", "DeleteVpc", VpcId=vpc)


# --- route tables ----------------------------------------------------------------------------

def test_custom_route_table_association_and_deletion(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    system = sdk.call("vpc", "DescribeVpcAttribute", VpcId=vpc)["RouteTableId"]
    custom = sdk.call("vpc", "CreateRouteTable", VpcId=vpc, RouteTableName="isolated")["RouteTableId"]
    sdk.call("vpc", "AssociateRouteTable", RouteTableId=custom, VSwitchId=vsw)
    tables = {t["RouteTableId"]: t for t in sdk.call("vpc", "DescribeRouteTables", VpcId=vpc)["RouteTables"]}
    assert tables[custom]["VSwitchIds"] == [vsw] and tables[system]["VSwitchIds"] == []
    with pytest.raises(DependencyViolationError):
        sdk.call("vpc", "DeleteRouteTable", RouteTableId=custom)
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "DeleteRouteTable", RouteTableId=system)
    with pytest.raises(DependencyViolationError):
        sdk.call("vpc", "DeleteVpc", VpcId=vpc)
    sdk.call("vpc", "UnassociateRouteTable", RouteTableId=custom, VSwitchId=vsw)
    assert sdk.call("vpc", "DescribeVSwitchAttributes", VSwitchId=vsw)["RouteTable"]["RouteTableId"] == system
    sdk.call("vpc", "DeleteRouteTable", RouteTableId=custom)
    assert sdk.call("vpc", "DescribeRouteTables", VpcId=vpc)["TotalCount"] == 1


def test_route_entries_to_a_nat_gateway(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    table = sdk.call("vpc", "DescribeVpcAttribute", VpcId=vpc)["RouteTableId"]
    nat = sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw)["NatGatewayId"]
    settle(cloud, sdk, 5)
    entry = sdk.call("vpc", "CreateRouteEntry", RouteTableId=table, DestinationCidrBlock="0.0.0.0/0",
                     NextHopType="NatGateway", NextHopId=nat)["RouteEntryId"]
    with pytest.raises(InvalidParameterError) as err:
        sdk.call("vpc", "CreateRouteEntry", RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", NextHopType="NatGateway", NextHopId=nat)
    assert "already has a route to 0.0.0.0/0" in err.value.message
    with pytest.raises(InvalidParameterError) as err:
        sdk.call("vpc", "CreateRouteEntry", RouteTableId=table, DestinationCidrBlock="8.8.8.0/24", NextHopType="Instance", NextHopId=nat)
    assert err.value.code == "InvalidParameter.NextHopId"
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "CreateRouteEntry", RouteTableId=table, DestinationCidrBlock="8.8.8.300/24", NextHopType="NatGateway", NextHopId=nat)
    listed = sdk.call("vpc", "DescribeRouteEntryList", RouteTableId=table)["RouteEntrys"]
    assert [(e["Type"], e["Status"]) for e in listed] == [("System", "Available"), ("Custom", "Pending")]
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "DeleteRouteEntry", RouteEntryId=entry)
    with pytest.raises(DependencyViolationError):
        sdk.call("vpc", "DeleteNatGateway", NatGatewayId=nat)
    settle(cloud, sdk, 2)
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "DeleteRouteEntry", RouteEntryId=listed[0]["RouteEntryId"])
    sdk.call("vpc", "DeleteRouteEntry", RouteTableId=table, DestinationCidrBlock="0.0.0.0/0")
    assert sdk.call("vpc", "DescribeRouteEntryList", RouteTableId=table)["TotalCount"] == 1


# --- EIPs ------------------------------------------------------------------------------------

def test_eip_state_machine_with_a_nat_gateway(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    nat = sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw)["NatGatewayId"]
    eip = sdk.call("vpc", "AllocateEipAddress", Bandwidth=10, InternetChargeType="PayByTraffic", Name="egress-ip")
    assert eip["EipAddress"].startswith("47.")
    allocation = eip["AllocationId"]
    with pytest.raises(IncorrectStatusError):  # the NAT gateway is still Creating
        sdk.call("vpc", "AssociateEipAddress", AllocationId=allocation, InstanceId=nat, InstanceType="Nat")
    settle(cloud, sdk, 5)
    sdk.call("vpc", "AssociateEipAddress", AllocationId=allocation, InstanceId=nat, InstanceType="Nat")

    def status() -> str:
        return sdk.call("vpc", "DescribeEipAddresses", AllocationId=allocation)["EipAddresses"][0]["Status"]

    assert status() == "Associating"
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "ReleaseEipAddress", AllocationId=allocation)
    cloud.advance(2)
    assert status() == "InUse"
    assert sdk.call("vpc", "DescribeEipAddresses", AssociatedInstanceId=nat)["TotalCount"] == 1
    assert sdk.call("vpc", "DescribeNatGateways", NatGatewayId=nat)["NatGateways"][0]["IpLists"][0]["AllocationId"] == allocation
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "ReleaseEipAddress", AllocationId=allocation)
    with pytest.raises(DependencyViolationError) as err:
        sdk.call("vpc", "DeleteNatGateway", NatGatewayId=nat)
    assert allocation in err.value.message
    sdk.call("vpc", "UnassociateEipAddress", AllocationId=allocation)
    assert status() == "Unassociating"
    cloud.advance(2)
    item = sdk.call("vpc", "DescribeEipAddresses", AllocationId=allocation)["EipAddresses"][0]
    assert (item["Status"], item["InstanceId"]) == ("Available", "")
    sdk.call("vpc", "ModifyEipAddressAttribute", AllocationId=allocation, Bandwidth=50, Name="renamed")
    item = sdk.call("vpc", "DescribeEipAddresses", Status="Available")["EipAddresses"][0]
    assert (item["Bandwidth"], item["Name"]) == ("50", "renamed")
    sdk.call("vpc", "ReleaseEipAddress", AllocationId=allocation)
    assert sdk.call("vpc", "DescribeEipAddresses")["TotalCount"] == 0


def test_eip_allocation_rules(cloud, tenant) -> None:
    sdk = tenant.sdk
    with pytest.raises(InvalidParameterError) as err:
        sdk.call("vpc", "AllocateEipAddress", Bandwidth=201)
    assert err.value.code == "InvalidParameter.Bandwidth"
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "AllocateEipAddress", InternetChargeType="PayByDream")
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.eips": 1})
    first = sdk.call("vpc", "AllocateEipAddress")
    with pytest.raises(QuotaExceededError):
        sdk.call("vpc", "AllocateEipAddress")
    assert sdk.call("vpc", "DescribeEipAddresses", EipAddress=first["EipAddress"])["EipAddresses"][0]["Bandwidth"] == "5"
    with pytest.raises(NotFoundError):
        sdk.call("vpc", "AssociateEipAddress", AllocationId=first["AllocationId"], InstanceId="i-doesnotexist")
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "AssociateEipAddress", AllocationId=first["AllocationId"], InstanceId=first["AllocationId"], InstanceType="Nat")


def test_pay_as_you_go_resources_need_a_positive_balance(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    vsw = make_vswitch(cloud, sdk, vpc)
    cloud.admin.set_balance(tenant.account_id, 0)
    with pytest.raises(InsufficientBalanceError):
        sdk.call("vpc", "AllocateEipAddress")
    with pytest.raises(InsufficientBalanceError):
        sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw)


def test_eip_addresses_are_deterministic_per_seed(cloud, tenant) -> None:
    from tests.conftest import make_cloud

    again = make_cloud()
    try:
        twin = again.tenant("alpha")
        ours = [tenant.sdk.call("vpc", "AllocateEipAddress")["EipAddress"] for _ in range(3)]
        theirs = [twin.sdk.call("vpc", "AllocateEipAddress")["EipAddress"] for _ in range(3)]
        assert ours == theirs and len(set(ours)) == 3
    finally:
        again.runtime.close()


# --- NAT gateways ----------------------------------------------------------------------------

def test_nat_gateway_lifecycle_and_quota(cloud, tenant) -> None:
    sdk = tenant.sdk
    vpc = make_vpc(cloud, sdk)
    other = make_vpc(cloud, sdk, "10.0.0.0/16", "other")
    vsw = make_vswitch(cloud, sdk, vpc)
    foreign = make_vswitch(cloud, sdk, other, "10.0.1.0/24")
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=foreign)
    with pytest.raises(InvalidParameterError):
        sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw, Spec="Huge")
    cloud.admin.set_quotas(tenant.account_id, **{"vpc.nat_gateways": 1})
    nat = sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw, Name="egress")["NatGatewayId"]
    with pytest.raises(QuotaExceededError):
        sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw)
    with pytest.raises(IncorrectStatusError):
        sdk.call("vpc", "DeleteNatGateway", NatGatewayId=nat)
    settle(cloud, sdk, 5)
    sdk.call("vpc", "ModifyNatGatewayAttribute", NatGatewayId=nat, Name="egress-2")
    item = sdk.call("vpc", "DescribeNatGateways", VpcId=vpc)["NatGateways"][0]
    assert (item["Status"], item["Name"], item["Spec"]) == ("Available", "egress-2", "Small")
    sdk.call("vpc", "DeleteNatGateway", NatGatewayId=nat)
    assert sdk.call("vpc", "DescribeNatGateways")["NatGateways"][0]["Status"] == "Deleting"
    settle(cloud, sdk, 3)
    assert sdk.call("vpc", "DescribeNatGateways")["TotalCount"] == 0
    events = sdk.call("actiontrail", "LookupEvents", EventName="NatGateway:StateChange", ResourceId=nat)["Events"]
    assert sorted(e["responseElements"]["Status"] for e in events) == ["Available", "Deleted"]
    sdk.call("vpc", "DeleteVSwitch", VSwitchId=vsw)


# --- audit -----------------------------------------------------------------------------------

def test_create_vpc_leaves_one_sdk_audit_record(cloud, tenant) -> None:
    vpc = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16", VpcName="audited")["VpcId"]
    cloud.advance(600)  # audit delivery delay
    events = tenant.sdk.call("actiontrail", "LookupEvents", EventName="CreateVpc")["Events"]
    assert len(events) == 1
    event = events[0]
    assert (event["actor"], event["eventRW"], event["errorCode"]) == ("sdk", "Write", None)
    assert event["responseElements"]["VpcId"] == vpc
    assert event["referencedResources"]["ACS::VPC::VPC"] == [vpc]


def test_failed_calls_are_audited_with_their_error_code(cloud, tenant) -> None:
    with pytest.raises(StratusError):
        tenant.sdk.call("vpc", "CreateVpc", CidrBlock="1.2.3.0/24")
    cloud.advance(600)
    events = tenant.sdk.call("actiontrail", "LookupEvents", EventName="CreateVpc", ErrorCode="*")["Events"]
    assert len(events) == 1 and events[0]["errorCode"] == "InvalidParameter.CidrBlock"
