"""Elastic IP addresses: allocate, associate with an ECS instance or a NAT gateway, release.

The instance an EIP is associated with belongs to another product; it is resolved through the
resource-type registry (``type_for_id``), never by importing ECS.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.errors import incorrect_status, invalid_parameter, not_found
from stratus.core.resources import type_for_id
from stratus.products.vpc.common import check_description, check_name, ids_param, keyword_match, sort_items, when
from stratus.products.vpc.models import EIP_LIFECYCLE, EIP_TYPE, Eip

PRODUCT = "vpc"
# InstanceType -> the resource type of InstanceId, and the states that instance must be in.
ASSOCIABLE = {
    "EcsInstance": ("ACS::ECS::Instance", ("Running", "Stopped")),
    "Nat": ("ACS::VPC::NatGateway", ("Available",)),
}
PUBLIC_POOL_FIRST_OCTET = 47


class AllocateEipAddressRequest(CreateRequest):
    Bandwidth: int = Field(5, ge=1, le=200)
    InternetChargeType: Literal["PayByTraffic", "PayByBandwidth"] = "PayByTraffic"
    InstanceChargeType: Literal["PostPaid"] = "PostPaid"
    Name: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


class DescribeEipAddressesRequest(ListRequest):
    AllocationId: str | None = None
    AllocationIds: str | list[str] | None = None
    EipAddress: str | None = None
    Status: Literal["Associating", "Unassociating", "InUse", "Available"] | None = None
    AssociatedInstanceId: str | None = None
    AssociatedInstanceType: Literal["EcsInstance", "Nat"] | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["AllocationTime", "Name", "IpAddress", "Status", "Bandwidth"] = "AllocationTime"
    SortOrder: Literal["asc", "desc"] = "desc"


class AllocationIdRequest(ApiRequest):
    AllocationId: str = Field(min_length=1)


class AssociateEipAddressRequest(AllocationIdRequest):
    InstanceId: str = Field(min_length=1)
    InstanceType: Literal["EcsInstance", "Nat"] = "EcsInstance"


class UnassociateEipAddressRequest(AllocationIdRequest):
    InstanceId: str | None = None
    InstanceType: Literal["EcsInstance", "Nat"] | None = None


class ModifyEipAddressAttributeRequest(AllocationIdRequest):
    Bandwidth: int | None = Field(None, ge=1, le=200)
    Name: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)


def describe_eip(eip: Eip) -> dict[str, Any]:
    return {
        "AllocationId": eip.id,
        "IpAddress": eip.ip_address,
        "Name": eip.name,
        "Description": eip.description,
        "Bandwidth": str(eip.bandwidth_mbps),
        "InternetChargeType": eip.internet_charge_type,
        "ChargeType": "PostPaid",
        "Status": eip.status,
        "InstanceId": eip.instance_id or "",
        "InstanceType": eip.instance_type or "",
        "AllocationTime": when(eip.created_at),
        "RegionId": eip.region_id,
        "Tags": eip.tags or {},
    }


def public_ip_for(allocation_id: str, salt: int = 0) -> str:
    """A stable public address derived from the allocation id: same seed, same addresses."""
    digest = hashlib.sha256(f"{allocation_id}:{salt}".encode()).digest()
    return f"{PUBLIC_POOL_FIRST_OCTET}.{96 + digest[0] % 32}.{digest[1]}.{1 + digest[2] % 254}"


def _unique_ip(ctx: CallContext, allocation_id: str) -> str:
    taken = set(ctx.db.execute(ctx.scoped(Eip, regional=False).with_only_columns(Eip.ip_address)).scalars())
    salt = 0
    while (address := public_ip_for(allocation_id, salt)) in taken:
        salt += 1
    return address


@action(PRODUCT, "AllocateEipAddress", rw="Write", request=AllocateEipAddressRequest)
def allocate_eip_address(ctx: CallContext, req: AllocateEipAddressRequest) -> dict[str, Any]:
    """Allocate a pay-as-you-go elastic IP address; it is Available until associated."""
    name = check_name("Name", req.Name)
    description = check_description(req.Description)
    ctx.check_quota("vpc.eips", ctx.count(Eip))
    ctx.require_positive_balance()
    allocation_id = ctx.new_id("eip")
    eip = Eip(
        id=allocation_id, account_id=ctx.principal.account_id, region_id=ctx.region, name=name, description=description,
        ip_address=_unique_ip(ctx, allocation_id), bandwidth_mbps=req.Bandwidth,
        internet_charge_type=req.InternetChargeType, status="Available", created_at=ctx.now, tags={},
    )
    EIP_LIFECYCLE.begin(eip, "Available", ctx.now)
    ctx.db.add(eip)
    ctx.reference(EIP_TYPE.type_name, eip.id)
    return {"AllocationId": eip.id, "EipAddress": eip.ip_address}


@action(PRODUCT, "DescribeEipAddresses", rw="Read", request=DescribeEipAddressesRequest)
def describe_eip_addresses(ctx: CallContext, req: DescribeEipAddressesRequest) -> dict[str, Any]:
    """EIPs of this region, by allocation id, address, status or the instance they are associated with."""
    wanted = set(ids_param(req.AllocationIds)) | ({req.AllocationId} if req.AllocationId else set())
    stmt = ctx.scoped(Eip)
    if wanted:
        stmt = stmt.where(Eip.id.in_(wanted))
    if req.EipAddress:
        stmt = stmt.where(Eip.ip_address == req.EipAddress)
    if req.Status:
        stmt = stmt.where(Eip.status == req.Status)
    if req.AssociatedInstanceId:
        stmt = stmt.where(Eip.instance_id == req.AssociatedInstanceId)
    if req.AssociatedInstanceType:
        stmt = stmt.where(Eip.instance_type == req.AssociatedInstanceType)
    items = [describe_eip(row) for row in ctx.db.execute(stmt).scalars()
             if keyword_match(req.Keyword, row.name, row.id, row.ip_address)]
    sort_key = {"Name": "Name", "IpAddress": "IpAddress", "Status": "Status", "AllocationTime": "AllocationTime"}.get(req.SortBy)
    if req.SortBy == "Bandwidth":
        items.sort(key=lambda item: (int(item["Bandwidth"]), item["AllocationId"]), reverse=req.SortOrder == "desc")
    else:
        items = sort_items(items, sort_key or "AllocationTime", req.SortOrder, "AllocationId")
    return page(items, req, "EipAddresses")


def _instance(ctx: CallContext, instance_id: str, instance_type: str) -> Any:
    """The instance an EIP is to be associated with, found in whichever product owns it."""
    wanted_type, states = ASSOCIABLE[instance_type]
    resource_type = type_for_id(instance_id)
    if resource_type is None or resource_type.type_name != wanted_type:
        if resource_type is None:
            raise not_found("instance", instance_id)
        raise invalid_parameter("InstanceId", f"The specified InstanceId {instance_id!r} is not of InstanceType {instance_type}.")
    row = ctx.get(resource_type.model, instance_id, resource_type.label)
    status = getattr(row, "status", None)
    if status not in states:
        raise incorrect_status(resource_type.label, instance_id, str(status), " or ".join(states))
    return row


@action(PRODUCT, "AssociateEipAddress", rw="Write", request=AssociateEipAddressRequest)
def associate_eip_address(ctx: CallContext, req: AssociateEipAddressRequest) -> dict[str, Any]:
    """Associate an Available EIP with an ECS instance (Running or Stopped) or a NAT gateway."""
    eip = ctx.get(Eip, req.AllocationId)
    if eip.status != "Available":
        raise incorrect_status("EIP", eip.id, eip.status, "Available")
    instance = _instance(ctx, req.InstanceId, req.InstanceType)
    if req.InstanceType == "EcsInstance":
        holder = ctx.db.execute(ctx.scoped(Eip).where(Eip.instance_id == req.InstanceId)).scalars().first()
        if holder is not None:
            raise invalid_parameter("InstanceId", f"The instance {req.InstanceId} is already associated with the EIP {holder.id} ({holder.ip_address}).")
        if getattr(instance, "public_ip", None):
            raise invalid_parameter("InstanceId", f"The instance {req.InstanceId} has a static public IP address; an EIP cannot be associated with it.")
    eip.instance_id = req.InstanceId
    eip.instance_type = req.InstanceType
    EIP_LIFECYCLE.begin(eip, "Associating", ctx.now)
    return {}


@action(PRODUCT, "UnassociateEipAddress", rw="Write", request=UnassociateEipAddressRequest)
def unassociate_eip_address(ctx: CallContext, req: UnassociateEipAddressRequest) -> dict[str, Any]:
    """Disassociate an EIP from its instance; it is Unassociating for a moment, then Available."""
    eip = ctx.get(Eip, req.AllocationId)
    if eip.status != "InUse":
        raise incorrect_status("EIP", eip.id, eip.status, "InUse")
    if req.InstanceId and req.InstanceId != eip.instance_id:
        raise invalid_parameter("InstanceId", f"The EIP {eip.id} is not associated with the instance {req.InstanceId}.")
    EIP_LIFECYCLE.begin(eip, "Unassociating", ctx.now)
    return {}


@action(PRODUCT, "ModifyEipAddressAttribute", rw="Write", request=ModifyEipAddressAttributeRequest)
def modify_eip_address_attribute(ctx: CallContext, req: ModifyEipAddressAttributeRequest) -> dict[str, Any]:
    """Change an EIP's peak bandwidth, name or description."""
    eip = ctx.get(Eip, req.AllocationId)
    if req.Bandwidth is not None:
        eip.bandwidth_mbps = req.Bandwidth
    if req.Name is not None:
        eip.name = check_name("Name", req.Name)
    if req.Description is not None:
        eip.description = check_description(req.Description)
    return {}


@action(PRODUCT, "ReleaseEipAddress", rw="Write", request=AllocationIdRequest)
def release_eip_address(ctx: CallContext, req: AllocationIdRequest) -> dict[str, Any]:
    """Release an EIP that is not associated with anything."""
    eip = ctx.get(Eip, req.AllocationId)
    if eip.status != "Available":
        raise incorrect_status("EIP", eip.id, eip.status, "Available")
    ctx.db.delete(eip)
    return {}


def _clear_on_available(db: Any, row: Eip, status: str) -> None:
    """An EIP that finished unassociating no longer names an instance."""
    if status == "Available":
        row.instance_id = None
        row.instance_type = None


EIP_LIFECYCLE.on_enter = _clear_on_available
