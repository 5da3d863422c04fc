"""NAT gateways: internet access for a VPC through EIPs, placed in one vSwitch.

Creating takes a few seconds; deleting too, and the row disappears when the gateway reaches the
(never visible) Deleted state.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.dependencies import ensure_no_dependents
from stratus.core.errors import incorrect_status, invalid_parameter
from stratus.products.vpc.common import check_description, check_name, keyword_match, sort_items, when
from stratus.products.vpc.models import NAT_LIFECYCLE, NAT_TYPE, Eip, NatGateway, VSwitch, Vpc

PRODUCT = "vpc"


class CreateNatGatewayRequest(CreateRequest):
    VpcId: str = Field(min_length=1)
    VSwitchId: str = Field(min_length=1)
    Spec: Literal["Small", "Middle", "Large"] = "Small"
    NatType: Literal["Enhanced"] = "Enhanced"
    Name: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeNatGatewaysRequest(ListRequest):
    NatGatewayId: str | None = None
    VpcId: str | None = None
    VSwitchId: str | None = None
    Name: str | None = None
    Status: Literal["Creating", "Available", "Deleting"] | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["CreationTime", "Name", "Status", "Spec"] = "CreationTime"
    SortOrder: Literal["asc", "desc"] = "desc"


class NatGatewayIdRequest(ApiRequest):
    NatGatewayId: str = Field(min_length=1)


class ModifyNatGatewayAttributeRequest(NatGatewayIdRequest):
    Name: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class ModifyNatGatewaySpecRequest(NatGatewayIdRequest):
    Spec: Literal["Small", "Middle", "Large"]


def describe_nat(ctx: CallContext, nat: NatGateway) -> dict[str, Any]:
    eips = ctx.db.execute(
        ctx.scoped(Eip).where(Eip.instance_id == nat.id, Eip.instance_type == "Nat").order_by(Eip.id)
    ).scalars()
    return {
        "NatGatewayId": nat.id,
        "Name": nat.name,
        "Description": nat.description,
        "VpcId": nat.vpc_id,
        "VSwitchId": nat.vswitch_id,
        "NatGatewayPrivateInfo": {"VswitchId": nat.vswitch_id},
        "Spec": nat.spec,
        "NatType": nat.nat_type,
        "InstanceChargeType": "PostPaid",
        "Status": nat.status,
        "CreationTime": when(nat.created_at),
        "RegionId": nat.region_id,
        "IpLists": [{"AllocationId": e.id, "IpAddress": e.ip_address} for e in eips],
        "Tags": nat.tags or {},
    }


@action(PRODUCT, "CreateNatGateway", rw="Write", request=CreateNatGatewayRequest)
def create_nat_gateway(ctx: CallContext, req: CreateNatGatewayRequest) -> dict[str, Any]:
    """Create a pay-as-you-go NAT gateway in a vSwitch of the VPC; it is Creating, then Available."""
    vpc = ctx.get(Vpc, req.VpcId)
    vswitch = ctx.get(VSwitch, req.VSwitchId)
    if vswitch.vpc_id != vpc.id:
        raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} does not belong to the VPC {vpc.id}.")
    if vpc.status != "Available":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")
    if vswitch.status != "Available":
        raise incorrect_status("vSwitch", vswitch.id, vswitch.status, "Available")
    name = check_name("Name", req.Name)
    description = check_description(req.Description)
    ctx.check_quota("vpc.nat_gateways", ctx.count(NatGateway))
    ctx.require_positive_balance()
    nat = NatGateway(
        id=ctx.new_id("ngw"), account_id=ctx.principal.account_id, region_id=ctx.region, vpc_id=vpc.id,
        vswitch_id=vswitch.id, spec=req.Spec, nat_type=req.NatType, name=name, description=description,
        created_at=ctx.now, tags={}, status="Creating",
    )
    NAT_LIFECYCLE.begin(nat, "Creating", ctx.now)
    ctx.db.add(nat)
    ctx.reference(NAT_TYPE.type_name, nat.id)
    return {"NatGatewayId": nat.id}


@action(PRODUCT, "DescribeNatGateways", rw="Read", request=DescribeNatGatewaysRequest)
def describe_nat_gateways(ctx: CallContext, req: DescribeNatGatewaysRequest) -> dict[str, Any]:
    """NAT gateways of this region, by id, VPC, vSwitch, name, status or keyword."""
    stmt = ctx.scoped(NatGateway)
    if req.NatGatewayId:
        stmt = stmt.where(NatGateway.id == req.NatGatewayId)
    if req.VpcId:
        stmt = stmt.where(NatGateway.vpc_id == req.VpcId)
    if req.VSwitchId:
        stmt = stmt.where(NatGateway.vswitch_id == req.VSwitchId)
    if req.Name is not None:
        stmt = stmt.where(NatGateway.name == req.Name)
    if req.Status:
        stmt = stmt.where(NatGateway.status == req.Status)
    items = [describe_nat(ctx, row) for row in ctx.db.execute(stmt).scalars() if keyword_match(req.Keyword, row.name, row.id)]
    return page(sort_items(items, req.SortBy, req.SortOrder, "NatGatewayId"), req, "NatGateways")


@action(PRODUCT, "ModifyNatGatewayAttribute", rw="Write", request=ModifyNatGatewayAttributeRequest)
def modify_nat_gateway_attribute(ctx: CallContext, req: ModifyNatGatewayAttributeRequest) -> dict[str, Any]:
    """Rename a NAT gateway or change its description."""
    nat = ctx.get(NatGateway, req.NatGatewayId)
    if req.Name is not None:
        nat.name = check_name("Name", req.Name)
    if req.Description is not None:
        nat.description = check_description(req.Description)
    return {}


@action(PRODUCT, "ModifyNatGatewaySpec", rw="Write", request=ModifyNatGatewaySpecRequest)
def modify_nat_gateway_spec(ctx: CallContext, req: ModifyNatGatewaySpecRequest) -> dict[str, Any]:
    """Change the spec (Small, Middle, Large) of an Available NAT gateway."""
    nat = ctx.get(NatGateway, req.NatGatewayId)
    if nat.status != "Available":
        raise incorrect_status("NAT gateway", nat.id, nat.status, "Available")
    nat.spec = req.Spec
    return {}


@action(PRODUCT, "DeleteNatGateway", rw="Write", request=NatGatewayIdRequest)
def delete_nat_gateway(ctx: CallContext, req: NatGatewayIdRequest) -> dict[str, Any]:
    """Delete an Available NAT gateway with no EIP associated; it is Deleting, then gone."""
    nat = ctx.get(NatGateway, req.NatGatewayId)
    if nat.status != "Available":
        raise incorrect_status("NAT gateway", nat.id, nat.status, "Available")
    ensure_no_dependents(ctx, NAT_TYPE.type_name, nat.id, "NAT gateway")
    NAT_LIFECYCLE.begin(nat, "Deleting", ctx.now)
    return {}


def _remove_when_deleted(db: Any, row: NatGateway, status: str) -> None:
    if status == "Deleted":
        db.delete(row)


NAT_LIFECYCLE.on_enter = _remove_when_deleted
