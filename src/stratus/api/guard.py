"""The outermost layer of every request: a body size limit, and a last resort for bugs.

Without it an exception that escapes a handler reaches Starlette's error middleware, which
answers with a bare text 500, writes no audit record, and re-raises into Uvicorn, which then
drops the keep-alive connection. Here such an exception becomes a JSON ``InternalError`` with a
request id, recorded in the audit trail, and the connection stays usable. A body larger than
``MAX_BODY_BYTES`` is refused with 413 before it is read (by Content-Length) or as soon as the
count passes the limit (chunked bodies), so no handler ever holds more than that in memory.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stratus.api.failures import INTERNAL_ERROR, audit_failure, error_body
from stratus.core.errors import ApiError

log = logging.getLogger("stratus.api")

MAX_BODY_BYTES = 1 << 20  # 1 MiB: the largest legitimate body (a key pair's public key, a policy) is a few KiB
TOO_LARGE = ApiError("RequestTooLarge", f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes.", 413)


class _BodyTooLarge(Exception):
    pass


class RequestGuard:
    """ASGI middleware; ``runtime`` is the app's, for auditing what it catches."""

    def __init__(self, app: ASGIApp, runtime: Any) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > MAX_BODY_BYTES:
            await self._answer(scope, send, TOO_LARGE)
            return
        scope.setdefault("state", {})  # shared with request.state, where the router leaves the principal
        started = False
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise _BodyTooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await self._answer(scope, send, TOO_LARGE)
        except Exception:
            log.exception("unhandled error in %s %s", scope.get("method"), str(scope.get("path"))[:200])
            if not started:  # once a response has begun, the only honest thing left is to end it
                await self._answer(scope, send, INTERNAL_ERROR)

    async def _answer(self, scope: Scope, send: Send, err: ApiError) -> None:
        state = scope.get("state") or {}
        client = scope.get("client") or ("", 0)
        request_id = await run_in_threadpool(
            audit_failure, self.runtime, err, method=scope.get("method", ""), path=scope.get("path", ""),
            principal=state.get("principal"), source_ip=client[0], user_agent=_header(scope, b"user-agent"),
            route_name=getattr(scope.get("route"), "name", None),
        )
        body = json.dumps(error_body(err, request_id)).encode()
        await send({"type": "http.response.start", "status": err.status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def _declared_length(scope: Scope) -> int:
    text = _header(scope, b"content-length")
    return int(text) if text.isdigit() and len(text) < 20 else 0
