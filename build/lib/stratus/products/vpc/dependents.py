"""Who depends on VPC resources, registered with the cross-product dependency registry.

Delete actions (here and in ECS) ask ``ensure_no_dependents``; these finders answer for what VPC
knows: vSwitches and tables in a VPC, NAT gateways in a vSwitch, EIPs on an instance or a NAT
gateway, routes that point to an instance or a NAT gateway. ECS registers its own (instances in
a vSwitch, security groups in a VPC) without VPC importing ECS.
"""

from __future__ import annotations

from stratus.api.context import CallContext
from stratus.core.dependencies import register_dependents
from stratus.products.vpc.models import (
    EIP_TYPE, NAT_TYPE, ROUTE_ENTRY_TYPE, ROUTE_TABLE_TYPE, VSWITCH_TYPE, Eip, NatGateway, RouteEntry, RouteTable, VSwitch,
)

ECS_INSTANCE = "ACS::ECS::Instance"


def vswitches_in_vpc(ctx: CallContext, vpc_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(VSwitch).where(VSwitch.vpc_id == vpc_id).order_by(VSwitch.id)).scalars()
    return [(VSWITCH_TYPE.label, row.id) for row in rows]


def custom_route_tables_in_vpc(ctx: CallContext, vpc_id: str) -> list[tuple[str, str]]:
    stmt = ctx.scoped(RouteTable).where(RouteTable.vpc_id == vpc_id, RouteTable.table_type == "Custom").order_by(RouteTable.id)
    return [(ROUTE_TABLE_TYPE.label, row.id) for row in ctx.db.execute(stmt).scalars()]


def nat_gateways_in_vpc(ctx: CallContext, vpc_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(NatGateway).where(NatGateway.vpc_id == vpc_id).order_by(NatGateway.id)).scalars()
    return [(NAT_TYPE.label, row.id) for row in rows]


def nat_gateways_in_vswitch(ctx: CallContext, vswitch_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(NatGateway).where(NatGateway.vswitch_id == vswitch_id).order_by(NatGateway.id)).scalars()
    return [(NAT_TYPE.label, row.id) for row in rows]


def vswitches_on_table(ctx: CallContext, table_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(VSwitch).where(VSwitch.route_table_id == table_id).order_by(VSwitch.id)).scalars()
    return [(VSWITCH_TYPE.label, row.id) for row in rows]


def eips_on(ctx: CallContext, instance_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(Eip).where(Eip.instance_id == instance_id).order_by(Eip.id)).scalars()
    return [(EIP_TYPE.label, row.id) for row in rows]


def routes_to(ctx: CallContext, next_hop_id: str) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(RouteEntry).where(RouteEntry.next_hop_id == next_hop_id).order_by(RouteEntry.id)).scalars()
    return [(ROUTE_ENTRY_TYPE.label, row.id) for row in rows]


def register() -> None:
    register_dependents("ACS::VPC::VPC", vswitches_in_vpc)
    register_dependents("ACS::VPC::VPC", custom_route_tables_in_vpc)
    register_dependents("ACS::VPC::VPC", nat_gateways_in_vpc)
    register_dependents(VSWITCH_TYPE.type_name, nat_gateways_in_vswitch)
    register_dependents(ROUTE_TABLE_TYPE.type_name, vswitches_on_table)
    register_dependents(NAT_TYPE.type_name, eips_on)
    register_dependents(NAT_TYPE.type_name, routes_to)
    register_dependents(ECS_INSTANCE, eips_on)
    register_dependents(ECS_INSTANCE, routes_to)


register()
