"""A small client of pgAdmin's own REST endpoints (what its web UI calls), over its desktop key.

Used where the real pgAdmin must act but a browser is not the point: tests that a change made
through pgAdmin's Object Explorer connection is audited as such, and checks of its tree. Requests
carry the CSRF token pgAdmin's page script holds (``/browser/js/utils.js``), as the UI does.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import urllib.request
from typing import Any


class PgAdminRestError(RuntimeError):
    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status  # the HTTP status of an error answer
        self.body = body  # and its body (pgAdmin's JSON error)


class PgAdminRest:
    def __init__(self, base_url: str, key: str, timeout_s: float = 60) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self._request("GET", f"/?key={key}")
        script = self._request("GET", "/browser/js/utils.js").decode("utf-8", "replace")
        found = re.search(r"pgAdmin\['csrf_token'\] = '([^']+)'", script)
        if not found:
            raise PgAdminRestError("pgAdmin's page script holds no CSRF token (/browser/js/utils.js)")
        self.csrf = found.group(1)

    def _request(self, method: str, path: str, body: Any = None) -> bytes:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if hasattr(self, "csrf"):
            request.add_header("X-pgA-CSRFToken", self.csrf)
        try:
            with self._opener.open(request, timeout=self.timeout_s) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace")
            raise PgAdminRestError(f"{method} {path}: HTTP {exc.code}: {body[:300]!r}", exc.code, body) from None

    def call(self, method: str, path: str, body: Any = None) -> Any:
        payload = json.loads(self._request(method, path, body) or b"null")
        if isinstance(payload, dict) and payload.get("success") == 0:
            raise PgAdminRestError(f"{method} {path}: {payload.get('errormsg')}")
        return payload

    # --- the Object Explorer's tree -------------------------------------------------------------
    def connect_server(self, server_id: int, group_id: int = 1) -> None:
        self.call("POST", f"/browser/server/connect/{group_id}/{server_id}", {})

    def database_id(self, name: str, server_id: int, group_id: int = 1) -> int:
        nodes = self.call("GET", f"/browser/database/nodes/{group_id}/{server_id}/")["data"]
        for node in nodes:
            if node["label"] == name:
                return int(node["_id"])
        raise PgAdminRestError(f"no database {name!r} under server {server_id} (have {[n['label'] for n in nodes]})")

    def connect_database(self, database_id: int, server_id: int, group_id: int = 1) -> None:
        self.call("POST", f"/browser/database/connect/{group_id}/{server_id}/{database_id}", {})

    def create(self, node: str, parents: list[int], properties: dict[str, Any]) -> Any:
        """``POST /browser/<node>/obj/<parent ids>/``: what a node's Create dialog sends on Save."""
        path = "/".join(str(p) for p in parents)
        return self.call("POST", f"/browser/{node}/obj/{path}/", properties)
