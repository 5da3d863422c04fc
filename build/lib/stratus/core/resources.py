"""A registry of resource types, so generic machinery (GetResource, SDK ``wait_for``, account
reset, isolation tests) handles every product's resources without knowing the products."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ResourceType:
    type_name: str  # "ACS::ECS::Instance"
    prefix: str  # id prefix before the dash: "i"
    model: Any  # SQLAlchemy model with id, account_id, region_id
    product: str  # "ecs"
    label: str  # "instance", used in messages
    status_attr: str | None = "status"


RESOURCE_TYPES: dict[str, ResourceType] = {}


def register_resource_type(resource_type: ResourceType) -> ResourceType:
    RESOURCE_TYPES[resource_type.type_name] = resource_type
    return resource_type


def type_for_id(resource_id: str) -> ResourceType | None:
    prefix = resource_id.split("-", 1)[0]
    for resource_type in RESOURCE_TYPES.values():
        if resource_type.prefix == prefix:
            return resource_type
    return None
