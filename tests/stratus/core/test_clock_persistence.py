"""Virtual time survives a restart: a server restarted on the same database resumes its clock at or
after every time it stored, so lifecycles started before a crash complete after it (issue 13, item 8).

The "crash" is a runtime dropped without ``close()`` (its engine disposed, nothing else run): only
what committed transactions wrote survives, exactly as after ``kill -9``. The benchmark
``bench/bench_load_crash.py`` does it with a real ``kill -9`` of a ``stratus serve`` process.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from stratus.app import create_app
from stratus.config import Settings
from stratus.core.clock import ManualClock, ScaledClock, parse_time
from stratus.runtime import Runtime
from stratus.sdk import AdminClient, Client

TOKEN = "clock-test-admin-token"


def _server(db: Path, **settings: Any) -> tuple[Runtime, TestClient, AdminClient]:
    app = create_app(Settings(database_url=f"sqlite:///{db}", admin_token=TOKEN, **settings))
    http = TestClient(app)
    return app.state.runtime, http, AdminClient("http://testserver", TOKEN, transport=http._transport)


def _tenant(http: TestClient, creds: dict[str, Any]) -> Client:
    return Client("http://testserver", creds["access_key_id"], creds["access_key_secret"], transport=http._transport)


def _crash(runtime: Runtime) -> None:
    runtime.engine.dispose()  # no close(): nothing is written on the way down


def _latest_event_time(admin: AdminClient) -> datetime:
    lines = admin.export_events(include_undelivered=True).splitlines()
    return max(parse_time(json.loads(line)["eventTime"]) for line in lines)


def test_scaled_clock_resumes_after_a_crash_and_the_lifecycle_completes(tmp_path: Path) -> None:
    # At x100000, half a second of real time puts virtual time ~14 h ahead of the wall clock: the
    # situation of the report, where a restart fell back to the wall clock and the VPC stayed Pending.
    runtime, http, admin = _server(tmp_path / "s.db", time_scale=100_000.0)
    creds = admin.create_account("clocky", password="Passw0rd!2026")
    tenant = _tenant(http, creds)
    time.sleep(0.5)
    vpc_id = tenant.call("vpc", "CreateVpc", VpcName="before-crash", CidrBlock="10.0.0.0/8")["VpcId"]
    created = parse_time(tenant.call("vpc", "DescribeVpcAttribute", VpcId=vpc_id)["CreationTime"])
    assert created > datetime.now(timezone.utc) + timedelta(hours=1)
    _crash(runtime)

    runtime, http, admin = _server(tmp_path / "s.db", time_scale=10.0)  # a slower clock after restart
    try:
        resumed = runtime.clock.now()
        assert resumed >= created and resumed >= _latest_event_time(admin) - timedelta(milliseconds=1)
        tenant = _tenant(http, creds)
        assert tenant.wait_for(vpc_id, "Available", timeout=10)["Status"] == "Available"
        assert runtime.clock.now() > resumed  # and it keeps moving forward
        assert admin.verify_trail()["ok"] is True
    finally:
        runtime.close()


def test_manual_clock_resumes_where_an_advance_left_it(tmp_path: Path) -> None:
    runtime, http, admin = _server(tmp_path / "m.db", clock="manual", start_time="2026-01-05T08:00:00Z")
    creds = admin.create_account("manual", password="Passw0rd!2026")
    tenant = _tenant(http, creds)
    admin.advance_clock(15 * 3600)
    vpc_id = tenant.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8")["VpcId"]
    admin.advance_clock(60)  # commits nothing by itself, and must still be remembered
    _crash(runtime)

    runtime, http, admin = _server(tmp_path / "m.db", clock="manual", start_time="2026-01-05T08:00:00Z")
    try:
        assert admin._send("GET", "/admin/clock")["now"] == "2026-01-05T23:01:00.000Z"
        tenant = _tenant(http, creds)
        assert tenant.call("vpc", "DescribeVpcAttribute", VpcId=vpc_id)["Status"] == "Available"
    finally:
        runtime.close()


def test_a_clean_close_stores_time_seen_only_by_reads(tmp_path: Path) -> None:
    runtime, _, _ = _server(tmp_path / "c.db", time_scale=100_000.0)
    time.sleep(0.2)  # no writes at all: only close() can remember this
    seen = runtime.clock.now()
    runtime.close()
    runtime, _, _ = _server(tmp_path / "c.db")
    try:
        assert runtime.clock.now() >= seen
    finally:
        runtime.close()


def test_clock_never_starts_before_the_wall_clock_or_the_start_time(tmp_path: Path) -> None:
    runtime = Runtime(Settings(database_url=f"sqlite:///{tmp_path / 'w.db'}", admin_token=TOKEN))
    try:
        assert isinstance(runtime.clock, ScaledClock) and runtime.clock_mark is None
        assert abs((runtime.clock.now() - datetime.now(timezone.utc)).total_seconds()) < 5
    finally:
        runtime.close()
    manual = Runtime(Settings(database_url="sqlite://", admin_token=TOKEN, clock="manual", start_time="2030-01-01T00:00:00Z"))
    try:
        assert isinstance(manual.clock, ManualClock)
        assert manual.clock.now() == parse_time("2030-01-01T00:00:00Z")
    finally:
        manual.close()


def test_a_mark_never_moves_back(tmp_path: Path) -> None:
    """A clock handed in by a test may be behind the stored mark; writing with it must not lower the mark."""
    from stratus.core import server_state

    db_path = tmp_path / "b.db"
    runtime = Runtime(Settings(database_url=f"sqlite:///{db_path}", admin_token=TOKEN),
                      clock=ManualClock("2031-01-01T00:00:00Z"))
    with runtime.write_lock, runtime.session() as db:
        server_state.record_clock_mark(db, runtime.clock.now())
        db.commit()
    runtime.close()
    behind = Runtime(Settings(database_url=f"sqlite:///{db_path}", admin_token=TOKEN), clock=ManualClock("2020-01-01T00:00:00Z"))
    with behind.write_lock, behind.session() as db:
        server_state.record_clock_mark(db, behind.clock.now())
        db.commit()
        assert server_state.clock_mark(db) == parse_time("2031-01-01T00:00:00Z")
    behind.close()
