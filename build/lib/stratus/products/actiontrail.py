"""ActionTrail: the tenant-facing view of the audit trail (``LookupEvents``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stratus.api.context import CallContext
from stratus.api.registry import ListRequest, action
from stratus.audit.trail import EventFilter, lookup
from stratus.core.clock import parse_time
from stratus.core.errors import invalid_parameter


class LookupEventsRequest(ListRequest):
    EventName: str | None = None
    ServiceName: str | None = None
    Actor: Literal["console", "sdk", "provisioner", "system"] | None = None
    UserName: str | None = None
    SessionId: str | None = None
    ResourceId: str | None = None
    ErrorCode: str | None = Field(None, description="A code, '*' for any error, 'none' for successful calls only.")
    StartTime: str | None = None
    EndTime: str | None = None
    PageSize: int = Field(50, ge=1, le=500)


@action("actiontrail", "LookupEvents", rw="Read", request=LookupEventsRequest)
def lookup_events(ctx: CallContext, req: LookupEventsRequest) -> dict[str, Any]:
    """Audit records of the caller's account, newest first; records not yet delivered stay hidden."""
    try:
        start = parse_time(req.StartTime) if req.StartTime else None
        end = parse_time(req.EndTime) if req.EndTime else None
    except ValueError:
        raise invalid_parameter("StartTime", "StartTime and EndTime are ISO-8601 times such as 2026-01-05T08:00:00Z.") from None
    flt = EventFilter(
        account_id=ctx.principal.account_id, event_name=req.EventName, service_name=req.ServiceName, actor=req.Actor,
        user_name=req.UserName, session_id=req.SessionId, resource_id=req.ResourceId, error_code=req.ErrorCode,
        start_time=start, end_time=end, delivered_by=ctx.now,
    )
    events, total = lookup(ctx.db, flt, page_number=req.PageNumber, page_size=req.PageSize)
    return {"TotalCount": total, "PageNumber": req.PageNumber, "PageSize": req.PageSize, "Events": events}
