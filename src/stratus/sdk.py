"""The Python SDK: signed calls to the JSON API, typed errors, waiting on asynchronous states.

    from stratus.sdk import Client
    client = Client("http://127.0.0.1:8000", key_id, key_secret, region="cn-hangzhou")
    vpc = client.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8", VpcName="prod")
    client.wait_for(vpc["VpcId"], "Available")
"""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import datetime, timezone
from typing import Any, Iterator

import httpx2

from stratus.core.identity import sign


class StratusError(Exception):
    """An error answer from the API; ``code`` is the stable error code."""

    def __init__(self, code: str, message: str, status: int, request_id: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status, self.request_id = code, message, status, request_id


class InvalidParameterError(StratusError): ...
class MissingParameterError(StratusError): ...
class NotFoundError(StratusError): ...
class ForbiddenError(StratusError): ...
class QuotaExceededError(StratusError): ...
class InsufficientBalanceError(StratusError): ...
class DependencyViolationError(StratusError): ...
class IncorrectStatusError(StratusError): ...
class IdempotencyConflictError(StratusError): ...
class AuthenticationError(StratusError): ...
class WaitTimeout(StratusError): ...


_BY_CODE: dict[str, type[StratusError]] = {
    "MissingParameter": MissingParameterError,
    "NotFound": NotFoundError,
    "QuotaExceeded": QuotaExceededError,
    "InsufficientBalance": InsufficientBalanceError,
    "DependencyViolation": DependencyViolationError,
    "IncorrectStatus": IncorrectStatusError,
    "Idempotency.Conflict": IdempotencyConflictError,
    "InvalidCredentials": AuthenticationError,
    # a signed request that is not fresh (see docs/formats.md, "SDK signing")
    "MissingTimestamp": AuthenticationError,
    "InvalidTimeStamp.Format": AuthenticationError,
    "InvalidTimeStamp.Expired": AuthenticationError,
    "MissingSignatureNonce": AuthenticationError,
    "InvalidSignatureNonce": AuthenticationError,
    "SignatureNonceUsed": AuthenticationError,
}


def error_for(code: str, message: str, status: int, request_id: str | None = None) -> StratusError:
    cls = _BY_CODE.get(code)
    if cls is None:
        family = code.split(".", 1)[0]
        cls = {"InvalidParameter": InvalidParameterError, "Forbidden": ForbiddenError,
               "EntityNotExist": NotFoundError}.get(family, StratusError)
    return cls(code, message, status, request_id)


class Client:
    """A tenant client authenticated by an access key. ``transport`` lets tests talk to an in-process app."""

    def __init__(self, endpoint: str, access_key_id: str, access_key_secret: str, *, region: str = "cn-hangzhou",
                 timeout: float = 30.0, transport: httpx2.BaseTransport | None = None, user_agent: str = "stratus-sdk-python/0.1") -> None:
        self.endpoint = endpoint.rstrip("/")
        self.access_key_id = access_key_id
        self._secret = access_key_secret
        self.region = region
        self._http = httpx2.Client(base_url=self.endpoint, timeout=timeout, transport=transport,
                                  headers={"user-agent": user_agent})

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]:
        """Call ``product/action``; returns the response JSON or raises a ``StratusError`` subclass."""
        params.setdefault("RegionId", self.region)
        params = {k: v for k, v in params.items() if v is not None}
        path = f"/api/{product}/{action}"
        body = json.dumps(params).encode()
        date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        nonce = uuid.uuid4().hex  # one per request: the server refuses a nonce it has seen
        signature = sign(self._secret, "POST", path, date, body, nonce=nonce)
        response = self._http.post(path, content=body, headers={
            "content-type": "application/json", "x-stratus-date": date, "x-stratus-nonce": nonce,
            "authorization": f"STRATUS-HMAC-SHA256 Credential={self.access_key_id}, Signature={signature}",
        })
        try:
            data = response.json()
        except ValueError:
            raise StratusError("InvalidResponse", response.text[:200], response.status_code) from None
        if response.status_code >= 400:
            raise error_for(data.get("Code", "Unknown"), data.get("Message", ""), response.status_code, data.get("RequestId"))
        return data

    def paginate(self, product: str, action: str, list_field: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every item of a list action, page after page."""
        page_number = 1
        while True:
            data = self.call(product, action, PageNumber=page_number, PageSize=100, **params)
            yield from data[list_field]
            if page_number * data["PageSize"] >= data["TotalCount"]:
                return
            page_number += 1

    def get_resource(self, resource_id: str) -> dict[str, Any]:
        return self.call("resourcecenter", "GetResource", ResourceId=resource_id)["Resource"]

    def wait_for(self, resource_id: str, status: str | set[str], timeout: float = 60.0, interval: float = 0.2) -> dict[str, Any]:
        """Poll a resource until it reaches ``status`` (one of several, or ``"Deleted"`` = gone)."""
        wanted = {status} if isinstance(status, str) else set(status)
        deadline = time.monotonic() + timeout
        last: str | None = None
        while True:
            try:
                resource = self.get_resource(resource_id)
                last = resource["Status"]
                if last in wanted:
                    return resource
            except NotFoundError:
                if "Deleted" in wanted:
                    return {"ResourceId": resource_id, "Status": "Deleted"}
                raise
            if time.monotonic() >= deadline:
                raise WaitTimeout("WaitTimeout", f"{resource_id} is {last}, not {sorted(wanted)}, after {timeout}s", 0)
            time.sleep(interval)


_LOGIN_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def console_sign_in(http: Any, login_name: str, password: str, next_path: str = "/console") -> Any:
    """Sign in through the console's login form over plain HTTP, as a browser would: fetch the
    form (which sets the pre-session CSRF cookie), then post it with its ``csrf_token``.
    ``http`` is an httpx-style client with a cookie jar; returns the POST's response (303 on
    success, without following it)."""
    form = http.get("/login", params={"next": next_path})
    found = _LOGIN_CSRF.search(form.text)
    token = found.group(1) if found else ""
    return http.post("/login", data={"login_name": login_name, "password": password, "next": next_path,
                                     "csrf_token": token}, follow_redirects=False)


def console_sign_out(http: Any) -> Any:
    """Sign out (a POST carrying the session's CSRF token, read from a console page)."""
    page = http.get("/console", follow_redirects=False)
    found = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    return http.post("/logout", data={"csrf_token": found.group(1) if found else ""}, follow_redirects=False)


class AdminClient:
    """The operator's client for the admin API (accounts, snapshots, clock, trail)."""

    def __init__(self, endpoint: str, token: str, *, timeout: float = 60.0, transport: httpx2.BaseTransport | None = None) -> None:
        self._http = httpx2.Client(base_url=endpoint.rstrip("/"), timeout=timeout, transport=transport,
                                  headers={"authorization": f"Bearer {token}"})

    def close(self) -> None:
        self._http.close()

    def _send(self, method: str, path: str, body: Any = None) -> Any:
        response = self._http.request(method, path, json=body)
        if response.status_code >= 400:
            try:
                detail = response.json()
            except ValueError:
                detail = {"Code": "HttpError", "Message": response.text[:200]}
            raise error_for(detail.get("Code", "HttpError"), detail.get("Message", ""), response.status_code)
        return response.json() if "json" in response.headers.get("content-type", "") else response.text

    def create_account(self, alias: str, **fields: Any) -> dict[str, Any]:
        return self._send("POST", "/admin/accounts", {"alias": alias, **fields})

    def create_user(self, account_id: str, name: str, **fields: Any) -> dict[str, Any]:
        return self._send("POST", f"/admin/accounts/{account_id}/users", {"name": name, **fields})

    def get_account(self, account_id: str) -> dict[str, Any]:
        return self._send("GET", f"/admin/accounts/{account_id}")

    def create_access_key(self, account_id: str, actor: str = "sdk", user_name: str | None = None) -> dict[str, Any]:
        return self._send("POST", f"/admin/accounts/{account_id}/access-keys", {"actor": actor, "user_name": user_name})

    def list_access_keys(self, account_id: str) -> list[dict[str, Any]]:
        return self._send("GET", f"/admin/accounts/{account_id}/access-keys")

    def set_access_key_status(self, account_id: str, key_id: str, status: str) -> dict[str, Any]:
        """``status`` is ``Active`` or ``Inactive``; an inactive key is refused as InvalidCredentials."""
        return self._send("PUT", f"/admin/accounts/{account_id}/access-keys/{key_id}", {"status": status})

    def reset_account(self, account_id: str, balance_cents: int | None = None) -> dict[str, Any]:
        return self._send("POST", f"/admin/accounts/{account_id}/reset", {"balance_cents": balance_cents})

    def set_release(self, account_id: str, release: str | None) -> dict[str, Any]:
        return self._send("PUT", f"/admin/accounts/{account_id}/release", {"release": release})

    def set_balance(self, account_id: str, balance_cents: int) -> dict[str, Any]:
        return self._send("PUT", f"/admin/accounts/{account_id}/balance", {"balance_cents": balance_cents})

    def set_quotas(self, account_id: str, **quotas: int) -> dict[str, Any]:
        return self._send("PUT", f"/admin/accounts/{account_id}/quotas", quotas)

    def snapshot(self, account_id: str, name: str = "") -> dict[str, Any]:
        return self._send("POST", f"/admin/accounts/{account_id}/snapshots", {"name": name})

    def restore(self, snapshot_id: str) -> dict[str, Any]:
        return self._send("POST", f"/admin/snapshots/{snapshot_id}/restore")

    def account_state(self, account_id: str) -> str:
        return self._send("GET", f"/admin/accounts/{account_id}/state")

    def export_events(self, account_id: str | None = None, include_undelivered: bool = False) -> str:
        query = "&".join(f"{k}={v}" for k, v in {"account_id": account_id, "include_undelivered": str(include_undelivered).lower()}.items() if v)
        return self._send("GET", f"/admin/events?{query}")

    def verify_trail(self) -> dict[str, Any]:
        response = self._http.get("/admin/trail/verify")
        return response.json()

    def advance_clock(self, seconds: float) -> dict[str, Any]:
        return self._send("POST", "/admin/clock/advance", {"seconds": seconds})
