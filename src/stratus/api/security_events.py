"""Audit records for authentication events that never reach the dispatcher.

A refused credential (401), a missing CSRF token (403), a failed or throttled sign-in and a
sign-out happen before any action runs, so ``dispatch.invoke`` cannot record them; this module
does, through the same ``runtime.audit`` (one hash-chained record each).

Which account a record belongs to: the account the request *claims* if that claim names a real
one (the access key's account, the session's account, the account of the alias in a login name),
so a tenant sees attempts on its own credentials in LookupEvents; otherwise the pseudo-account
``anonymous``, which no tenant can query and operators see in the admin export. Nothing the
caller sent is stored beyond short, capped strings: never the body of a refused request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stratus.api.registry import ACTIONS
from stratus.audit.trail import EventDraft
from stratus.core.regions import DEFAULT_REGION

if TYPE_CHECKING:
    from stratus.runtime import Runtime

ANONYMOUS_ACCOUNT = "anonymous"
_NAME = re.compile(r"^[A-Za-z0-9]{1,64}$")


def cap(value: str | None, limit: int) -> str:
    """At most ``limit`` characters, control characters dropped: tenant-controlled text stays small."""
    text = "".join(ch for ch in (value or "") if ch.isprintable())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Claim:
    """Who a refused request said it was; every field may be unknown."""

    account_id: str | None = None
    user_id: str | None = None
    user_name: str = ""
    access_key_id: str | None = None
    session_id: str | None = None

    def user_identity(self, identity_type: str) -> dict[str, Any]:
        """The record's ``userIdentity``: of type ``anonymous`` when the claim names no account."""
        account = self.account_id or ANONYMOUS_ACCOUNT
        identity_type = identity_type if self.account_id else "anonymous"
        return {"type": identity_type, "accountId": account, "principalId": self.user_id or account,
                "userName": cap(self.user_name, 64), "accessKeyId": self.access_key_id, "sessionId": self.session_id}


def api_event_name(path: str) -> tuple[str, str, str]:
    """(service, event name, rw) of ``/api/{product}/{Action}``; odd names are not echoed into the trail."""
    parts = path.strip("/").split("/")
    product, action = (parts[1], parts[2]) if len(parts) == 3 else ("", "")
    spec = ACTIONS.get((product, action))
    if spec is not None:
        return product, action, spec.rw
    return (product if _NAME.match(product) and len(product) <= 32 else "unknown",
            action if _NAME.match(action) else "UnknownAction", "Read")


def record(runtime: "Runtime", *, event_name: str, event_type: str, service: str, rw: str, identity: dict[str, Any],
           actor: str, source_ip: str, user_agent: str, error_code: str | None = None, error_message: str | None = None,
           parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """Append one record in its own transaction (the caller holds no session)."""
    draft = EventDraft(
        event_name=event_name, event_type=event_type, event_rw=rw, service_name=service, region=DEFAULT_REGION,
        user_identity=identity, actor=actor, request_parameters=parameters, error_code=error_code,
        error_message=cap(error_message, 512) if error_message else None,
        source_ip=cap(source_ip, 64), user_agent=cap(user_agent, 256),
    )
    with runtime.write_lock, runtime.session() as db:
        written = runtime.audit(db, draft, runtime.clock.now())
        db.commit()
    return written
