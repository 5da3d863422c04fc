"""Run one API call: validate, execute, audit, commit.

Every path that changes or reads tenant state — the JSON API, console pages, the SDK — ends in
``invoke``. That is what makes "a console click and an SDK call leave the same audit record" true,
and what writes exactly one audit record per call, failures included.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from stratus.api import idempotency
from stratus.api.authorization import authorize
from stratus.api.context import CallContext
from stratus.api.registry import ACTIONS, ApiAction
from stratus.audit.trail import EventDraft
from stratus.core.errors import ApiError, invalid_parameter, missing_parameter, unknown_action
from stratus.core.identity import Principal
from stratus.core.lifecycle import Lifecycle, advance
from stratus.core.regions import DEFAULT_REGION, check_region

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from stratus.runtime import Runtime

log = logging.getLogger("stratus.api")


@dataclass
class Caller:
    """Transport details of a call that belong in the audit record."""

    principal: Principal
    source_ip: str = "127.0.0.1"
    user_agent: str = ""


@dataclass
class CallResult:
    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status < 400


def validation_error(exc: ValidationError) -> ApiError:
    """Turn Pydantic's first complaint into a stable cloud-style error code naming the field."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "Body"
    if first["type"] == "missing":
        return missing_parameter(field)
    if first["type"] == "extra_forbidden":
        return invalid_parameter(field.split(".")[0], f"The parameter {field} is not recognised by this action.")
    return invalid_parameter(field.split(".")[0], f"{field}: {first['msg']}")


def record_service_events(runtime: "Runtime", db: "Session", account_id: str, now: datetime) -> None:
    """Apply due state transitions of one account and audit each as a system ServiceEvent."""

    def emit(at: datetime, lifecycle: Lifecycle, row: Any, old: str, new: str) -> None:
        draft = EventDraft(
            event_name=lifecycle.event_name,
            event_type="ServiceEvent",
            event_rw="Write",
            service_name=lifecycle.service,
            region=getattr(row, "region_id", DEFAULT_REGION),
            user_identity={"type": "system", "accountId": account_id, "principalId": "system", "userName": "system",
                           "accessKeyId": None, "sessionId": None},
            actor="system",
            response_elements={"ResourceId": row.id, "PreviousStatus": old, "Status": new},
            referenced_resources={lifecycle.resource_type: [row.id]},
            source_ip="internal",
            user_agent="stratus-lifecycle",
        )
        runtime.audit(db, draft, at)

    advance(db, account_id, now, emit)


def invoke(runtime: "Runtime", caller: Caller, product: str, action_name: str, params: dict[str, Any]) -> CallResult:
    """Execute ``product/action_name`` for ``caller`` and audit it; never raises an ApiError."""
    spec = ACTIONS.get((product, action_name))
    principal = caller.principal
    region = str(params.get("RegionId") or DEFAULT_REGION)
    with runtime.write_lock:
        now = runtime.clock.now()
        with runtime.session() as db:
            record_service_events(runtime, db, principal.account_id, now)
            db.commit()
        with runtime.session() as db:
            ctx = CallContext(db, runtime, principal, region, now)
            try:
                if spec is None:
                    raise unknown_action(product, action_name)
                authorize(ctx, spec, params, caller.source_ip)  # RAM policies, before anything else runs
                body = _execute(ctx, spec, params)
                status = 200
            except ApiError as err:
                db.rollback()
                body, status = {"Code": err.code, "Message": err.message}, err.status
            except Exception:  # a bug: audit it as InternalError and keep serving
                log.exception("internal error in %s/%s", product, action_name)
                db.rollback()
                body, status = {"Code": "InternalError", "Message": "The request processing has failed due to some unknown error."}, 500
            rw = spec.rw if spec else "Read"
            draft = EventDraft(
                event_name=action_name,
                event_type="ApiCall",
                event_rw=rw,
                service_name=product,
                region=region,
                user_identity=principal.user_identity(),
                actor=principal.actor,
                request_parameters=params,
                response_elements=body if status == 200 and rw == "Write" else None,
                error_code=body.get("Code") if status >= 400 else None,
                error_message=body.get("Message") if status >= 400 else None,
                referenced_resources=ctx.referenced,
                source_ip=caller.source_ip,
                user_agent=caller.user_agent,
            )
            record = runtime.audit(db, draft, now)
            db.commit()
    return CallResult(status, {"RequestId": record["requestId"], **body})


def _execute(ctx: CallContext, spec: ApiAction, params: dict[str, Any]) -> dict[str, Any]:
    try:
        request = spec.request.model_validate(params)
    except ValidationError as exc:
        raise validation_error(exc) from None
    check_region(ctx.region)
    token = getattr(request, "ClientToken", None)
    key = f"{spec.product}/{spec.name}"
    if token:
        digest = idempotency.params_hash(params)
        previous = idempotency.replay(ctx.db, ctx.principal.account_id, key, token, digest)
        if previous is not None:
            return previous
    response = spec.handler(ctx, request)
    if token:
        idempotency.remember(ctx.db, ctx.principal.account_id, key, token, digest, response, ctx.now)
    ctx.db.flush()
    return response
