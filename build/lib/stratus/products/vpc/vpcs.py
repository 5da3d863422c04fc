"""VPCs: create (with the system route table and a vRouter), describe, modify, delete."""

from __future__ import annotations

from collections import Counter
from ipaddress import ip_network
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import select

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.dependencies import dependents, ensure_no_dependents
from stratus.core.errors import incorrect_status, invalid_parameter
from stratus.products.vpc.common import (
    DEFAULT_VPC_CIDR, check_description, check_name, ids_param, keyword_match, sort_items, vpc_cidr, when,
)
from stratus.products.vpc.models import (
    VPC_LIFECYCLE, VPC_TYPE, NatGateway, RouteEntry, RouteTable, VSwitch, Vpc,
)
from stratus.products.vpc.route_tables import create_route_table, delete_route_table_rows, system_table_of

PRODUCT = "vpc"


class CreateVpcRequest(CreateRequest):
    CidrBlock: str = Field(DEFAULT_VPC_CIDR, min_length=1, max_length=43)
    VpcName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeVpcsRequest(ListRequest):
    VpcId: str | None = None
    VpcIds: str | list[str] | None = None
    VpcName: str | None = None
    IsDefault: bool | None = None
    Status: Literal["Pending", "Available"] | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["CreationTime", "VpcName", "CidrBlock", "Status", "VpcId"] = "CreationTime"
    SortOrder: Literal["asc", "desc"] = "desc"


class VpcIdRequest(ApiRequest):
    VpcId: str = Field(min_length=1)


class ModifyVpcAttributeRequest(VpcIdRequest):
    VpcName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)
    CidrBlock: str | None = Field(None, max_length=43)


def describe_vpc(ctx: CallContext, vpc: Vpc) -> dict[str, Any]:
    """The API shape of one VPC, with the ids of what it contains."""
    vswitch_ids = ctx.db.execute(ctx.scoped(VSwitch).where(VSwitch.vpc_id == vpc.id).order_by(VSwitch.id)).scalars()
    tables = ctx.db.execute(ctx.scoped(RouteTable).where(RouteTable.vpc_id == vpc.id).order_by(RouteTable.id)).scalars().all()
    nat_ids = ctx.db.execute(ctx.scoped(NatGateway).where(NatGateway.vpc_id == vpc.id).order_by(NatGateway.id)).scalars()
    system = next((t for t in tables if t.table_type == "System"), None)
    return {
        "VpcId": vpc.id,
        "VpcName": vpc.name,
        "Description": vpc.description,
        "CidrBlock": vpc.cidr_block,
        "Status": vpc.status,
        "IsDefault": vpc.is_default,
        "CreationTime": when(vpc.created_at),
        "RegionId": vpc.region_id,
        "VRouterId": vpc.vrouter_id,
        "RouteTableId": system.id if system else None,
        "RouteTableIds": [t.id for t in tables],
        "VSwitchIds": [v.id for v in vswitch_ids],
        "NatGatewayIds": [n.id for n in nat_ids],
        "Tags": vpc.tags or {},
    }


def require_available(vpc: Vpc) -> None:
    if vpc.status != "Available":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")


@action(PRODUCT, "CreateVpc", rw="Write", request=CreateVpcRequest)
def create_vpc(ctx: CallContext, req: CreateVpcRequest) -> dict[str, Any]:
    """Create a VPC with its vRouter and system route table; it is Pending for a moment, then Available."""
    network = vpc_cidr(req.CidrBlock)
    name = check_name("VpcName", req.VpcName)
    description = check_description(req.Description)
    ctx.check_quota("vpc.vpcs", ctx.count(Vpc))
    vpc = Vpc(
        id=ctx.new_id("vpc"), account_id=ctx.principal.account_id, region_id=ctx.region, name=name,
        description=description, cidr_block=str(network), vrouter_id=ctx.new_id("vrt"), created_at=ctx.now,
        status="Pending", tags={},
    )
    VPC_LIFECYCLE.begin(vpc, "Pending", ctx.now)
    ctx.db.add(vpc)
    ctx.db.flush()
    table = create_route_table(ctx, vpc, "System", name="")
    ctx.reference(VPC_TYPE.type_name, vpc.id)
    return {"VpcId": vpc.id, "VRouterId": vpc.vrouter_id, "RouteTableId": table.id}


@action(PRODUCT, "DescribeVpcs", rw="Read", request=DescribeVpcsRequest)
def describe_vpcs(ctx: CallContext, req: DescribeVpcsRequest) -> dict[str, Any]:
    """VPCs of this region, filtered by id, name, default flag, status or a keyword on name and id."""
    wanted = set(ids_param(req.VpcIds)) | ({req.VpcId} if req.VpcId else set())
    rows = ctx.db.execute(ctx.scoped(Vpc)).scalars().all()
    items = [
        describe_vpc(ctx, vpc) for vpc in rows
        if (not wanted or vpc.id in wanted)
        and (req.VpcName is None or vpc.name == req.VpcName)
        and (req.IsDefault is None or vpc.is_default == req.IsDefault)
        and (req.Status is None or vpc.status == req.Status)
        and keyword_match(req.Keyword, vpc.name, vpc.id)
    ]
    return page(sort_items(items, req.SortBy, req.SortOrder, "VpcId"), req, "Vpcs")


@action(PRODUCT, "DescribeVpcAttribute", rw="Read", request=VpcIdRequest)
def describe_vpc_attribute(ctx: CallContext, req: VpcIdRequest) -> dict[str, Any]:
    """One VPC's attributes, with the cloud resources of every product that depend on it."""
    vpc = ctx.get(Vpc, req.VpcId)
    found = dependents(ctx, VPC_TYPE.type_name, vpc.id)
    per_kind = Counter(kind for kind, _ in found)
    return describe_vpc(ctx, vpc) | {
        "CloudResources": [{"ResourceType": kind, "ResourceCount": n} for kind, n in sorted(per_kind.items())],
    }


@action(PRODUCT, "ModifyVpcAttribute", rw="Write", request=ModifyVpcAttributeRequest)
def modify_vpc_attribute(ctx: CallContext, req: ModifyVpcAttributeRequest) -> dict[str, Any]:
    """Rename a VPC, change its description, or change its CIDR block if every vSwitch still fits."""
    vpc = ctx.get(Vpc, req.VpcId)
    if req.VpcName is not None:
        vpc.name = check_name("VpcName", req.VpcName)
    if req.Description is not None:
        vpc.description = check_description(req.Description)
    if req.CidrBlock is not None and req.CidrBlock != vpc.cidr_block:
        require_available(vpc)
        network = vpc_cidr(req.CidrBlock)
        vswitches = ctx.db.execute(ctx.scoped(VSwitch).where(VSwitch.vpc_id == vpc.id).order_by(VSwitch.id)).scalars()
        for vsw in vswitches:
            if not ip_network(vsw.cidr_block).subnet_of(network):
                raise invalid_parameter(
                    "CidrBlock",
                    f"The specified CidrBlock {req.CidrBlock} does not contain the CIDR block {vsw.cidr_block} "
                    f"of vSwitch {vsw.id}.",
                )
        old = vpc.cidr_block
        vpc.cidr_block = str(network)
        entries = ctx.db.execute(
            ctx.scoped(RouteEntry).where(RouteEntry.entry_type == "System", RouteEntry.destination_cidr == old)
            .where(RouteEntry.route_table_id.in_(select(RouteTable.id).where(RouteTable.vpc_id == vpc.id)))
        ).scalars()
        for entry in entries:
            entry.destination_cidr = vpc.cidr_block
    return {}


@action(PRODUCT, "DeleteVpc", rw="Write", request=VpcIdRequest)
def delete_vpc(ctx: CallContext, req: VpcIdRequest) -> dict[str, Any]:
    """Delete an empty VPC; vSwitches, custom route tables, NAT gateways and security groups must go first."""
    vpc = ctx.get(Vpc, req.VpcId)
    if vpc.status == "Pending":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")
    ensure_no_dependents(ctx, VPC_TYPE.type_name, vpc.id, "VPC")
    system = system_table_of(ctx, vpc.id)
    if system is not None:
        delete_route_table_rows(ctx, system)
    ctx.db.delete(vpc)
    return {}
