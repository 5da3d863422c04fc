"""Issue 13, item 7: the audit trail covers every stored column, is anchored by signed digests,
audits admin operations, and prints safely.

Each tamper test edits the database the way an attacker with write access would (plain SQL), then
asks the verifier. The attacks of the issue: editing ``error_code``/``resource_ids``/``deliver_at``,
deleting the last records and moving the head back, rewriting a record and re-chaining the rest.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select, text, update
from typer.testing import CliRunner

from stratus.audit.digests import AuditDigest, export_digests, key_file_for, read_digest_files
from stratus.audit.trail import GENESIS_HASH, AuditEvent, ChainHead, EventDraft, chain_hash, row_hash, verify_chain
from stratus.audit.verify import verify_trail
from stratus.cli import app as cli
from stratus.config import Settings
from stratus.runtime import Runtime
from tests.conftest import Cloud, Tenant

COLUMNS = [c.name for c in AuditEvent.__table__.columns]


def calls(tenant: Tenant, n: int) -> None:
    for i in range(n):
        tenant.sdk.call("resourcecenter", "SearchResources", Keyword=f"k{i}")


def report(cloud: Cloud, exported: list[dict[str, Any]] | None = None) -> Any:
    with cloud.runtime.session() as db:
        return verify_trail(db, cloud.runtime.digest_signer, exported)


def _tampered(column: str, value: Any) -> Any:
    if column in ("event_time", "deliver_at"):
        return value + timedelta(seconds=1)
    if isinstance(value, int):
        return value + 1000 if column == "seq" else value + 1
    if value is None:
        return "Forged"
    return value[:-1] + ("0" if value[-1:] != "0" else "1") if column in ("hash", "prev_hash") else value + " "


@pytest.mark.parametrize("column", COLUMNS)
def test_editing_any_column_of_a_record_is_detected(cloud: Cloud, tenant: Tenant, column: str) -> None:
    """Parametrised over the table itself: a column added later is covered by this test too."""
    calls(tenant, 3)
    with cloud.runtime.session() as db:
        assert verify_chain(db).ok
        event = db.get(AuditEvent, 2)
        db.execute(update(AuditEvent).where(AuditEvent.seq == 2).values({column: _tampered(column, getattr(event, column))}))
        db.commit()
        result = verify_chain(db)
    assert not result.ok and result.first_bad_seq in (2, 3), (column, result)


def test_hiding_a_failure_by_clearing_error_code_is_detected(cloud: Cloud, tenant: Tenant) -> None:
    with pytest.raises(Exception):
        tenant.sdk.call("resourcecenter", "GetResource", ResourceId="vpc-nosuch")
    with cloud.runtime.session() as db:
        seq = db.execute(select(AuditEvent.seq).where(AuditEvent.error_code == "NotFound")).scalar_one()
        db.execute(update(AuditEvent).where(AuditEvent.seq == seq).values(error_code=None, resource_ids=""))
        db.commit()
        result = verify_chain(db)
    assert not result.ok and result.first_bad_seq == seq and "hash" in result.problem


def _anchor(cloud: Cloud) -> None:
    from stratus.audit.digests import sign_now

    with cloud.runtime.session() as db:
        assert sign_now(db, cloud.runtime.digest_signer, cloud.clock.now()) is not None
        db.commit()


def _rechain(cloud: Cloud, after_seq: int = 0) -> None:
    """What an attacker does after editing: recompute every hash from the genesis and move the head."""
    with cloud.runtime.session() as db:
        prev = GENESIS_HASH
        for event in db.execute(select(AuditEvent).order_by(AuditEvent.seq)).scalars():
            event.prev_hash = prev
            values = {c.name: getattr(event, c.key) for c in AuditEvent.__table__.columns}
            event.hash = row_hash(values) if event.chain_version == 2 else chain_hash(prev, event.record)
            prev = event.hash
        head = db.get(ChainHead, 1)
        head.seq = db.execute(select(AuditEvent.seq).order_by(AuditEvent.seq.desc()).limit(1)).scalar_one()
        head.hash = prev
        db.commit()


def test_rewriting_a_record_and_rechaining_passes_the_chain_but_not_the_digests(cloud: Cloud, tenant: Tenant) -> None:
    calls(tenant, 5)
    _anchor(cloud)
    with cloud.runtime.session() as db:
        record = json.loads(db.get(AuditEvent, 3).record)
        record["requestParameters"]["Keyword"] = "innocent"
        db.execute(update(AuditEvent).where(AuditEvent.seq == 3).values(record=json.dumps(record, sort_keys=True)))
        db.commit()
    _rechain(cloud)
    with cloud.runtime.session() as db:
        assert verify_chain(db).ok  # the chain alone is fooled, as the issue found
    result = report(cloud)
    assert not result.ok and "re-chained" in result.problem


def test_deleting_the_last_records_and_moving_the_head_back_is_detected(cloud: Cloud, tenant: Tenant) -> None:
    calls(tenant, 6)
    _anchor(cloud)
    with cloud.runtime.session() as db:
        total = db.get(ChainHead, 1).seq
        db.execute(delete(AuditEvent).where(AuditEvent.seq > total - 3))
        db.commit()
    _rechain(cloud)
    with cloud.runtime.session() as db:
        assert verify_chain(db).ok
    result = report(cloud)
    assert not result.ok and "records were removed" in result.problem


def test_deleting_digests_too_is_caught_by_the_exported_digest_files(cloud: Cloud, tenant: Tenant, tmp_path: Path) -> None:
    calls(tenant, 3)
    _anchor(cloud)
    first = report(cloud).anchored_records
    calls(tenant, 3)
    _anchor(cloud)
    with cloud.runtime.session() as db:
        export_digests(db, tmp_path)
        newest = db.execute(select(AuditDigest).order_by(AuditDigest.seq.desc()).limit(1)).scalar_one()
        db.execute(delete(AuditEvent).where(AuditEvent.seq > first))  # back to the first digest
        db.execute(delete(AuditDigest).where(AuditDigest.seq == newest.seq))
        db.commit()
    _rechain(cloud)
    assert report(cloud).ok  # the database alone is consistent again: a known limit, documented
    result = report(cloud, read_digest_files(tmp_path))
    assert not result.ok and "records were removed" in result.problem


def test_a_forged_digest_fails_its_signature(cloud: Cloud, tenant: Tenant) -> None:
    calls(tenant, 2)
    _anchor(cloud)
    with cloud.runtime.session() as db:
        digest = db.execute(select(AuditDigest).order_by(AuditDigest.seq.desc()).limit(1)).scalar_one()
        document = json.loads(digest.document)
        document["lastSeq"] = 1
        digest.document = json.dumps(document, sort_keys=True, separators=(",", ":"))
        digest.last_seq = 1
        db.commit()
    result = report(cloud)
    assert not result.ok and "signature" in result.problem


def test_digests_are_written_every_n_records_and_after_a_quiet_period(cloud: Cloud, tenant: Tenant) -> None:
    cloud.runtime.digest_signer = replace(cloud.runtime.digest_signer, every_records=5, every_seconds=60)
    calls(tenant, 12)
    with cloud.runtime.session() as db:
        digests = db.execute(select(AuditDigest).order_by(AuditDigest.seq)).scalars().all()
    # the first record (the account's creation) is anchored at once, then every 5 records
    assert [d.last_seq for d in digests] == [1, 6, 11]
    cloud.advance(61)
    calls(tenant, 1)
    result = report(cloud)
    assert result.ok and result.digests == 4 and result.unanchored_records == 0


def test_the_key_lives_beside_the_database_and_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.db"
    settings = Settings(database_url=url, admin_token="a" * 20, clock="manual")
    runtime = Runtime(settings)
    key_file = key_file_for(url)
    assert key_file == tmp_path / "t.db.audit-key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    _append(runtime, 3)
    runtime.close()
    again = Runtime(settings)
    assert again.digest_signer.key == runtime.digest_signer.key
    with again.session() as db:
        assert verify_trail(db, again.digest_signer).ok
    again.close()
    key_file.write_text("ab" * 32 + "\n")  # someone replaces the key to re-sign a rewritten trail
    third = Runtime(settings)
    with third.session() as db:
        result = verify_trail(db, third.digest_signer)
    assert not result.ok and "key" in result.problem
    third.close()


def _append(runtime: Runtime, n: int, **draft: Any) -> None:
    for i in range(n):
        values = {"event_name": f"Test{i}", "event_type": "ApiCall", "event_rw": "Read", "service_name": "test",
                  "region": "cn-hangzhou", "user_identity": {"accountId": "1", "userName": "root"}, "actor": "sdk",
                  **draft}
        with runtime.session() as db:
            runtime.audit(db, EventDraft(**values), runtime.clock.now())
            db.commit()


def test_a_database_written_before_chain_version_2_is_upgraded_and_still_verifies(tmp_path: Path) -> None:
    """The old layout: no chain_version column, hashes over the record JSON only."""
    url = f"sqlite:///{tmp_path}/old.db"
    settings = Settings(database_url=url, admin_token="a" * 20, clock="manual")
    runtime = Runtime(settings)
    with runtime.engine.begin() as conn:
        conn.execute(text("ALTER TABLE audit_events DROP COLUMN chain_version"))
        prev = GENESIS_HASH
        for seq in (1, 2):
            record = json.dumps({"eventId": f"e{seq}", "eventName": "Old", "eventTime": "2026-01-05T08:00:00.000Z",
                                 "actor": "sdk", "userIdentity": {"accountId": "1"}}, sort_keys=True)
            digest = chain_hash(prev, record)
            conn.execute(text("INSERT INTO audit_events (seq, event_id, event_time, deliver_at, account_id, event_name, "
                              "event_type, event_rw, service_name, actor, user_name, error_code, resource_ids, record, "
                              "prev_hash, hash) VALUES (:seq, :eid, '2026-01-05 08:00:00.000000', "
                              "'2026-01-05 08:00:00.000000', '1', 'Old', 'ApiCall', 'Read', 'x', 'sdk', '', NULL, '', "
                              ":record, :prev, :hash)"), {"seq": seq, "eid": f"e{seq}", "record": record, "prev": prev,
                                                           "hash": digest})
            prev = digest
        conn.execute(text("INSERT INTO audit_chain_head (id, seq, hash) VALUES (1, 2, :h)"), {"h": prev})
    runtime.close()
    upgraded = Runtime(settings)  # adds the column (every old row is version 1), then writes version 2
    _append(upgraded, 2)
    with upgraded.session() as db:
        versions = db.execute(select(AuditEvent.chain_version).order_by(AuditEvent.seq)).scalars().all()
        assert versions == [1, 1, 2, 2]
        assert verify_trail(db, upgraded.digest_signer).ok
        db.execute(update(AuditEvent).where(AuditEvent.seq == 4).values(chain_version=1))  # a downgrade to dodge column coverage
        db.commit()
        assert not verify_chain(db).ok
    upgraded.close()


def test_admin_operations_are_audited_under_the_admin_pseudo_account(cloud: Cloud, tenant: Tenant) -> None:
    cloud.admin.set_balance(tenant.account_id, 5000)
    snap = cloud.admin.snapshot(tenant.account_id)
    cloud.admin.restore(snap["snapshot_id"])
    cloud.admin.advance_clock(5)
    with pytest.raises(Exception):
        cloud.admin.set_balance("nosuchaccount", 1)
    admin_records = [json.loads(line) for line in cloud.admin.export_events(include_undelivered=True).splitlines()
                     if json.loads(line)["actor"] == "admin"]
    names = [(r["eventName"], r["errorCode"]) for r in admin_records]
    for expected in [("CreateAccount", None), ("SetBalance", None), ("SnapshotAccount", None),
                     ("RestoreSnapshot", None), ("AdvanceClock", None), ("SetBalance", "NotFound")]:
        assert expected in names, expected
    created = next(r for r in admin_records if r["eventName"] == "CreateAccount")
    assert created["userIdentity"]["accountId"] == "admin" and created["eventType"] == "AdminCall"
    assert tenant.account_id in created["referencedResources"]["ACS::Account"]
    dumped = json.dumps(created)
    assert tenant.creds["access_key_secret"] not in dumped and "Passw0rd!2026" not in dumped
    tenant_view = tenant.sdk.call("actiontrail", "LookupEvents", PageSize=100)["Events"]
    assert all(r["actor"] != "admin" for r in tenant_view)


def test_a_wrong_admin_token_is_audited(cloud: Cloud) -> None:
    response = cloud.http.get("/admin/accounts", headers={"authorization": "Bearer nope"})
    assert response.status_code == 403
    last = cloud.admin.export_events(include_undelivered=True).splitlines()
    refused = [json.loads(line) for line in last if json.loads(line)["errorCode"] == "Forbidden"]
    assert refused and refused[-1]["eventName"] == "ListAccounts" and refused[-1]["actor"] == "anonymous"


def test_admin_verify_endpoint_reports_digests(cloud: Cloud, tenant: Tenant) -> None:
    calls(tenant, 2)
    created = cloud.http.post("/admin/trail/digests", headers={"authorization": "Bearer test-admin-token"}).json()
    assert created["created"] is True and created["digest"]["digestSignature"]
    result = cloud.admin.verify_trail()
    assert result["ok"] is True and result["digests"] >= 2 and result["anchored_records"] >= 3


# --- the CLI ------------------------------------------------------------------------------------


@pytest.fixture
def file_runtime(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path}/cli.db"
    runtime = Runtime(Settings(database_url=url, admin_token="a" * 20, clock="manual"))
    yield url, runtime
    runtime.close()


def test_events_prints_markup_and_escape_sequences_as_text(file_runtime: Any) -> None:
    url, runtime = file_runtime
    _append(runtime, 1, user_identity={"accountId": "1", "userName": "[/]"}, event_name="[bold]Login[/bold]")
    _append(runtime, 1, user_identity={"accountId": "1", "userName": "\x1b[31mred\x1b]52;c;aGk=\x07"})
    result = CliRunner().invoke(cli, ["events", "--database", url], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "[/]" in result.output and "[bold]Login[/bold]" in result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b[31mred" in result.output


def test_verify_trail_cli_checks_digest_files(file_runtime: Any, tmp_path: Path) -> None:
    url, runtime = file_runtime
    _append(runtime, 3)
    runner = CliRunner()
    exported = tmp_path / "digests"
    assert runner.invoke(cli, ["export-digests", str(exported), "--database", url]).exit_code == 0
    assert list(exported.glob("stratus-digest-*.json"))
    ok = runner.invoke(cli, ["verify-trail", "--database", url, "--digests", str(exported)])
    assert ok.exit_code == 0 and "hash chain intact" in ok.output and "exported digest files match" in ok.output
    with runtime.session() as db:
        db.execute(delete(AuditDigest))
        db.commit()
    bad = runner.invoke(cli, ["verify-trail", "--database", url, "--digests", str(exported)])
    assert bad.exit_code == 1 and "missing from the database" in bad.output


def test_shutdown_writes_a_final_digest(tmp_path: Path) -> None:
    from stratus.server import start_in_thread

    handle = start_in_thread(Settings(database_url=f"sqlite:///{tmp_path}/s.db", admin_token="b" * 20, seed=3))
    runtime = handle.runtime
    runtime.digest_signer = replace(runtime.digest_signer, every_records=1000, every_seconds=1e9)
    from stratus.sdk import AdminClient

    admin = AdminClient(handle.url, "b" * 20)
    created = admin.create_account("shut", password="Passw0rd!2026")  # the first record: anchored at once
    admin.get_account(created["account_id"])  # later ones wait for the next digest: here, the one written at shutdown
    admin.close()
    handle._server.should_exit = True
    handle._thread.join(timeout=10)
    with runtime.session() as db:
        result = verify_trail(db, runtime.digest_signer)
    runtime.close()
    assert result.ok and result.records >= 2 and result.unanchored_records == 0

