"""Who is calling: a console session (cookie + CSRF header) or an SDK key (HMAC signature).

A signed request must also be fresh: its date inside the window and its nonce unused
(``stratus.api.freshness``). Every refusal is audited (``stratus.api.security_events``) before the
error goes back, with the account the request claimed when that claim names a real one.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from stratus.api import freshness, security_events
from stratus.api.security_events import Claim
from stratus.core.errors import ApiError, unauthenticated
from stratus.core.identity import (
    AccessKey,
    ConsoleSession,
    Principal,
    RamUser,
    hash_token,
    principal_for_key,
    principal_for_session,
    signature_matches,
)
from stratus.core.wallclock import security_now

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from stratus.runtime import Runtime

SESSION_COOKIE = "stratus_session"
REGION_COOKIE = "stratus_region"
CSRF_HEADER = "x-csrf-token"
DATE_HEADER = "x-stratus-date"
NONCE_HEADER = "x-stratus-nonce"
_AUTH = re.compile(r"^STRATUS-HMAC-SHA256 Credential=(?P<key>[A-Za-z0-9]{1,32}), Signature=(?P<sig>[0-9a-f]{64})$")


@dataclass
class AuthFailure(Exception):
    """A refused request: the error to answer and who the request claimed to be."""

    error: ApiError
    claim: Claim
    actor: str
    identity_type: str = "unauthenticated"


def tokens_equal(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a CSRF token (any input, even non-ASCII, is just unequal)."""
    return hmac.compare_digest((given or "").encode("utf-8", "surrogatepass"), expected.encode())


def authenticate_api(
    runtime: "Runtime", method: str, path: str, headers: Mapping[str, str], cookies: Mapping[str, str], body: bytes,
    source_ip: str = "",
) -> Principal:
    """Resolve the caller of a JSON API request, or audit the refusal and raise its ``ApiError``
    (``InvalidCredentials``, a signature freshness code, or ``Forbidden.CSRF``)."""
    try:
        return _authenticate(runtime, method, path, headers, cookies, body)
    except AuthFailure as failure:
        service, event_name, rw = security_events.api_event_name(path)
        actor = failure.actor if failure.claim.account_id else "anonymous"  # no credential: no actor either
        security_events.record(
            runtime, event_name=event_name, event_type="ApiCall", service=service, rw=rw,
            identity=failure.claim.user_identity(failure.identity_type), actor=actor, source_ip=source_ip,
            user_agent=headers.get("user-agent", ""), error_code=failure.error.code, error_message=failure.error.message,
        )
        raise failure.error from None


def _authenticate(runtime: "Runtime", method: str, path: str, headers: Mapping[str, str], cookies: Mapping[str, str],
                  body: bytes) -> Principal:
    authorization = headers.get("authorization")
    if authorization:
        return _signed(runtime, method, path, headers, authorization, body)
    token = cookies.get(SESSION_COOKIE)
    if token:
        return _session(runtime, headers, token)
    raise AuthFailure(unauthenticated(), Claim(), "sdk")


def _signed(runtime: "Runtime", method: str, path: str, headers: Mapping[str, str], authorization: str,
            body: bytes) -> Principal:
    match = _AUTH.match(authorization)
    if not match:
        raise AuthFailure(unauthenticated("The Authorization header is malformed."), Claim(), "sdk")
    with runtime.session() as db:
        key = db.get(AccessKey, match["key"])
        claim = _key_claim(db, key)
        actor = key.actor if key is not None else "sdk"
        try:
            signed_at = freshness.check_date_header(headers.get(DATE_HEADER, ""))
            nonce = freshness.check_nonce_header(headers.get(NONCE_HEADER, ""))
        except ApiError as err:
            raise AuthFailure(err, claim, actor) from None
        date = headers.get(DATE_HEADER, "")
        if key is None or key.status != "Active" or not signature_matches(key, match["sig"], method, path, date, nonce, body):
            raise AuthFailure(unauthenticated("The access key does not exist, is disabled, or the signature does not match."),
                              claim, actor)
        principal = principal_for_key(db, key)
    now = security_now(runtime)
    try:
        freshness.check_window(signed_at, now)
        with runtime.write_lock, runtime.session() as db:
            freshness.use_nonce(db, principal.access_key_id or "", nonce, signed_at, now)
    except ApiError as err:
        raise AuthFailure(err, claim, actor) from None
    return principal


def _key_claim(db: "Session", key: AccessKey | None) -> Claim:
    if key is None:
        return Claim()
    user = db.get(RamUser, key.user_id) if key.user_id else None
    return Claim(key.account_id, key.user_id, user.name if user else "root", access_key_id=key.id)


def _session(runtime: "Runtime", headers: Mapping[str, str], token: str) -> Principal:
    with runtime.session() as db:
        found = principal_for_session(db, token, runtime.clock.now())
        if found is None:
            stale = db.get(ConsoleSession, hash_token(token))  # an expired session still names its account
            claim = Claim(stale.account_id, stale.user_id, session_id=stale.session_id) if stale else Claim()
            raise AuthFailure(unauthenticated("Your console session has expired. Sign in again."), claim, "console")
        principal, session = found
        if not tokens_equal(headers.get(CSRF_HEADER), session.csrf_token):
            claim = Claim(principal.account_id, principal.user_id, principal.user_name, session_id=principal.session_id)
            raise AuthFailure(ApiError("Forbidden.CSRF", "The request is missing a valid X-CSRF-Token header.", 403),
                              claim, "console", principal.identity_type)
        return principal
