"""Who depends on a resource, across products, without products importing each other.

VPC cannot import ECS (ECS builds on VPC), yet "a vSwitch with instances cannot be deleted".
ECS registers a finder for vSwitch dependents; VPC's delete asks ``dependents`` and raises
``DependencyViolation`` naming what is in the way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from stratus.core.errors import dependency_violation

if TYPE_CHECKING:
    from stratus.api.context import CallContext

# finder(ctx, parent_id) -> [(resource type label, resource id), ...]
Finder = Callable[["CallContext", str], list[tuple[str, str]]]
_FINDERS: dict[str, list[Finder]] = {}


def register_dependents(parent_type: str, finder: Finder) -> None:
    _FINDERS.setdefault(parent_type, []).append(finder)


def dependents(ctx: "CallContext", parent_type: str, parent_id: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for finder in _FINDERS.get(parent_type, []):
        found.extend(finder(ctx, parent_id))
    return found


def ensure_no_dependents(ctx: "CallContext", parent_type: str, parent_id: str, label: str) -> None:
    found = dependents(ctx, parent_type, parent_id)
    if found:
        listed = ", ".join(f"{kind} {rid}" for kind, rid in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise dependency_violation(f"The {label} {parent_id} cannot be deleted while these depend on it: {listed}{more}.")
