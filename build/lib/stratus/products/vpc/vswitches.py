"""vSwitches: subnets of a VPC in one zone; instances and NAT gateways live in them."""

from __future__ import annotations

from collections import Counter
from ipaddress import ip_network
from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.dependencies import dependents, ensure_no_dependents
from stratus.core.errors import incorrect_status, invalid_parameter
from stratus.core.regions import check_zone
from stratus.products.vpc.common import (
    RESERVED_ADDRESSES_PER_VSWITCH, check_description, check_name, keyword_match, parse_cidr, sort_items, when,
)
from stratus.products.vpc.models import VSWITCH_LIFECYCLE, VSWITCH_TYPE, VSwitch, Vpc
from stratus.products.vpc.route_tables import system_table_of

PRODUCT = "vpc"


class CreateVSwitchRequest(CreateRequest):
    VpcId: str = Field(min_length=1)
    ZoneId: str = Field(min_length=1)
    CidrBlock: str = Field(min_length=1, max_length=43)
    VSwitchName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeVSwitchesRequest(ListRequest):
    VpcId: str | None = None
    ZoneId: str | None = None
    VSwitchId: str | None = None
    VSwitchName: str | None = None
    RouteTableId: str | None = None
    Status: Literal["Pending", "Available"] | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["CreationTime", "VSwitchName", "CidrBlock", "ZoneId", "Status", "VpcId"] = "CreationTime"
    SortOrder: Literal["asc", "desc"] = "desc"


class VSwitchIdRequest(ApiRequest):
    VSwitchId: str = Field(min_length=1)


class ModifyVSwitchAttributeRequest(VSwitchIdRequest):
    VSwitchName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


def describe_vswitch(ctx: CallContext, vswitch: VSwitch, system_tables: dict[str, str] | None = None) -> dict[str, Any]:
    """One vSwitch, with what is inside it (CloudResources) and how many addresses remain free."""
    found = dependents(ctx, VSWITCH_TYPE.type_name, vswitch.id)
    per_kind = Counter(kind for kind, _ in found)
    total = ip_network(vswitch.cidr_block).num_addresses
    if vswitch.route_table_id:
        route_table = {"RouteTableId": vswitch.route_table_id, "RouteTableType": "Custom"}
    else:
        system_id = (system_tables or {}).get(vswitch.vpc_id)
        if system_id is None:
            table = system_table_of(ctx, vswitch.vpc_id)
            system_id = table.id if table else None
            if system_tables is not None and system_id:
                system_tables[vswitch.vpc_id] = system_id
        route_table = {"RouteTableId": system_id, "RouteTableType": "System"}
    return {
        "VSwitchId": vswitch.id,
        "VSwitchName": vswitch.name,
        "Description": vswitch.description,
        "VpcId": vswitch.vpc_id,
        "ZoneId": vswitch.zone_id,
        "CidrBlock": vswitch.cidr_block,
        "Status": vswitch.status,
        "IsDefault": False,
        "CreationTime": when(vswitch.created_at),
        "RegionId": vswitch.region_id,
        "AvailableIpAddressCount": max(0, total - RESERVED_ADDRESSES_PER_VSWITCH - len(found)),
        "RouteTable": route_table,
        "CloudResources": [{"ResourceType": kind, "ResourceCount": n} for kind, n in sorted(per_kind.items())],
        "ResourceIds": [rid for _, rid in found],
        "Tags": vswitch.tags or {},
    }


def _check_cidr(ctx: CallContext, vpc: Vpc, value: str) -> str:
    network = parse_cidr("CidrBlock", value)
    if not 16 <= network.prefixlen <= 29:
        raise invalid_parameter("CidrBlock", f"The specified CidrBlock {value!r} is invalid: the mask of a vSwitch must be between /16 and /29.")
    if not network.subnet_of(ip_network(vpc.cidr_block)):  # type: ignore[arg-type]
        raise invalid_parameter("CidrBlock", f"The specified CidrBlock {value!r} is not within the CIDR block {vpc.cidr_block} of the VPC {vpc.id}.")
    siblings = ctx.db.execute(ctx.scoped(VSwitch).where(VSwitch.vpc_id == vpc.id).order_by(VSwitch.id)).scalars()
    for other in siblings:
        if network.overlaps(ip_network(other.cidr_block)):
            label = f"{other.id} ({other.name})" if other.name else other.id
            raise invalid_parameter(
                "CidrBlock",
                f"The specified CidrBlock {network} overlaps with the CIDR block {other.cidr_block} of vSwitch {label}.",
            )
    return str(network)


@action(PRODUCT, "CreateVSwitch", rw="Write", request=CreateVSwitchRequest)
def create_vswitch(ctx: CallContext, req: CreateVSwitchRequest) -> dict[str, Any]:
    """Create a vSwitch in a zone; its CIDR block must sit inside the VPC's and overlap no sibling."""
    vpc = ctx.get(Vpc, req.VpcId)
    check_zone(ctx.region, req.ZoneId)
    name = check_name("VSwitchName", req.VSwitchName)
    description = check_description(req.Description)
    if vpc.status != "Available":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")
    cidr = _check_cidr(ctx, vpc, req.CidrBlock)
    ctx.check_quota("vpc.vswitches_per_vpc", ctx.count(VSwitch, VSwitch.vpc_id == vpc.id))
    vswitch = VSwitch(
        id=ctx.new_id("vsw"), account_id=ctx.principal.account_id, region_id=ctx.region, vpc_id=vpc.id,
        zone_id=req.ZoneId, cidr_block=cidr, name=name, description=description, created_at=ctx.now, tags={},
        status="Pending",
    )
    VSWITCH_LIFECYCLE.begin(vswitch, "Pending", ctx.now)
    ctx.db.add(vswitch)
    ctx.reference(VSWITCH_TYPE.type_name, vswitch.id)
    return {"VSwitchId": vswitch.id}


@action(PRODUCT, "DescribeVSwitches", rw="Read", request=DescribeVSwitchesRequest)
def describe_vswitches(ctx: CallContext, req: DescribeVSwitchesRequest) -> dict[str, Any]:
    """vSwitches of this region, by VPC, zone, id, name, route table, status or keyword."""
    stmt = ctx.scoped(VSwitch)
    if req.VpcId:
        stmt = stmt.where(VSwitch.vpc_id == req.VpcId)
    if req.ZoneId:
        stmt = stmt.where(VSwitch.zone_id == req.ZoneId)
    if req.VSwitchId:
        stmt = stmt.where(VSwitch.id == req.VSwitchId)
    if req.VSwitchName is not None:
        stmt = stmt.where(VSwitch.name == req.VSwitchName)
    if req.Status:
        stmt = stmt.where(VSwitch.status == req.Status)
    rows = [row for row in ctx.db.execute(stmt).scalars() if keyword_match(req.Keyword, row.name, row.id)]
    system_tables: dict[str, str] = {}
    items = [describe_vswitch(ctx, row, system_tables) for row in rows]
    if req.RouteTableId:
        items = [item for item in items if item["RouteTable"]["RouteTableId"] == req.RouteTableId]
    return page(sort_items(items, req.SortBy, req.SortOrder, "VSwitchId"), req, "VSwitches")


@action(PRODUCT, "DescribeVSwitchAttributes", rw="Read", request=VSwitchIdRequest)
def describe_vswitch_attributes(ctx: CallContext, req: VSwitchIdRequest) -> dict[str, Any]:
    """One vSwitch, with its free address count and the cloud resources inside it."""
    return describe_vswitch(ctx, ctx.get(VSwitch, req.VSwitchId))


@action(PRODUCT, "ModifyVSwitchAttribute", rw="Write", request=ModifyVSwitchAttributeRequest)
def modify_vswitch_attribute(ctx: CallContext, req: ModifyVSwitchAttributeRequest) -> dict[str, Any]:
    """Rename a vSwitch or change its description."""
    vswitch = ctx.get(VSwitch, req.VSwitchId)
    if req.VSwitchName is not None:
        vswitch.name = check_name("VSwitchName", req.VSwitchName)
    if req.Description is not None:
        vswitch.description = check_description(req.Description)
    return {}


@action(PRODUCT, "DeleteVSwitch", rw="Write", request=VSwitchIdRequest)
def delete_vswitch(ctx: CallContext, req: VSwitchIdRequest) -> dict[str, Any]:
    """Delete an empty vSwitch; instances, NAT gateways and other resources in it must go first."""
    vswitch = ctx.get(VSwitch, req.VSwitchId)
    if vswitch.status != "Available":
        raise incorrect_status("vSwitch", vswitch.id, vswitch.status, "Available")
    ensure_no_dependents(ctx, VSWITCH_TYPE.type_name, vswitch.id, "vSwitch")
    ctx.db.delete(vswitch)
    return {}
