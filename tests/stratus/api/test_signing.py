"""Signed API requests are fresh: a date inside the 15-minute window and a nonce used once.

The attack (issue 13, item 2): the date header was never checked, so a captured request could be
replayed forever (dates 2000, 2099, garbage or none all passed). Each test below sends real
signed HTTP requests through the app and checks the stable error code and its audit record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import func, select

from stratus.api.freshness import RequestNonce
from stratus.core.clock import ManualClock
from stratus.core.identity import sign
from stratus.server import free_port
from tests.conftest import ADMIN_TOKEN, Cloud, Tenant

PATH = "/api/vpc/DescribeVpcs"


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def signed_headers(tenant: Tenant, *, date: str | None, nonce: str | None, body: bytes = b"{}",
                   sign_date: str | None = None, sign_nonce: str | None = None) -> dict[str, str]:
    """Headers of a request signed with the tenant's key; ``None`` leaves a header out."""
    signature = sign(tenant.creds["access_key_secret"], "POST", PATH, sign_date if sign_date is not None else (date or ""),
                     body, nonce=sign_nonce if sign_nonce is not None else (nonce or ""))
    headers = {"content-type": "application/json",
               "authorization": f"STRATUS-HMAC-SHA256 Credential={tenant.creds['access_key_id']}, Signature={signature}"}
    if date is not None:
        headers["x-stratus-date"] = date
    if nonce is not None:
        headers["x-stratus-nonce"] = nonce
    return headers


def fresh_nonce() -> str:
    return uuid.uuid4().hex


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def test_sdk_calls_carry_date_and_nonce(cloud: Cloud, tenant: Tenant) -> None:
    for _ in range(3):  # three calls, three nonces
        assert tenant.sdk.call("vpc", "DescribeVpcs")["TotalCount"] == 0
    with cloud.runtime.session() as db:
        assert db.execute(select(func.count()).select_from(RequestNonce)).scalar_one() == 3


def test_replayed_request_is_refused_and_audited(cloud: Cloud, tenant: Tenant) -> None:
    headers = signed_headers(tenant, date=stamp(now_utc()), nonce=fresh_nonce())
    first = cloud.http.post(PATH, content=b"{}", headers=headers)
    assert first.status_code == 200
    replayed = cloud.http.post(PATH, content=b"{}", headers=headers)
    assert (replayed.status_code, replayed.json()["Code"]) == (401, "SignatureNonceUsed")
    record = tenant.sdk.call("actiontrail", "LookupEvents", ErrorCode="SignatureNonceUsed")["Events"]
    assert len(record) == 1
    assert record[0]["eventName"] == "DescribeVpcs" and record[0]["userIdentity"]["accessKeyId"] == tenant.creds["access_key_id"]
    assert record[0]["requestParameters"] is None  # a refused request's body is never stored


@pytest.mark.parametrize(("date", "code"), [
    (None, "MissingTimestamp"),
    ("", "MissingTimestamp"),
    ("garbage", "InvalidTimeStamp.Format"),
    ("2026-13-45T99:00:00Z", "InvalidTimeStamp.Format"),
    ("2000-01-01T00:00:00Z", "InvalidTimeStamp.Expired"),
    ("2099-01-01T00:00:00Z", "InvalidTimeStamp.Expired"),
])
def test_date_header_is_checked(cloud: Cloud, tenant: Tenant, date: str | None, code: str) -> None:
    response = cloud.http.post(PATH, content=b"{}", headers=signed_headers(tenant, date=date, nonce=fresh_nonce()))
    assert (response.status_code, response.json()["Code"]) == (401, code)


def test_window_is_fifteen_minutes_either_side(cloud: Cloud, tenant: Tenant) -> None:
    now = now_utc()
    for offset, ok in ((-14, True), (14, True), (-16, False), (16, False)):
        date = stamp(now + timedelta(minutes=offset))
        response = cloud.http.post(PATH, content=b"{}", headers=signed_headers(tenant, date=date, nonce=fresh_nonce()))
        assert (response.status_code == 200) is ok, (offset, response.json())
        if not ok:
            assert response.json()["Code"] == "InvalidTimeStamp.Expired"
            assert "15 minutes" in response.json()["Message"]


@pytest.mark.parametrize(("nonce", "code"), [(None, "MissingSignatureNonce"), ("short", "InvalidSignatureNonce"),
                                             ("x" * 65, "InvalidSignatureNonce"), ("bad nonce with spaces!", "InvalidSignatureNonce")])
def test_nonce_header_is_checked(cloud: Cloud, tenant: Tenant, nonce: str | None, code: str) -> None:
    response = cloud.http.post(PATH, content=b"{}", headers=signed_headers(tenant, date=stamp(now_utc()), nonce=nonce))
    assert (response.status_code, response.json()["Code"]) == (401, code)


def test_date_and_nonce_are_signed(cloud: Cloud, tenant: Tenant) -> None:
    """A replay with a fresh nonce or a fresh date breaks the signature."""
    old_date, new_date = stamp(now_utc() - timedelta(minutes=1)), stamp(now_utc())
    new_nonce = fresh_nonce()
    with_new_nonce = signed_headers(tenant, date=new_date, nonce=new_nonce, sign_nonce=fresh_nonce())
    with_new_date = signed_headers(tenant, date=new_date, nonce=fresh_nonce(), sign_date=old_date)
    for headers in (with_new_nonce, with_new_date):
        response = cloud.http.post(PATH, content=b"{}", headers=headers)
        assert (response.status_code, response.json()["Code"]) == (401, "InvalidCredentials")


def test_nonces_are_pruned_after_the_window(cloud: Cloud, tenant: Tenant) -> None:
    clock = ManualClock(now_utc())
    cloud.runtime.security_clock = clock  # type: ignore[attr-defined]
    captured = signed_headers(tenant, date=stamp(clock.now()), nonce=fresh_nonce())
    assert cloud.http.post(PATH, content=b"{}", headers=captured).status_code == 200
    clock.advance(16 * 60)
    # the captured request is now refused by its date (its nonce memory is no longer needed)
    late = cloud.http.post(PATH, content=b"{}", headers=captured)
    assert late.json()["Code"] == "InvalidTimeStamp.Expired"
    fresh = signed_headers(tenant, date=stamp(clock.now()), nonce=fresh_nonce())
    assert cloud.http.post(PATH, content=b"{}", headers=fresh).status_code == 200
    with cloud.runtime.session() as db:
        left = db.execute(select(RequestNonce.nonce)).scalars().all()
    assert left == [fresh["x-stratus-nonce"]], "the expired nonce was pruned, the fresh one kept"


def test_unauthenticated_calls_are_audited_to_the_right_account(cloud: Cloud, tenant: Tenant) -> None:
    anonymous = cloud.http.post(PATH, json={}, headers={"user-agent": "scanner\x1b[31m/1.0"})
    assert anonymous.status_code == 401
    unknown_key = cloud.http.post(PATH, content=b"{}", headers={
        "authorization": "STRATUS-HMAC-SHA256 Credential=LTAINOSUCHKEY, Signature=" + "0" * 64,
        "x-stratus-date": stamp(now_utc()), "x-stratus-nonce": fresh_nonce()})
    assert unknown_key.json()["Code"] == "InvalidCredentials"
    lines = [json.loads(line) for line in cloud.admin.export_events("anonymous", include_undelivered=True).splitlines()]
    assert [(r["eventName"], r["errorCode"], r["userIdentity"]["type"], r["actor"]) for r in lines] == [
        ("DescribeVpcs", "InvalidCredentials", "anonymous", "anonymous")] * 2
    assert lines[0]["userAgent"] == "scanner[31m/1.0", "control characters are dropped"
    # a wrong secret for a real key is the key owner's business: it lands in the owner's trail
    forged = signed_headers(tenant, date=stamp(now_utc()), nonce=fresh_nonce())
    forged["authorization"] = forged["authorization"][:-64] + "f" * 64
    assert cloud.http.post(PATH, content=b"{}", headers=forged).status_code == 401
    own = tenant.sdk.call("actiontrail", "LookupEvents", ErrorCode="InvalidCredentials")["Events"]
    assert len(own) == 1 and own[0]["userIdentity"]["accessKeyId"] == tenant.creds["access_key_id"]


def serve_process(db_url: str, port: int, log: Path, *flags: str) -> subprocess.Popen[bytes]:
    """``stratus serve`` in its own process (the real CLI), output in ``log``."""
    env = {**os.environ, "STRATUS_ADMIN_TOKEN": ADMIN_TOKEN}
    command = [sys.executable, "-c", "from stratus.cli import app; app()", "serve", "--database", db_url,
               "--port", str(port), *flags]
    return subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited: {log.read_text()[-2000:]}")
        try:
            if httpx2.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"server at {url} did not start: {log.read_text()[-2000:]}")


def test_nonce_is_single_use_across_server_processes(tmp_path: Path) -> None:
    """Two `stratus serve` processes on one SQLite database: the same signed request, sent 8 times
    at once to the first and then to the second, succeeds exactly once."""
    db_url = f"sqlite:///{tmp_path}/shared.db"
    ports = [free_port(), free_port()]
    logs = [tmp_path / f"server{i}.log" for i in range(2)]
    procs = [serve_process(db_url, ports[0], logs[0])]
    try:
        url_a = f"http://127.0.0.1:{ports[0]}"
        wait_healthy(url_a, procs[0], logs[0])  # the first creates the schema; then the second starts
        procs.append(serve_process(db_url, ports[1], logs[1]))
        url_b = f"http://127.0.0.1:{ports[1]}"
        wait_healthy(url_b, procs[1], logs[1])
        creds = httpx2.post(f"{url_a}/admin/accounts", json={"alias": "shared", "password": "Passw0rd!2026"},
                            headers={"authorization": f"Bearer {ADMIN_TOKEN}"}).json()
        tenant: Any = Tenant(creds, None, None)  # type: ignore[arg-type]
        headers = signed_headers(tenant, date=stamp(now_utc()), nonce=fresh_nonce())

        def send(url: str) -> tuple[int, str]:
            response = httpx2.post(f"{url}{PATH}", content=b"{}", headers=headers, timeout=30)
            return response.status_code, response.json().get("Code", "")

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(send, [url_a] * 8))
        assert sorted(results) == [(200, "")] + [(401, "SignatureNonceUsed")] * 7, results
        # the other process shares the memory of nonces through the database
        assert send(url_b) == (401, "SignatureNonceUsed")
        fresh = signed_headers(tenant, date=stamp(now_utc()), nonce=fresh_nonce())
        assert httpx2.post(f"{url_b}{PATH}", content=b"{}", headers=fresh, timeout=30).status_code == 200
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=20)
