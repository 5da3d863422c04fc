"""Who is calling: a console session (cookie + CSRF header) or an SDK key (HMAC signature)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Mapping

from stratus.core.errors import ApiError, unauthenticated
from stratus.core.identity import Principal, principal_for_access_key, principal_for_session

if TYPE_CHECKING:
    from stratus.runtime import Runtime

SESSION_COOKIE = "stratus_session"
REGION_COOKIE = "stratus_region"
CSRF_HEADER = "x-csrf-token"
DATE_HEADER = "x-stratus-date"
_AUTH = re.compile(r"^STRATUS-HMAC-SHA256 Credential=(?P<key>[A-Za-z0-9]+), Signature=(?P<sig>[0-9a-f]{64})$")


def authenticate_api(
    runtime: "Runtime", method: str, path: str, headers: Mapping[str, str], cookies: Mapping[str, str], body: bytes
) -> Principal:
    """Resolve the caller of a JSON API request, or raise ``InvalidCredentials``/``Forbidden``."""
    authorization = headers.get("authorization")
    with runtime.session() as db:
        if authorization:
            match = _AUTH.match(authorization)
            if not match:
                raise unauthenticated("The Authorization header is malformed.")
            principal = principal_for_access_key(
                db, match["key"], match["sig"], method, path, headers.get(DATE_HEADER, ""), body
            )
            if principal is None:
                raise unauthenticated("The access key does not exist, is disabled, or the signature does not match.")
            return principal
        token = cookies.get(SESSION_COOKIE)
        if token:
            found = principal_for_session(db, token, runtime.clock.now())
            if found is None:
                raise unauthenticated("Your console session has expired. Sign in again.")
            principal, session = found
            if headers.get(CSRF_HEADER) != session.csrf_token:
                raise ApiError("Forbidden.CSRF", "The request is missing a valid X-CSRF-Token header.", 403)
            return principal
    raise unauthenticated()
