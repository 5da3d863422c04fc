"""Resource Center: find any resource of the account by id or name, whatever its product."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from sqlalchemy import or_

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, ListRequest, action, page
from stratus.core.errors import not_found
from stratus.core.resources import RESOURCE_TYPES, type_for_id


class GetResourceRequest(ApiRequest):
    ResourceId: str = Field(min_length=1)


class SearchResourcesRequest(ListRequest):
    Keyword: str = Field(min_length=1, max_length=128)
    ResourceType: str | None = None


def _describe(type_name: str, row: Any, status_attr: str | None) -> dict[str, Any]:
    return {"ResourceId": row.id, "ResourceType": type_name, "Name": getattr(row, "name", ""),
            "RegionId": getattr(row, "region_id", None),
            "Status": getattr(row, status_attr) if status_attr else None}


@action("resourcecenter", "GetResource", rw="Read", request=GetResourceRequest)
def get_resource(ctx: CallContext, req: GetResourceRequest) -> dict[str, Any]:
    """One resource's type, name and status, found by id alone (used by the SDK's ``wait_for``)."""
    resource_type = type_for_id(req.ResourceId)
    if resource_type is None:
        raise not_found("resource", req.ResourceId)
    row = ctx.get(resource_type.model, req.ResourceId, resource_type.label)
    return {"Resource": _describe(resource_type.type_name, row, resource_type.status_attr)}


@action("resourcecenter", "SearchResources", rw="Read", request=SearchResourcesRequest)
def search_resources(ctx: CallContext, req: SearchResourcesRequest) -> dict[str, Any]:
    """Resources of this region whose id or name contains the keyword."""
    found = []
    for type_name, resource_type in sorted(RESOURCE_TYPES.items()):
        if req.ResourceType and req.ResourceType != type_name:
            continue
        model = resource_type.model
        stmt = ctx.scoped(model).where(or_(model.id.contains(req.Keyword), model.name.contains(req.Keyword))).order_by(model.id)
        found.extend(_describe(type_name, row, resource_type.status_attr) for row in ctx.db.execute(stmt).scalars())
    return page(found, req, "Resources")
