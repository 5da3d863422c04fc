"""Route tables and route entries.

Every VPC has one system route table, created with it, holding a System entry that routes the
VPC's own CIDR block locally. Custom tables can be associated with vSwitches of the same VPC;
a vSwitch without a custom table uses the system one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.dependencies import ensure_no_dependents
from stratus.core.errors import incorrect_status, invalid_parameter, missing_parameter, not_found
from stratus.core.resources import type_for_id
from stratus.products.vpc.common import check_description, check_name, keyword_match, parse_cidr, sort_items, when
from stratus.products.vpc.models import (
    ROUTE_ENTRY_LIFECYCLE, ROUTE_ENTRY_TYPE, ROUTE_TABLE_TYPE, RouteEntry, RouteTable, VSwitch, Vpc,
)

PRODUCT = "vpc"
# NextHopType -> the resource type its NextHopId must be.
NEXT_HOP_TYPES = {"Instance": "ACS::ECS::Instance", "NatGateway": "ACS::VPC::NatGateway", "HaVip": "ACS::VPC::HaVip"}


# --- helpers other modules use ---------------------------------------------------------------

def system_table_of(ctx: CallContext, vpc_id: str) -> RouteTable | None:
    stmt = ctx.scoped(RouteTable).where(RouteTable.vpc_id == vpc_id, RouteTable.table_type == "System")
    return ctx.db.execute(stmt).scalars().first()


def create_route_table(ctx: CallContext, vpc: Vpc, table_type: str, name: str, description: str = "") -> RouteTable:
    """A route table with its System entry for the VPC CIDR block (the local route)."""
    table = RouteTable(
        id=ctx.new_id("vtb"), account_id=ctx.principal.account_id, region_id=ctx.region, vpc_id=vpc.id,
        table_type=table_type, status="Available", name=name, description=description, created_at=ctx.now, tags={},
    )
    ctx.db.add(table)
    ctx.db.flush()
    ctx.db.add(RouteEntry(
        id=ctx.new_id("rte"), account_id=ctx.principal.account_id, region_id=ctx.region, route_table_id=table.id,
        destination_cidr=vpc.cidr_block, next_hop_type="local", next_hop_id="", entry_type="System",
        status="Available", created_at=ctx.now, tags={},
    ))
    ctx.reference(ROUTE_TABLE_TYPE.type_name, table.id)
    return table


def delete_route_table_rows(ctx: CallContext, table: RouteTable) -> None:
    for entry in ctx.db.execute(ctx.scoped(RouteEntry).where(RouteEntry.route_table_id == table.id)).scalars():
        ctx.db.delete(entry)
    ctx.db.flush()
    ctx.db.delete(table)


def vswitches_using(ctx: CallContext, table: RouteTable) -> list[VSwitch]:
    """The vSwitches routed by ``table``: associated ones, or for a system table those without a custom table."""
    stmt = ctx.scoped(VSwitch).where(VSwitch.vpc_id == table.vpc_id).order_by(VSwitch.id)
    if table.table_type == "System":
        stmt = stmt.where(VSwitch.route_table_id.is_(None))
    else:
        stmt = stmt.where(VSwitch.route_table_id == table.id)
    return list(ctx.db.execute(stmt).scalars())


def describe_table(ctx: CallContext, table: RouteTable, vrouter_id: str) -> dict[str, Any]:
    return {
        "RouteTableId": table.id,
        "RouteTableName": table.name,
        "Description": table.description,
        "RouteTableType": table.table_type,
        "VpcId": table.vpc_id,
        "VRouterId": vrouter_id,
        "Status": table.status,
        "CreationTime": when(table.created_at),
        "RegionId": table.region_id,
        "VSwitchIds": [v.id for v in vswitches_using(ctx, table)],
        "RouteEntryCount": ctx.count(RouteEntry, RouteEntry.route_table_id == table.id),
    }


def describe_entry(entry: RouteEntry) -> dict[str, Any]:
    return {
        "RouteEntryId": entry.id,
        "RouteEntryName": entry.name,
        "Description": entry.description,
        "RouteTableId": entry.route_table_id,
        "DestinationCidrBlock": entry.destination_cidr,
        "NextHopType": entry.next_hop_type,
        "NextHopId": entry.next_hop_id,
        "Type": entry.entry_type,
        "Status": entry.status,
        "CreationTime": when(entry.created_at),
    }


# --- route tables ----------------------------------------------------------------------------

class CreateRouteTableRequest(CreateRequest):
    VpcId: str = Field(min_length=1)
    RouteTableName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeRouteTablesRequest(ListRequest):
    VpcId: str | None = None
    RouteTableId: str | None = None
    RouteTableName: str | None = None
    RouteTableType: Literal["System", "Custom"] | None = None
    VSwitchId: str | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["CreationTime", "RouteTableName", "RouteTableType"] = "CreationTime"
    SortOrder: Literal["asc", "desc"] = "desc"


class RouteTableIdRequest(ApiRequest):
    RouteTableId: str = Field(min_length=1)


class ModifyRouteTableAttributeRequest(RouteTableIdRequest):
    RouteTableName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class AssociateRouteTableRequest(RouteTableIdRequest):
    VSwitchId: str = Field(min_length=1)


@action(PRODUCT, "CreateRouteTable", rw="Write", request=CreateRouteTableRequest)
def create_custom_route_table(ctx: CallContext, req: CreateRouteTableRequest) -> dict[str, Any]:
    """Create a custom route table in a VPC; associate it with vSwitches to route them differently."""
    vpc = ctx.get(Vpc, req.VpcId)
    if vpc.status != "Available":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")
    name = check_name("RouteTableName", req.RouteTableName)
    table = create_route_table(ctx, vpc, "Custom", name, check_description(req.Description))
    return {"RouteTableId": table.id, "VRouterId": vpc.vrouter_id}


@action(PRODUCT, "DescribeRouteTables", rw="Read", request=DescribeRouteTablesRequest)
def describe_route_tables(ctx: CallContext, req: DescribeRouteTablesRequest) -> dict[str, Any]:
    """Route tables of this region, by VPC, id, name, type, or the vSwitch they route."""
    vrouters = {vpc.id: vpc.vrouter_id for vpc in ctx.db.execute(ctx.scoped(Vpc)).scalars()}
    stmt = ctx.scoped(RouteTable)
    if req.VpcId:
        stmt = stmt.where(RouteTable.vpc_id == req.VpcId)
    if req.RouteTableId:
        stmt = stmt.where(RouteTable.id == req.RouteTableId)
    if req.RouteTableName is not None:
        stmt = stmt.where(RouteTable.name == req.RouteTableName)
    if req.RouteTableType:
        stmt = stmt.where(RouteTable.table_type == req.RouteTableType)
    items = [describe_table(ctx, t, vrouters.get(t.vpc_id, "")) for t in ctx.db.execute(stmt).scalars()
             if keyword_match(req.Keyword, t.name, t.id)]
    if req.VSwitchId:
        items = [item for item in items if req.VSwitchId in item["VSwitchIds"]]
    return page(sort_items(items, req.SortBy, req.SortOrder, "RouteTableId"), req, "RouteTables")


@action(PRODUCT, "ModifyRouteTableAttribute", rw="Write", request=ModifyRouteTableAttributeRequest)
def modify_route_table_attribute(ctx: CallContext, req: ModifyRouteTableAttributeRequest) -> dict[str, Any]:
    """Rename a route table or change its description."""
    table = ctx.get(RouteTable, req.RouteTableId)
    if req.RouteTableName is not None:
        table.name = check_name("RouteTableName", req.RouteTableName)
    if req.Description is not None:
        table.description = check_description(req.Description)
    return {}


def _custom_table_and_vswitch(ctx: CallContext, req: AssociateRouteTableRequest) -> tuple[RouteTable, VSwitch]:
    table = ctx.get(RouteTable, req.RouteTableId)
    vswitch = ctx.get(VSwitch, req.VSwitchId)
    if table.table_type != "Custom":
        raise invalid_parameter("RouteTableId", f"The route table {table.id} is a system route table; only custom route tables can be associated with or unassociated from vSwitches.")
    if vswitch.vpc_id != table.vpc_id:
        raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} and the route table {table.id} belong to different VPCs.")
    return table, vswitch


@action(PRODUCT, "AssociateRouteTable", rw="Write", request=AssociateRouteTableRequest)
def associate_route_table(ctx: CallContext, req: AssociateRouteTableRequest) -> dict[str, Any]:
    """Route a vSwitch through a custom route table of the same VPC."""
    table, vswitch = _custom_table_and_vswitch(ctx, req)
    if vswitch.route_table_id == table.id:
        raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} is already associated with the route table {table.id}.")
    if vswitch.route_table_id is not None:
        raise incorrect_status("vSwitch", vswitch.id, f"associated with the custom route table {vswitch.route_table_id}",
                               "no custom route table; unassociate it first")
    vswitch.route_table_id = table.id
    return {}


@action(PRODUCT, "UnassociateRouteTable", rw="Write", request=AssociateRouteTableRequest)
def unassociate_route_table(ctx: CallContext, req: AssociateRouteTableRequest) -> dict[str, Any]:
    """Return a vSwitch to its VPC's system route table."""
    table, vswitch = _custom_table_and_vswitch(ctx, req)
    if vswitch.route_table_id != table.id:
        raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} is not associated with the route table {table.id}.")
    vswitch.route_table_id = None
    return {}


@action(PRODUCT, "DeleteRouteTable", rw="Write", request=RouteTableIdRequest)
def delete_route_table(ctx: CallContext, req: RouteTableIdRequest) -> dict[str, Any]:
    """Delete a custom route table that no vSwitch uses; its entries go with it."""
    table = ctx.get(RouteTable, req.RouteTableId)
    if table.table_type == "System":
        raise invalid_parameter("RouteTableId",
                                f"The route table {table.id} is the system route table of {table.vpc_id} and cannot be deleted.")
    ensure_no_dependents(ctx, ROUTE_TABLE_TYPE.type_name, table.id, "route table")
    delete_route_table_rows(ctx, table)
    return {}


# --- route entries ---------------------------------------------------------------------------

class CreateRouteEntryRequest(CreateRequest):
    RouteTableId: str = Field(min_length=1)
    DestinationCidrBlock: str = Field(min_length=1, max_length=43)
    NextHopType: Literal["Instance", "NatGateway", "HaVip"] = "Instance"
    NextHopId: str = Field(min_length=1)
    RouteEntryName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeRouteEntryListRequest(ListRequest):
    RouteTableId: str = Field(min_length=1)
    RouteEntryId: str | None = None
    RouteEntryType: Literal["System", "Custom"] | None = None
    DestinationCidrBlock: str | None = None
    NextHopId: str | None = None
    PageSize: int = Field(50, ge=1, le=100)


class DeleteRouteEntryRequest(ApiRequest):
    RouteEntryId: str | None = None
    RouteTableId: str | None = None
    DestinationCidrBlock: str | None = None


def resolve_next_hop(ctx: CallContext, table: RouteTable, hop_type: str, hop_id: str) -> Any:
    """The resource a route points to: it must exist, be of the declared type and sit in the table's VPC."""
    resource_type = type_for_id(hop_id)
    if resource_type is None or resource_type.type_name != NEXT_HOP_TYPES[hop_type]:
        raise invalid_parameter("NextHopId", f"The specified NextHopId {hop_id!r} is not a {hop_type}.")
    row = ctx.get(resource_type.model, hop_id, resource_type.label)
    if getattr(row, "vpc_id", table.vpc_id) != table.vpc_id:
        raise invalid_parameter("NextHopId", f"The next hop {hop_id} is not in the VPC {table.vpc_id} of the route table.")
    return row


@action(PRODUCT, "CreateRouteEntry", rw="Write", request=CreateRouteEntryRequest)
def create_route_entry(ctx: CallContext, req: CreateRouteEntryRequest) -> dict[str, Any]:
    """Add a custom route: traffic to DestinationCidrBlock goes to an instance, a NAT gateway or a HaVip."""
    table = ctx.get(RouteTable, req.RouteTableId)
    destination = str(parse_cidr("DestinationCidrBlock", req.DestinationCidrBlock))
    existing = ctx.db.execute(ctx.scoped(RouteEntry).where(RouteEntry.route_table_id == table.id)).scalars().all()
    clash = next((e for e in existing if e.destination_cidr == destination), None)
    if clash is not None:
        raise invalid_parameter("DestinationCidrBlock",
                                f"The route table {table.id} already has a route to {destination} ({clash.id}).")
    ctx.check_quota("vpc.route_entries_per_table", sum(1 for e in existing if e.entry_type == "Custom"))
    resolve_next_hop(ctx, table, req.NextHopType, req.NextHopId)
    entry = RouteEntry(
        id=ctx.new_id("rte"), account_id=ctx.principal.account_id, region_id=ctx.region, route_table_id=table.id,
        destination_cidr=destination, next_hop_type=req.NextHopType, next_hop_id=req.NextHopId, entry_type="Custom",
        name=check_name("RouteEntryName", req.RouteEntryName), description=check_description(req.Description),
        created_at=ctx.now, tags={}, status="Pending",
    )
    ROUTE_ENTRY_LIFECYCLE.begin(entry, "Pending", ctx.now)
    ctx.db.add(entry)
    ctx.reference(ROUTE_ENTRY_TYPE.type_name, entry.id)
    return {"RouteEntryId": entry.id}


@action(PRODUCT, "DescribeRouteEntryList", rw="Read", request=DescribeRouteEntryListRequest)
def describe_route_entry_list(ctx: CallContext, req: DescribeRouteEntryListRequest) -> dict[str, Any]:
    """Route entries of one route table, system entries first."""
    table = ctx.get(RouteTable, req.RouteTableId)
    stmt = ctx.scoped(RouteEntry).where(RouteEntry.route_table_id == table.id)
    if req.RouteEntryId:
        stmt = stmt.where(RouteEntry.id == req.RouteEntryId)
    if req.RouteEntryType:
        stmt = stmt.where(RouteEntry.entry_type == req.RouteEntryType)
    if req.DestinationCidrBlock:
        stmt = stmt.where(RouteEntry.destination_cidr == req.DestinationCidrBlock)
    if req.NextHopId:
        stmt = stmt.where(RouteEntry.next_hop_id == req.NextHopId)
    rows = sorted(ctx.db.execute(stmt).scalars(), key=lambda e: (e.entry_type != "System", e.created_at, e.id))
    return page([describe_entry(e) for e in rows], req, "RouteEntrys")


@action(PRODUCT, "DeleteRouteEntry", rw="Write", request=DeleteRouteEntryRequest)
def delete_route_entry(ctx: CallContext, req: DeleteRouteEntryRequest) -> dict[str, Any]:
    """Delete a custom route entry, by RouteEntryId or by RouteTableId and DestinationCidrBlock."""
    if req.RouteEntryId:
        entry = ctx.get(RouteEntry, req.RouteEntryId)
    elif req.RouteTableId and req.DestinationCidrBlock:
        table = ctx.get(RouteTable, req.RouteTableId)
        stmt = ctx.scoped(RouteEntry).where(RouteEntry.route_table_id == table.id,
                                            RouteEntry.destination_cidr == req.DestinationCidrBlock)
        entry = ctx.db.execute(stmt).scalars().first()
        if entry is None:
            raise not_found("route entry", f"{table.id}/{req.DestinationCidrBlock}")
        ctx.reference(ROUTE_ENTRY_TYPE.type_name, entry.id)
    else:
        raise missing_parameter("RouteEntryId")
    if entry.entry_type == "System":
        raise invalid_parameter("RouteEntryId",
                                f"The route entry {entry.id} ({entry.destination_cidr}) is a system route entry and cannot be deleted.")
    if entry.status != "Available":
        raise incorrect_status("route entry", entry.id, entry.status, "Available")
    ctx.db.delete(entry)
    return {}

