"""Console sign-in hardening (issue 13, item 9): CSRF on the login form, throttling per login name
and per address with an expiring lockout, sign-out as an audited POST with CSRF, no timing oracle
between unknown alias, unknown user and wrong password, and ``Secure`` cookies on request.

The attack this reproduces: 60 wrong passwords in 1.7 s, then a successful sign-in.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path
from datetime import datetime, timezone
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from stratus.console import throttle
from stratus.core.clock import ManualClock
from stratus.core.identity import attempt_login
from stratus.sdk import console_sign_in
from stratus.server import free_port
from tests.conftest import Cloud, Tenant, make_cloud
from tests.stratus.api.test_signing import serve_process, wait_healthy

PASSWORD = "Passw0rd!2026"


def attempt(cloud: Cloud, login: str, password: str) -> Any:
    return console_sign_in(cloud.http, login, password)


def anonymous_records(cloud: Cloud) -> list[dict[str, Any]]:
    return [json.loads(line) for line in cloud.admin.export_events("anonymous", include_undelivered=True).splitlines()]


@pytest.fixture
def clock(cloud: Cloud) -> ManualClock:
    """The wall clock of security checks, under the test's control."""
    manual = ManualClock(datetime.now(timezone.utc))  # starts at real time: SDK calls still pass
    cloud.runtime.security_clock = manual  # type: ignore[attr-defined]
    return manual


def test_login_form_carries_a_csrf_token(cloud: Cloud, tenant: Tenant) -> None:
    form = cloud.http.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
    assert form.cookies.get("stratus_login_csrf") == token
    no_token = cloud.http.post("/login", data={"login_name": "root@alpha", "password": PASSWORD}, follow_redirects=False)
    assert no_token.status_code == 403 and "has expired" in no_token.text
    cloud.http.cookies.clear()  # a cross-site post: the form's token, but not the victim's SameSite cookie
    forged = cloud.http.post("/login", data={"login_name": "root@alpha", "password": PASSWORD, "csrf_token": token},
                             follow_redirects=False)
    assert forged.status_code == 403 and "stratus_session" not in forged.cookies
    records = tenant.sdk.call("actiontrail", "LookupEvents", EventName="ConsoleSignin", ErrorCode="Forbidden.CSRF")["Events"]
    assert len(records) == 2 and records[0]["requestParameters"] == {"LoginName": "root@alpha"}
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 303


def test_attack_sixty_wrong_passwords_then_the_right_one_is_locked_out(cloud: Cloud, tenant: Tenant,
                                                                      clock: ManualClock) -> None:
    codes = [attempt(cloud, "root@alpha", f"guess-{i}").status_code for i in range(60)]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    locked = attempt(cloud, "root@alpha", PASSWORD)
    assert locked.status_code == 429 and "Try again in 15 minute(s)" in locked.text
    assert "stratus_session" not in locked.cookies
    throttled = tenant.sdk.call("actiontrail", "LookupEvents", EventName="ConsoleSignin", ErrorCode="Throttling.Login",
                                PageSize=100)
    assert throttled["TotalCount"] == 56  # 55 guesses and the right password, each refused and audited
    clock.advance(14 * 60)
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 429, "still locked after 14 minutes"
    clock.advance(61)
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 303, "the lockout expires"


def test_success_clears_the_name_but_the_address_limit_holds(cloud: Cloud, tenant: Tenant, clock: ManualClock) -> None:
    for _ in range(4):
        assert attempt(cloud, "root@alpha", "wrong").status_code == 401
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 303
    for _ in range(4):  # the name's count started again
        assert attempt(cloud, "root@alpha", "wrong").status_code == 401
    # spraying other names from the same address: 8 failures so far, the limit is 20
    for i in range(12):
        assert attempt(cloud, f"user{i}@alpha", "wrong").status_code == 401
    blocked = attempt(cloud, "someone@alpha", "wrong")
    assert blocked.status_code == 429 and "from this address" in tenant.sdk.call(
        "actiontrail", "LookupEvents", ErrorCode="Throttling.Login")["Events"][0]["errorMessage"]


def test_failed_login_to_unknown_alias_is_audited_as_anonymous(cloud: Cloud, tenant: Tenant) -> None:
    assert attempt(cloud, "root@nosuchalias", "x").status_code == 401
    assert attempt(cloud, "[/]\x1b[31m@alpha", "x").status_code == 401
    records = anonymous_records(cloud)
    assert [(r["eventName"], r["errorCode"], r["requestParameters"]) for r in records] == [
        ("ConsoleSignin", "InvalidCredentials", {"LoginName": "root@nosuchalias"})]
    own = tenant.sdk.call("actiontrail", "LookupEvents", EventName="ConsoleSignin", ErrorCode="InvalidCredentials")["Events"]
    assert own[0]["userIdentity"]["userName"] == "[/][31m", "control characters are not stored"


def test_logout_is_a_post_with_csrf_and_is_audited(cloud: Cloud, tenant: Tenant) -> None:
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 303
    page = cloud.http.get("/console")
    assert 'action="/logout"' in page.text and 'href="/logout"' not in page.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    assert cloud.http.get("/logout", follow_redirects=False).status_code == 405
    refused = cloud.http.post("/logout", data={"csrf_token": "forged"}, follow_redirects=False)
    assert refused.status_code == 403
    assert cloud.http.get("/console", follow_redirects=False).status_code == 200, "still signed in"
    token = cloud.http.cookies.get("stratus_session")
    done = cloud.http.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/login"
    cloud.http.cookies.set("stratus_session", token)  # replaying the old cookie: the session is gone server-side
    assert cloud.http.get("/console", follow_redirects=False).status_code == 303
    events = tenant.sdk.call("actiontrail", "LookupEvents", EventName="ConsoleSignout")["Events"]
    assert [(e["errorCode"], e["actor"], e["userIdentity"]["userName"]) for e in events] == [
        (None, "console", "root"), ("Forbidden.CSRF", "console", "root")]


def test_console_api_csrf_comparison_handles_any_header(cloud: Cloud, tenant: Tenant) -> None:
    assert attempt(cloud, "root@alpha", PASSWORD).status_code == 303
    for header in (b"", b"x" * 5000, "caf\u00e9".encode()):
        response = cloud.http.post("/api/vpc/DescribeVpcs", json={}, headers={"x-csrf-token": header})
        assert (response.status_code, response.json()["Code"]) == (403, "Forbidden.CSRF")
    records = tenant.sdk.call("actiontrail", "LookupEvents", EventName="DescribeVpcs", ErrorCode="Forbidden.CSRF")["Events"]
    assert len(records) == 3 and records[0]["actor"] == "console" and records[0]["userIdentity"]["sessionId"]


def test_secure_cookies_setting() -> None:
    secure = make_cloud(cookie_secure=True)
    try:
        secure.tenant("alpha")
        https = TestClient(secure.http.app, base_url="https://testserver")  # a Secure cookie only travels over HTTPS
        form = https.get("/login")
        assert "secure" in form.headers["set-cookie"].lower()
        response = console_sign_in(https, "root@alpha", PASSWORD)
        session_cookie = [c for c in response.headers.get_list("set-cookie") if c.startswith("stratus_session=")]
        assert session_cookie and "secure" in session_cookie[0].lower() and "httponly" in session_cookie[0].lower()
    finally:
        secure.runtime.close()
    plain = make_cloud()
    try:
        assert "secure" not in plain.http.get("/login").headers["set-cookie"].lower()
    finally:
        plain.runtime.close()


def test_serve_secure_cookies_flag(tmp_path: Path) -> None:
    """`stratus serve --secure-cookies` (the real CLI in its own process) marks the login cookie Secure."""
    port = free_port()
    log = tmp_path / "serve.log"
    proc = serve_process(f"sqlite:///{tmp_path}/secure.db", port, log, "--secure-cookies")
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        cookie = httpx2.get(f"http://127.0.0.1:{port}/login").headers["set-cookie"]
        assert cookie.startswith("stratus_login_csrf=") and "secure" in cookie.lower()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_wrong_logins_take_the_same_time(cloud: Cloud, tenant: Tenant) -> None:
    """Before: unknown alias 2.2 ms, unknown user 4.2 ms, wrong password 10.5 ms. Now every path
    runs one password hash. The work is measured as this thread's CPU time (wall time on a shared
    2-core machine mostly measures the other processes), cases interleaved, median of each."""
    cloud.admin.create_user(tenant.account_id, "alice", password="Al1ce-Passw0rd")
    cases = {"unknown alias": "root@nosuchalias", "unknown user": "nobody@alpha", "wrong root password": "root@alpha",
             "wrong user password": "alice@alpha"}
    times: dict[str, list[float]] = {name: [] for name in cases}
    with cloud.runtime.session() as db:
        for _ in range(20):
            for name, login in cases.items():
                start = time.thread_time()
                assert attempt_login(db, login, "wrong").principal is None
                times[name].append((time.thread_time() - start) * 1000)
    medians = {name: statistics.median(values) for name, values in times.items()}
    assert max(medians.values()) / min(medians.values()) < 1.5, medians


def test_throttle_window_arithmetic(cloud: Cloud) -> None:
    now = ManualClock("2026-11-24T08:00:00Z")
    with cloud.runtime.session() as db:
        for minute in range(5):
            throttle.record_failure(db, "root@alpha", "10.0.0.1", now.now())
            now.advance(60)
        lock = throttle.check(db, "root@alpha", "10.0.0.9", now.now())
        assert lock is not None and not lock.by_address
        assert lock.minutes_left(now.now()) == 10  # the first failure (at 08:00) leaves the window at 08:15
        assert throttle.check(db, "ROOT@alpha ", "10.0.0.9", now.now()) is not None, "names compare case-blind"
        assert throttle.check(db, "bob@alpha", "10.0.0.9", now.now()) is None
