"""Regions and zones. Fixed, like a real cloud's; names follow the familiar ``cn-hangzhou`` style."""

from __future__ import annotations

from dataclasses import dataclass

from stratus.core.errors import invalid_parameter


@dataclass(frozen=True)
class Region:
    id: str
    name: str
    zones: tuple[str, ...]


REGIONS: tuple[Region, ...] = (
    Region("cn-hangzhou", "China (Hangzhou)", ("cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j")),
    Region("cn-shanghai", "China (Shanghai)", ("cn-shanghai-e", "cn-shanghai-f", "cn-shanghai-g")),
    Region("cn-beijing", "China (Beijing)", ("cn-beijing-a", "cn-beijing-b", "cn-beijing-c")),
    Region("ap-southeast-1", "Singapore", ("ap-southeast-1a", "ap-southeast-1b", "ap-southeast-1c")),
    Region("us-west-1", "US (Silicon Valley)", ("us-west-1a", "us-west-1b")),
)
REGION_BY_ID = {r.id: r for r in REGIONS}
DEFAULT_REGION = REGIONS[0].id


def check_region(region_id: str) -> Region:
    region = REGION_BY_ID.get(region_id)
    if region is None:
        raise invalid_parameter("RegionId", f"The region {region_id!r} does not exist.")
    return region


def check_zone(region_id: str, zone_id: str) -> str:
    if zone_id not in check_region(region_id).zones:
        raise invalid_parameter("ZoneId", f"The zone {zone_id!r} does not exist in region {region_id}.")
    return zone_id
