"""The sandboxed script's only way out: the console's API, relayed from a Unix socket.

WHY: the jail's network namespace has no route to the host (its loopback is its own), which is
what keeps a hostile script off other hosts, DNS and local services. The one thing it may reach
is the console's signed JSON API, so the parent serves a Unix socket that is bind-mounted into
the jail and relays, to the console's HTTP address, only requests that look like API calls of
this run: ``POST /api/<product>/<Action>``, a bounded body, signed with the run's own access key
(a key found elsewhere cannot be used through it), at most ``max_requests`` per run. Everything
else is answered here with a JSON error in the console's own shape, so the SDK reports it clearly.
"""

from __future__ import annotations

import json
import os
import re
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx2

API_PATH = re.compile(r"^/api/[a-z][a-z0-9]{0,31}/[A-Z][A-Za-z0-9]{0,63}$")
CREDENTIAL = re.compile(r"Credential=([^,\s]+)")
_FORWARDED = ("content-type", "authorization", "user-agent")  # and every x-stratus-* header (date, nonce...)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False
    relay: "ApiRelay"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # an idle or trickling connection is dropped
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.server.relay.handle(self)

    def do_GET(self) -> None:  # noqa: N802
        self.server.relay.refuse(self, 405, "MethodNotAllowed", "only POST /api/<product>/<Action> is relayed")

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # the client address of a Unix socket is ''
        return


class ApiRelay:
    """A Unix-socket HTTP server relaying one run's API calls to ``endpoint`` (use as a context manager)."""

    def __init__(self, socket_path: str | Path, endpoint: str, access_key_id: str, *, max_requests: int = 2000,
                 max_body: int = 1_000_000, timeout_s: float = 60.0) -> None:
        self.socket_path = Path(socket_path)
        self.endpoint = endpoint.rstrip("/")
        self.access_key_id = access_key_id
        self.max_requests = max_requests
        self.max_body = max_body
        self.relayed = 0
        self.refused: list[str] = []  # why each refused request was refused (the parent's own record)
        self._lock = threading.Lock()
        self._http = httpx2.Client(base_url=self.endpoint, timeout=timeout_s)
        self._server = _Server(str(self.socket_path), _Handler)
        self._server.relay = self
        os.chmod(self.socket_path, 0o666)  # the jail's uid must be able to connect
        self._thread = threading.Thread(target=self._server.serve_forever, name="api-relay", daemon=True)

    def __enter__(self) -> "ApiRelay":
        return self.start()

    def start(self) -> "ApiRelay":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()
        self._http.close()
        self.socket_path.unlink(missing_ok=True)

    def handle(self, request: _Handler) -> None:
        """Check one request; relay it or answer it with the reason it was refused."""
        problem = self._check(request)
        if problem is not None:
            self.refuse(request, *problem)
            return
        length = int(request.headers["content-length"])
        body = request.rfile.read(length)
        headers = {k: v for k, v in request.headers.items() if k.lower() in _FORWARDED or k.lower().startswith("x-stratus-")}
        try:
            upstream = self._http.post(request.path, content=body, headers=headers)
        except httpx2.HTTPError as exc:
            self.refuse(request, 502, "ConsoleUnreachable", f"the console's API did not answer: {type(exc).__name__}")
            return
        self._reply(request, upstream.status_code, upstream.content, upstream.headers.get("content-type", "application/json"))

    def _check(self, request: _Handler) -> tuple[int, str, str] | None:
        if not API_PATH.match(request.path):
            return 403, "PathNotRelayed", "only POST /api/<product>/<Action> is relayed to the console"
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > self.max_body:
            return 413, "BodyTooLarge", f"a request body must have a Content-Length of at most {self.max_body} bytes"
        credential = CREDENTIAL.search(request.headers.get("authorization", ""))
        if credential is None or credential.group(1) != self.access_key_id:
            return 403, "KeyNotRelayed", "only requests signed with this run's access key are relayed"
        with self._lock:
            if self.relayed >= self.max_requests:
                return 429, "TooManyRequests", f"this run may make at most {self.max_requests} API calls"
            self.relayed += 1
        return None

    def refuse(self, request: _Handler, status: int, code: str, message: str) -> None:
        with self._lock:
            self.refused.append(f"{request.command} {request.path[:200]}: {code}")
        request.close_connection = True  # an unread body must not be parsed as the next request
        self._reply(request, status, json.dumps({"Code": code, "Message": message}).encode(), "application/json")

    def _reply(self, request: _Handler, status: int, body: bytes, content_type: str) -> None:
        request.send_response(status)
        request.send_header("content-type", content_type)
        request.send_header("content-length", str(len(body)))
        if request.close_connection:
            request.send_header("connection", "close")
        request.end_headers()
        request.wfile.write(body)
