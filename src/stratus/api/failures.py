"""Audit records for requests that fail before, or outside, an action.

``dispatch.invoke`` records every call that reaches an action. A request can also fail earlier (a
body that is too large, not UTF-8, not JSON, nested too deeply) or somewhere no handler expected
(a bug). Those get one hash-chained record each as well, written here, so that "every request
leaves exactly one audit record, failures included" holds for hostile input too.

Who the record belongs to: the authenticated caller when authentication got that far, otherwise
the pseudo-account ``anonymous`` (the same one ``security_events`` uses for refused
credentials), which no tenant can query and operators see in the admin export.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from stratus.api.registry import ACTIONS
from stratus.audit.bounds import clip_column
from stratus.audit.trail import EventDraft
from stratus.core.errors import ApiError
from stratus.core.regions import DEFAULT_REGION

if TYPE_CHECKING:
    from stratus.core.identity import Principal
    from stratus.runtime import Runtime

log = logging.getLogger("stratus.api")

ANONYMOUS_ACCOUNT = "anonymous"
INTERNAL_ERROR = ApiError("InternalError", "The request processing has failed due to some unknown error.", 500)


def anonymous_identity() -> dict[str, Any]:
    return {"type": "anonymous", "accountId": ANONYMOUS_ACCOUNT, "principalId": ANONYMOUS_ACCOUNT, "userName": "",
            "accessKeyId": None, "sessionId": None}


def operation_name(function_name: str) -> str:
    """The event name of an admin operation: ``set_balance`` -> ``SetBalance``."""
    return "".join(part.title() for part in function_name.split("_"))


def describe(method: str, path: str, route_name: str | None = None) -> tuple[str, str, str]:
    """(service, event name, rw) of a request: the action of ``/api/{product}/{Action}``, the admin
    operation of the matched route, else the method and path."""
    parts = path.strip("/").split("/")
    if len(parts) == 3 and parts[0] == "api":
        spec = ACTIONS.get((parts[1], parts[2]))
        return clip_column(parts[1], 32) or "", clip_column(parts[2], 64) or "", spec.rw if spec else "Read"
    service = "admin" if parts[0] == "admin" else "console"
    rw = "Read" if method in ("GET", "HEAD", "OPTIONS") else "Write"
    if service == "admin" and route_name:
        return service, operation_name(route_name), rw
    return service, clip_column(f"{method} {path}", 64) or "", rw


def audit_failure(runtime: "Runtime", err: ApiError, *, method: str, path: str, principal: "Principal | None" = None,
                  identity: tuple[dict[str, Any], str] | None = None, parameters: dict[str, Any] | None = None,
                  source_ip: str = "", user_agent: str = "", route_name: str | None = None) -> str | None:
    """Record one failed request in its own transaction; returns the request id, or None if even that failed.

    The caller is ``principal`` if authenticated, else ``identity`` (a userIdentity block and an
    actor, e.g. the admin's), else anonymous.

    Never raises: this runs while answering an error, and a second failure must not turn a clean
    4xx into a reset connection. A failure to audit is logged (the operator sees it).
    """
    service, event_name, rw = describe(method, path, route_name)
    if principal is not None:
        identity = (principal.user_identity(), principal.actor)
    user_identity, actor = identity or (anonymous_identity(), "anonymous")
    draft = EventDraft(
        event_name=event_name, event_type="AdminCall" if service == "admin" else "ApiCall", event_rw=rw,
        service_name=service, region=DEFAULT_REGION, user_identity=user_identity, actor=actor,
        request_parameters=parameters, error_code=err.code, error_message=err.message,
        source_ip=source_ip, user_agent=user_agent,
    )
    try:
        with runtime.write_lock, runtime.session() as db:
            record = runtime.audit(db, draft, runtime.clock.now())
            db.commit()
    except Exception:  # the database itself may be what failed
        log.exception("could not audit a failed request to %s", path[:200])
        return None
    return record["requestId"]


def error_body(err: ApiError, request_id: str | None) -> dict[str, Any]:
    return {"RequestId": request_id, "Code": err.code, "Message": err.message}
