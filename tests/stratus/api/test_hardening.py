"""Issue 13, item 6: every tenant-reachable 500 of the attack run, replayed against a real server.

Each hostile body must get a clean 4xx with a stable code and a request id, leave exactly one
audit record under the caller's account, keep the keep-alive connection usable, and never put a
NaN, a lone surrogate or a megabyte of junk into the trail. Requests go through a real Uvicorn
server on loopback (the reset connection was a transport-level symptom) with the real SDK.
"""

from __future__ import annotations

import json
import os
import sqlite3
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import httpx2
import pytest

import stratus.sdk as sdk
from stratus.api.guard import MAX_BODY_BYTES
from stratus.audit.bounds import MAX_STRING, bound, clean_text
from stratus.audit.trail import load_record
from stratus.config import Settings
from stratus.sdk import AdminClient, Client, StratusError
from stratus.server import ServerHandle, start_in_thread

ADMIN_TOKEN = "hardening-admin-token-0123456789"


class _RawBody:
    """Stands in for ``json.dumps(params)`` inside ``Client.call``: its ``encode()`` is the raw body."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def encode(self) -> bytes:
        return self.data


def raw_call(client: Client, product: str, action: str, body: bytes) -> tuple[int, dict[str, Any]]:
    """Send ``body`` exactly as given, signed by the real SDK; (status, response JSON).

    The SDK serialises parameters with ``json.dumps``; replacing that one name in the SDK module
    (not the json module itself) lets the body be anything while the signature stays the SDK's own.
    """
    with mock.patch.object(sdk, "json", types.SimpleNamespace(dumps=lambda _params: _RawBody(body))):
        try:
            return 200, client.call(product, action)
        except StratusError as exc:
            return exc.status, {"Code": exc.code, "Message": str(exc), "RequestId": exc.request_id}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerHandle]:
    path = tmp_path_factory.mktemp("hardening") / "s.db"
    handle = start_in_thread(Settings(database_url=f"sqlite:///{path}", admin_token=ADMIN_TOKEN, seed=5))
    yield handle
    handle.stop()


@pytest.fixture(scope="module")
def admin(server: ServerHandle) -> Iterator[AdminClient]:
    client = AdminClient(server.url, ADMIN_TOKEN)
    yield client
    client.close()


@pytest.fixture(scope="module")
def tenant(server: ServerHandle, admin: AdminClient) -> Iterator[tuple[dict[str, Any], Client]]:
    creds = admin.create_account("hardy", password="Passw0rd!2026")
    client = Client(server.url, creds["access_key_id"], creds["access_key_secret"])
    yield creds, client
    client.close()


def records(admin: AdminClient) -> list[dict[str, Any]]:
    return [json.loads(line) for line in admin.export_events(include_undelivered=True).splitlines()]


def record_of(admin: AdminClient, request_id: str) -> dict[str, Any]:
    found = [r for r in records(admin) if r["requestId"] == request_id]
    assert len(found) == 1, f"expected exactly one audit record for {request_id}, found {len(found)}"
    return found[0]


def connections(client: Client) -> list[Any]:
    return list(client._http._transport._pool.connections)


HOSTILE = [
    ("json nested 990 deep", "resourcecenter", "SearchResources", b"[" * 990 + b"]" * 990, "InvalidParameter.Body"),
    ("object nested 990 deep", "resourcecenter", "SearchResources", b'{"a":' * 990 + b"1" + b"}" * 990,
     "InvalidParameter.Body"),
    ("a list nested 800 deep in one parameter", "resourcecenter", "SearchResources",
     b'{"Keyword":' + b"[" * 800 + b"]" * 800 + b"}", "InvalidParameter.Keyword"),
    ("invalid UTF-8", "resourcecenter", "SearchResources", b'{"Keyword":"\xff\xfe"}', "InvalidParameter.Body"),
    ("a lone surrogate", "resourcecenter", "SearchResources", b'{"Keyword":"\\ud800"}', "InvalidParameter.Keyword"),
    ("KeyPairNames of 5000 brackets", "ecs", "DeleteKeyPairs", json.dumps({"KeyPairNames": "[" * 5000}).encode(),
     "InvalidParameter.KeyPairNames"),
    ("a number that overflows to Infinity", "resourcecenter", "SearchResources", b'{"Keyword":"a","Junk":1e999}',
     "InvalidParameter.Body"),
    ("a bare NaN", "resourcecenter", "SearchResources", b'{"Keyword":NaN}', "InvalidParameter.Body"),
    ("an integer of 5000 digits", "actiontrail", "LookupEvents", b'{"PageSize":' + b"9" * 5000 + b"}",
     "InvalidParameter.Body"),
    ("not an object", "actiontrail", "LookupEvents", b"[1, 2]", "InvalidParameter.Body"),
]


@pytest.mark.parametrize(("label", "product", "action", "body", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_body_is_a_clean_audited_4xx_on_a_kept_connection(
    tenant: tuple[dict[str, Any], Client], admin: AdminClient, label: str, product: str, action: str, body: bytes,
    code: str,
) -> None:
    creds, client = tenant
    client.call("actiontrail", "LookupEvents", PageSize=1)  # opens the keep-alive connection
    before = connections(client)
    status, answer = raw_call(client, product, action, body)
    assert 400 <= status < 500 and answer["Code"] == code, (label, status, answer)
    record = record_of(admin, answer["RequestId"])
    assert record["errorCode"] == code and record["userIdentity"]["accountId"] == creds["account_id"]
    assert record["eventName"] == action
    client.call("actiontrail", "LookupEvents", PageSize=1)
    assert connections(client) == before and len(before) == 1, "the server dropped the keep-alive connection"


def test_no_stored_record_holds_nan_and_every_lookup_page_answers(tenant: tuple[dict[str, Any], Client],
                                                                    admin: AdminClient) -> None:
    _, client = tenant
    for body in (b'{"Keyword":"a","Junk":1e999}', b'{"Keyword":-1e999}', b'{"Keyword":Infinity}'):
        assert raw_call(client, "resourcecenter", "SearchResources", body)[0] == 400
    for line in admin.export_events(include_undelivered=True).splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"a stored record holds {name}: {line[:200]}"))
    total = client.call("actiontrail", "LookupEvents", PageSize=10)["TotalCount"]
    for page in range(1, total // 10 + 2):
        client.call("actiontrail", "LookupEvents", PageSize=10, PageNumber=page)  # raises on any 5xx


def test_a_record_written_with_nan_before_the_fix_still_reads_back() -> None:
    legacy = '{"requestParameters":{"Junk":NaN,"Big":Infinity,"Small":-Infinity}}'
    params = load_record(legacy)["requestParameters"]
    assert params == {"Junk": "NaN", "Big": "Infinity", "Small": "-Infinity"}
    json.dumps(params, allow_nan=False)


def test_oversized_parameters_are_capped_and_hashed_in_the_trail(server: ServerHandle, tenant: tuple[dict[str, Any], Client],
                                                                 admin: AdminClient) -> None:
    """Three ~1 MB failed calls used to store 3 MB (10 MB bodies grew the database by 59 MB)."""
    _, client = tenant
    db_path = Path(server.runtime.settings.database_url.removeprefix("sqlite:///"))
    value = "x" * (MAX_BODY_BYTES - 100)

    def size() -> int:
        with sqlite3.connect(db_path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return os.path.getsize(db_path)

    before = size()
    ids = [raw_call(client, "resourcecenter", "SearchResources", json.dumps({"Keyword": value}).encode())[1]["RequestId"]
           for _ in range(3)]
    grown = size() - before
    assert grown < 64 * 1024, f"three 1 MB failed calls grew the database by {grown} bytes"
    stored = record_of(admin, ids[0])["requestParameters"]["Keyword"]
    import hashlib

    assert len(stored) < 400 and hashlib.sha256(value.encode()).hexdigest() in stored and str(len(value)) in stored


def test_a_body_over_the_limit_is_refused_with_413_and_audited(tenant: tuple[dict[str, Any], Client],
                                                               admin: AdminClient) -> None:
    _, client = tenant
    status, answer = raw_call(client, "resourcecenter", "SearchResources", b'{"Keyword":"' + b"x" * (10 << 20) + b'"}')
    assert status == 413 and answer["Code"] == "RequestTooLarge"
    record = record_of(admin, answer["RequestId"])
    assert record["errorCode"] == "RequestTooLarge" and len(json.dumps(record)) < 2000
    client.call("actiontrail", "LookupEvents", PageSize=1)  # the server still answers this client


def test_chunked_body_over_the_limit_is_refused(server: ServerHandle) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536

    response = httpx2.post(f"{server.url}/api/actiontrail/LookupEvents", content=chunks())
    assert response.status_code == 413 and response.json()["Code"] == "RequestTooLarge"


@pytest.mark.parametrize("body", [{"balance_cents": 2**63}, {"balance_cents": -1}, {"balance_cents": "many"}])
def test_admin_balance_out_of_range_is_an_audited_400(tenant: tuple[dict[str, Any], Client], server: ServerHandle,
                                                      admin: AdminClient, body: dict[str, Any]) -> None:
    creds, _ = tenant
    response = httpx2.put(f"{server.url}/admin/accounts/{creds['account_id']}/balance", json=body,
                          headers={"authorization": f"Bearer {ADMIN_TOKEN}"})
    assert response.status_code == 400 and response.json()["Code"] == "InvalidParameter.balance_cents"
    record = record_of(admin, response.json()["RequestId"])
    assert (record["eventName"], record["actor"], record["eventType"]) == ("SetBalance", "admin", "AdminCall")


def test_admin_clock_advance_rejects_infinity(server: ServerHandle) -> None:
    response = httpx2.post(f"{server.url}/admin/clock/advance", content=b'{"seconds": 1e999}',
                           headers={"authorization": f"Bearer {ADMIN_TOKEN}", "content-type": "application/json"})
    assert response.status_code == 400 and response.json()["Code"].startswith("InvalidParameter")


def test_an_unexpected_exception_is_an_audited_json_500_not_a_reset(tenant: tuple[dict[str, Any], Client],
                                                                   admin: AdminClient) -> None:
    creds, client = tenant
    client.call("actiontrail", "LookupEvents", PageSize=1)
    before = connections(client)

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("a bug outside any action handler")

    with mock.patch("stratus.api.router.invoke", broken):
        with pytest.raises(StratusError) as exc:
            client.call("actiontrail", "LookupEvents", PageSize=1)
    assert exc.value.status == 500 and exc.value.code == "InternalError" and exc.value.request_id
    record = record_of(admin, exc.value.request_id)
    assert record["errorCode"] == "InternalError" and record["userIdentity"]["accountId"] == creds["account_id"]
    assert "a bug" not in json.dumps(record)  # internals stay in the server log, not in the tenant's trail
    client.call("actiontrail", "LookupEvents", PageSize=1)
    assert connections(client) == before


def test_an_event_name_of_5000_characters_is_capped(tenant: tuple[dict[str, Any], Client], admin: AdminClient) -> None:
    _, client = tenant
    status, answer = raw_call(client, "ecs", "X" * 5000, b"{}")
    assert status == 404 and answer["Code"] == "InvalidAction.NotFound"
    assert len(record_of(admin, answer["RequestId"])["eventName"]) <= 64


def test_bound_never_overflows_and_keeps_values_json_clean() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    wide = {f"k{i}": "v" * 2000 for i in range(500)}
    value = bound({"deep": deep, "wide": wide, "nan": float("nan"), "big": 2**200, "huge": 10**5000,
                   "s": "\ud800ok\ud83d\ude00", "Password": "hunter2", "nested": {"AccessKeySecret": "s"}})
    text = json.dumps(value, allow_nan=False)  # strict JSON
    text.encode("utf-8")  # valid Unicode
    assert len(text) < 200_000 and "hunter2" not in text
    assert value["s"] == "\ufffdok\U0001F600" and value["nan"] == "NaN" and value["Password"] == "******"
    assert clean_text("a\udfffb") == "a\ufffdb"
    assert isinstance(value["big"], str) and len(value["wide"]["k0"]) < MAX_STRING


PG_URL = os.environ.get("STRATUS_TEST_POSTGRES_URL")


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="STRATUS_TEST_POSTGRES_URL is not set")
def test_hostile_bodies_on_postgres(tmp_path: Path) -> None:
    """PostgreSQL refuses what SQLite stores (NUL characters, over-long VARCHARs): the same attacks there."""
    from sqlalchemy import create_engine

    from stratus.audit.verify import verify_trail
    from stratus.core.db import Base
    from tests.conftest import make_cloud

    engine = create_engine(PG_URL)
    Base.metadata.drop_all(engine)
    engine.dispose()
    cloud = make_cloud(database_url=PG_URL, audit_key_file=str(tmp_path / "pg.audit-key"))
    try:
        client = cloud.tenant("pghard").sdk
        cases = [(p, a, b) for _, p, a, b, _ in HOSTILE] + [
            ("ecs", "X" * 5000, b"{}"), ("ecs", "Nul%00Action", b"{}"), ("nul%00product", "Describe", b"{}"),
            ("resourcecenter", "SearchResources", json.dumps({"Keyword": "a\u0000b", "Tag\u0000": 1}).encode()),
        ]
        for product, action, body in cases:
            status, answer = raw_call(client, product, action, body)
            assert 400 <= status < 500, (product[:20], action[:20], status, answer)
        from stratus.audit.trail import EventDraft

        draft = EventDraft(event_name="Nul\x00" + "N" * 100, event_type="ApiCall", event_rw="Read", service_name="s\x00" * 40,
                           region="cn-hangzhou", user_identity={"accountId": "1", "userName": "\x00" * 100},
                           actor="sdk\x00" * 10, error_code="E\x00" * 50, request_parameters={"k\x00": "v\x00"})
        with cloud.runtime.write_lock, cloud.runtime.session() as db:  # what a console page or the SDK could pass
            cloud.runtime.audit(db, draft, cloud.clock.now())
            db.commit()
        with cloud.runtime.session() as db:
            assert verify_trail(db, cloud.runtime.digest_signer).ok
    finally:
        cloud.runtime.close()
