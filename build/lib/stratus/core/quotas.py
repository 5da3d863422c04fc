"""Per-account, per-region quotas with defaults that an admin can override per account."""

from __future__ import annotations

from stratus.core.errors import quota_exceeded

DEFAULT_QUOTAS: dict[str, int] = {
    "vpc.vpcs": 10,
    "vpc.vswitches_per_vpc": 24,
    "vpc.route_entries_per_table": 48,
    "vpc.eips": 20,
    "vpc.nat_gateways": 5,
    "ecs.instances": 50,
    "ecs.security_groups": 100,
    "ecs.rules_per_security_group": 200,
    "ecs.disks": 100,
    "ecs.snapshots": 200,
    "ecs.images": 30,
    "ecs.key_pairs": 50,
}


def quota_limit(overrides: dict[str, int], name: str) -> int:
    if name not in DEFAULT_QUOTAS:
        raise KeyError(f"unknown quota {name!r}")
    return int(overrides.get(name, DEFAULT_QUOTAS[name]))


def check_quota(overrides: dict[str, int], name: str, in_use: int, adding: int = 1) -> None:
    limit = quota_limit(overrides, name)
    if in_use + adding > limit:
        raise quota_exceeded(name, limit)
