"""Identity: console sign-in, sessions with CSRF, signed SDK calls, and the admin boundary."""

from __future__ import annotations

import httpx2
import pytest

from stratus.sdk import AuthenticationError, Client, console_sign_in
from tests.conftest import Cloud, Tenant


def sign_in(cloud: Cloud, login: str, password: str) -> httpx2.Response:
    return console_sign_in(cloud.http, login, password)


def test_console_sign_in_sets_session_and_is_audited(cloud: Cloud, tenant: Tenant) -> None:
    bad = sign_in(cloud, "root@alpha", "wrong")
    assert bad.status_code == 401
    good = sign_in(cloud, "root@alpha", "Passw0rd!2026")
    assert good.status_code == 303 and good.headers["location"] == "/console"
    assert "stratus_session" in good.cookies
    signins = tenant.sdk.call("actiontrail", "LookupEvents", EventName="ConsoleSignin")["Events"]
    assert [(e["errorCode"], e["actor"]) for e in signins] == [(None, "console"), ("InvalidCredentials", "console")]
    assert signins[1]["userIdentity"]["type"] == "unauthenticated"
    assert signins[0]["userIdentity"]["sessionId"]


def test_api_from_console_needs_csrf_header(cloud: Cloud, tenant: Tenant) -> None:
    response = sign_in(cloud, "root@alpha", "Passw0rd!2026")
    assert response.cookies["stratus_session"]  # the test client keeps it in its cookie jar
    no_csrf = cloud.http.post("/api/actiontrail/LookupEvents", json={})
    assert no_csrf.status_code == 403 and no_csrf.json()["Code"] == "Forbidden.CSRF"
    page = cloud.http.get("/console")
    csrf = page.text.split('name="csrf-token" content="')[1].split('"')[0]
    ok = cloud.http.post("/api/actiontrail/LookupEvents", json={}, headers={"x-csrf-token": csrf})
    assert ok.status_code == 200
    record = tenant.sdk.call("actiontrail", "LookupEvents", EventName="LookupEvents", Actor="console")["Events"][0]
    assert record["userIdentity"]["sessionId"] and record["userIdentity"]["accessKeyId"] is None


def test_ram_user_signs_in_as_user_at_alias(cloud: Cloud, tenant: Tenant) -> None:
    user = cloud.admin.create_user(tenant.account_id, "alice", password="Al1ce-Passw0rd", with_access_key=True)
    assert user["login_name"] == "alice@alpha"
    # a RAM user may do nothing until a policy allows it; reading the trail needs ActionTrail read access
    tenant.sdk.call("ram", "AttachPolicyToUser", PolicyType="System", PolicyName="ActionTrailReadOnlyAccess",
                    UserName="alice")
    assert sign_in(cloud, "alice@alpha", "Al1ce-Passw0rd").status_code == 303
    client = Client("http://testserver", user["access_key_id"], user["access_key_secret"], transport=cloud.http._transport)
    record = client.call("actiontrail", "LookupEvents", EventName="ConsoleSignin")["Events"][0]
    assert record["userIdentity"]["type"] == "ram-user" and record["userIdentity"]["userName"] == "alice"


def test_bad_signature_and_unknown_key_are_rejected(cloud: Cloud, tenant: Tenant) -> None:
    forged = Client("http://testserver", tenant.creds["access_key_id"], "not-the-secret", transport=cloud.http._transport)
    with pytest.raises(AuthenticationError):
        forged.call("actiontrail", "LookupEvents")
    unknown = Client("http://testserver", "LTAINOSUCHKEY", "x", transport=cloud.http._transport)
    with pytest.raises(AuthenticationError):
        unknown.call("actiontrail", "LookupEvents")
    anonymous = cloud.http.post("/api/actiontrail/LookupEvents", json={})
    assert anonymous.status_code == 401 and anonymous.json()["Code"] == "InvalidCredentials"


def test_admin_api_refuses_tenant_credentials(cloud: Cloud, tenant: Tenant) -> None:
    sign_in(cloud, "root@alpha", "Passw0rd!2026")  # the client now carries a tenant session cookie
    for headers in ({}, {"authorization": "Bearer wrong-token"}):
        response = cloud.http.get("/admin/accounts", headers=headers)
        assert response.status_code == 403, headers
    cloud.http.cookies.clear()
    assert cloud.http.get("/admin/accounts").status_code == 403
    signed = Client("http://testserver", tenant.creds["access_key_id"], tenant.creds["access_key_secret"],
                    transport=cloud.http._transport)
    # a request carrying a tenant's valid signature on an admin path is still refused
    from stratus.core.identity import sign

    body = b'{"alias": "evil"}'
    signature = sign(tenant.creds["access_key_secret"], "POST", "/admin/accounts", "2026-01-05T08:00:00Z", body,
                     nonce="0123456789abcdef")
    response = cloud.http.post("/admin/accounts", content=body, headers={
        "content-type": "application/json", "x-stratus-date": "2026-01-05T08:00:00Z", "x-stratus-nonce": "0123456789abcdef",
        "authorization": f"STRATUS-HMAC-SHA256 Credential={tenant.creds['access_key_id']}, Signature={signature}"})
    assert response.status_code == 403
    assert all(a["alias"] != "evil" for a in cloud.admin._send("GET", "/admin/accounts"))
    signed.close()


def test_open_redirect_is_refused(cloud: Cloud, tenant: Tenant) -> None:
    response = console_sign_in(cloud.http, "root@alpha", "Passw0rd!2026", next_path="https://evil.example/")
    assert response.headers["location"] == "/console"


def test_unauthenticated_console_redirects_to_login(cloud: Cloud) -> None:
    response = cloud.http.get("/console/search?q=x", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=/console/search")
