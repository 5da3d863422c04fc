"""Where ECS sells what: regions, zones, instance types and available resources.

These read-only actions answer from the fixed catalogues (``catalogs``) and are what the purchase
page and an agent following the real documentation ("call DescribeAvailableResource first")
use to pick a zone and an instance type that can actually be bought.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, ListRequest, action, page
from stratus.core.regions import REGIONS, check_region, check_zone
from stratus.products.ecs import catalogs
from stratus.products.ecs.params import id_list

PRODUCT = "ecs"


def _zone_label(zone_id: str) -> str:
    region = next(r for r in REGIONS if zone_id in r.zones)
    return f"{region.name.split(' (')[-1].rstrip(')')} Zone {zone_id.rsplit('-', 1)[-1][-1].upper()}"


def type_view(spec: catalogs.InstanceTypeSpec) -> dict[str, Any]:
    family = catalogs.FAMILY_BY_ID[spec.family]
    return {
        "InstanceTypeId": spec.id, "InstanceTypeFamily": spec.family, "CpuCoreCount": spec.vcpu,
        "MemorySize": spec.memory_gib, "InstanceFamilyLevel": family.level, "InstanceCategory": family.label,
        "PhysicalProcessorModel": family.processor, "Generation": family.generation, "GPUAmount": 0,
        "BaselineCredit": spec.baseline_credit, "CpuArchitecture": "X86",
        "PricePerHour": spec.hourly_price, "PricePerMonth": f"{spec.monthly_cents / 100:.2f}",
    }


class DescribeRegionsRequest(ApiRequest):
    AcceptLanguage: Literal["en-US", "zh-CN"] = "en-US"


@action(PRODUCT, "DescribeRegions", rw="Read", request=DescribeRegionsRequest)
def describe_regions(ctx: CallContext, req: DescribeRegionsRequest) -> dict[str, Any]:
    """Every region where ECS instances can be created."""
    return {"Regions": [{"RegionId": r.id, "LocalName": r.name, "RegionEndpoint": f"ecs.{r.id}.aliyuncs.com",
                         "Status": "available"} for r in REGIONS]}


class DescribeZonesRequest(ApiRequest):
    Verbose: bool = True
    InstanceChargeType: Literal["PostPaid", "PrePaid"] = "PostPaid"


@action(PRODUCT, "DescribeZones", rw="Read", request=DescribeZonesRequest)
def describe_zones(ctx: CallContext, req: DescribeZonesRequest) -> dict[str, Any]:
    """The zones of the region, with the instance types and disk categories each one sells."""
    region = check_region(ctx.region)
    zones = []
    for zone_id in region.zones:
        zone: dict[str, Any] = {"ZoneId": zone_id, "LocalName": _zone_label(zone_id),
                                "AvailableResourceCreation": ["Instance", "Disk", "VSwitch"]}
        if req.Verbose:
            zone["AvailableInstanceTypes"] = [t.id for t in catalogs.types_in_zone(zone_id)]
            zone["AvailableDiskCategories"] = list(catalogs.DISK_CATEGORIES)
        zones.append(zone)
    return {"Zones": zones}


class DescribeInstanceTypesRequest(ListRequest):
    InstanceTypeFamily: str | None = None
    InstanceTypes: list[str] | str | None = None
    ZoneId: str | None = Field(None, description="Only the types sold in this zone")
    PageSize: int = Field(100, ge=1, le=100)


@action(PRODUCT, "DescribeInstanceTypes", rw="Read", request=DescribeInstanceTypesRequest)
def describe_instance_types(ctx: CallContext, req: DescribeInstanceTypesRequest) -> dict[str, Any]:
    """Instance types with their vCPUs, memory and list prices."""
    wanted = id_list("InstanceTypes", req.InstanceTypes)
    zone = check_zone(ctx.region, req.ZoneId) if req.ZoneId else None
    items = [type_view(t) for t in catalogs.INSTANCE_TYPES
             if (req.InstanceTypeFamily is None or t.family == req.InstanceTypeFamily)
             and (wanted is None or t.id in wanted)
             and (zone is None or catalogs.is_sold_in(t.id, zone))]
    return page(items, req, "InstanceTypes")


class DescribeAvailableResourceRequest(ApiRequest):
    DestinationResource: Literal["Zone", "InstanceTypeFamily", "InstanceType", "SystemDisk", "DataDisk"] = "InstanceType"
    ZoneId: str | None = None
    InstanceChargeType: Literal["PostPaid", "PrePaid"] = "PostPaid"
    InstanceType: str | None = None
    ResourceType: Literal["instance", "disk"] = "instance"


def _supported(values: list[str]) -> list[dict[str, str]]:
    return [{"Value": v, "Status": "Available", "StatusCategory": "WithStock"} for v in values]


@action(PRODUCT, "DescribeAvailableResource", rw="Read", request=DescribeAvailableResourceRequest)
def describe_available_resource(ctx: CallContext, req: DescribeAvailableResourceRequest) -> dict[str, Any]:
    """What can be bought in each zone: zones, families, instance types or disk categories."""
    region = check_region(ctx.region)
    zone_ids = [check_zone(ctx.region, req.ZoneId)] if req.ZoneId else list(region.zones)
    out = []
    for zone_id in zone_ids:
        types = [t for t in catalogs.types_in_zone(zone_id) if req.InstanceType is None or t.id == req.InstanceType]
        if req.InstanceType and not types:
            continue
        if req.DestinationResource == "Zone":
            resources: list[dict[str, Any]] = []
        elif req.DestinationResource == "InstanceTypeFamily":
            resources = [{"Type": "InstanceTypeFamily", "SupportedResources": _supported(sorted({t.family for t in types}))}]
        elif req.DestinationResource == "InstanceType":
            resources = [{"Type": "InstanceType", "SupportedResources": _supported([t.id for t in types])}]
        else:
            kind = req.DestinationResource
            resources = [{"Type": kind, "SupportedResources": [
                {**entry, "Min": 20, "Max": catalogs.SYSTEM_DISK_MAX_GIB if kind == "SystemDisk" else 32768,
                 "Unit": "GiB"} for entry in _supported(list(catalogs.DISK_CATEGORIES))]}]
        out.append({"ZoneId": zone_id, "RegionId": ctx.region, "Status": "Available", "StatusCategory": "WithStock",
                    "AvailableResources": resources})
    return {"AvailableZones": out}
