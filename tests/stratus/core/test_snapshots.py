"""Snapshot/restore is the reset of every training rollout: exact, isolated, and history-preserving."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from stratus.core import snapshots
from stratus.core.identity import AccessKey, Account, RamUser, hash_password, principal_for_login
from stratus.sdk import AuthenticationError, NotFoundError, StratusError
from tests.conftest import Cloud, Tenant
from tests.estate import build_estate, settle


def test_round_trip_restores_exact_state_and_leaves_others_untouched(cloud: Cloud, tenant: Tenant, other_tenant: Tenant) -> None:
    estate = build_estate(cloud, tenant.provisioner)
    build_estate(cloud, other_tenant.provisioner, prefix="other")
    before = cloud.admin.account_state(tenant.account_id)
    other_before = cloud.admin.account_state(other_tenant.account_id)
    snap = cloud.admin.snapshot(tenant.account_id, name="baseline")
    assert snap["rows"] > 10

    # Change everything a rollout could: stop and delete the instance, add resources, spend money.
    tenant.sdk.call("ecs", "StopInstance", InstanceId=estate["instance"])
    settle(cloud, tenant.sdk)
    tenant.sdk.call("ecs", "DeleteInstance", InstanceId=estate["instance"])
    tenant.sdk.call("vpc", "CreateVpc", VpcName="extra", CidrBlock="10.0.0.0/8")
    tenant.sdk.call("ecs", "DeleteDisk", DiskId=estate["disk"])
    cloud.admin.set_balance(tenant.account_id, 1)
    other_tenant.sdk.call("vpc", "CreateVpc", VpcName="other-extra", CidrBlock="10.0.0.0/8")
    other_after_change = cloud.admin.account_state(other_tenant.account_id)
    assert cloud.admin.account_state(tenant.account_id) != before

    trail_before = cloud.admin.export_events()
    cloud.admin.restore(snap["snapshot_id"])
    assert cloud.admin.account_state(tenant.account_id) == before
    assert cloud.admin.account_state(other_tenant.account_id) == other_after_change != other_before
    # history is never rewritten by a restore
    assert cloud.admin.export_events().startswith(trail_before)
    assert cloud.admin.verify_trail()["ok"] is True
    # the restored instance is usable again through the API
    status = tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=estate["instance"])
    assert status["Status"] == "Running"


def test_restore_twice_gives_identical_starts(cloud: Cloud, tenant: Tenant) -> None:
    build_estate(cloud, tenant.provisioner)
    snap = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    starts = []
    for name in ("first", "second"):
        cloud.admin.restore(snap)
        starts.append(cloud.admin.account_state(tenant.account_id))
        tenant.sdk.call("vpc", "CreateVpc", VpcName=name, CidrBlock="10.0.0.0/8")
    assert starts[0] == starts[1]
    assert json.loads(starts[0])["vpc_vpcs"]


def test_restore_survives_server_cache_loss(cloud: Cloud, tenant: Tenant) -> None:
    build_estate(cloud, tenant.provisioner)
    before = cloud.admin.account_state(tenant.account_id)
    snap = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    cloud.admin.reset_account(tenant.account_id)
    assert json.loads(cloud.admin.account_state(tenant.account_id))["vpc_vpcs"] == []
    cloud.runtime.snapshot_cache.clear()  # as after a restart: the payload is read from the database
    cloud.admin.restore(snap)
    assert cloud.admin.account_state(tenant.account_id) == before


def test_reset_keeps_identity_and_empties_resources(cloud: Cloud, tenant: Tenant) -> None:
    estate = build_estate(cloud, tenant.provisioner)
    cloud.admin.reset_account(tenant.account_id, balance_cents=5000)
    with pytest.raises(NotFoundError):
        tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=estate["instance"])
    state = json.loads(cloud.admin.account_state(tenant.account_id))
    assert state["accounts"][0]["balance_cents"] == 5000
    assert len(state["access_keys"]) == 2
    assert all(not rows for table, rows in state.items() if table not in ("accounts", "access_keys", "ram_users"))


def test_unknown_snapshot_and_account(cloud: Cloud) -> None:
    with pytest.raises(StratusError) as exc:
        cloud.admin.restore("snap-nosuch")
    assert exc.value.code == "NotFound"
    with pytest.raises(StratusError) as exc:
        cloud.admin.snapshot("123")
    assert exc.value.code == "NotFound"


# --- credentials never roll back (issue 13, item 4) -------------------------------------------


def test_restore_keeps_a_key_disabled_after_the_snapshot(cloud: Cloud, tenant: Tenant) -> None:
    """The attack: disable a leaked key, then restore an older snapshot; the key must stay dead."""
    build_estate(cloud, tenant.provisioner)
    snap = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    key_id = tenant.creds["access_key_id"]
    cloud.admin.set_access_key_status(tenant.account_id, key_id, "Inactive")
    with pytest.raises(AuthenticationError):
        tenant.sdk.call("vpc", "DescribeVpcs")

    cloud.runtime.snapshot_cache.clear()  # the stored payload, not a cached copy, is what is applied
    cloud.admin.restore(snap)
    statuses = {k["access_key_id"]: k["status"] for k in cloud.admin.list_access_keys(tenant.account_id)}
    assert statuses[key_id] == "Inactive"
    with pytest.raises(AuthenticationError):
        tenant.sdk.call("vpc", "DescribeVpcs")
    assert tenant.provisioner.call("vpc", "DescribeVpcs")["TotalCount"] >= 1  # resources did come back


def test_restore_keeps_passwords_changed_after_the_snapshot(cloud: Cloud, tenant: Tenant) -> None:
    """Root and RAM user passwords set after a snapshot survive a restore; the old ones stay refused.

    stratus has no password-change action yet, so the change is written the way one would write it:
    a new hash on the account row and on the user row.
    """
    alias = tenant.creds["alias"]
    cloud.admin.create_user(tenant.account_id, "ops", password="Old-Passw0rd!1")
    snap = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    with cloud.runtime.session() as db:
        db.get(Account, tenant.account_id).root_password_hash = hash_password("New-Root-Passw0rd!2")
        db.execute(select(RamUser).where(RamUser.name == "ops")).scalar_one().password_hash = hash_password("New-Passw0rd!2")
        db.commit()

    cloud.runtime.snapshot_cache.clear()
    cloud.admin.restore(snap)
    with cloud.runtime.session() as db:
        assert principal_for_login(db, f"root@{alias}", "Passw0rd!2026") is None
        assert principal_for_login(db, f"root@{alias}", "New-Root-Passw0rd!2") is not None
        assert principal_for_login(db, f"ops@{alias}", "Old-Passw0rd!1") is None
        assert principal_for_login(db, f"ops@{alias}", "New-Passw0rd!2") is not None


def test_restore_neither_removes_nor_revives_users_and_keys(cloud: Cloud, tenant: Tenant) -> None:
    snap = cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    created = cloud.admin.create_user(tenant.account_id, "late", with_access_key=True)
    cloud.admin.restore(snap)
    state = json.loads(cloud.admin.account_state(tenant.account_id))
    assert [u["name"] for u in state["ram_users"]] == ["late"]
    assert created["access_key_id"] in {k["id"] for k in state["access_keys"]}


def test_a_payload_holding_credentials_cannot_roll_them_back(cloud: Cloud, tenant: Tenant) -> None:
    """Snapshots stored before this rule held keys and the root hash; applying one must ignore them."""
    key_id = tenant.creds["access_key_id"]
    with cloud.runtime.session() as db:
        legacy = snapshots.capture(db, tenant.account_id)
        legacy["accounts"][0]["root_password_hash"] = hash_password("Legacy-Passw0rd!")
        legacy["access_keys"] = [{**row, "status": "Active"} for row in
                                 db.execute(select(AccessKey.__table__).where(AccessKey.account_id == tenant.account_id)).mappings()]
    cloud.admin.set_access_key_status(tenant.account_id, key_id, "Inactive")
    with cloud.runtime.write_lock, cloud.runtime.session() as db:
        snapshots.apply(db, tenant.account_id, legacy)
        db.commit()
        assert db.get(AccessKey, key_id).status == "Inactive"
        assert principal_for_login(db, f"root@{tenant.creds['alias']}", "Legacy-Passw0rd!") is None


def test_which_tables_a_snapshot_holds() -> None:
    restorable = {t.name for t in snapshots.owned_tables()}
    credentials = {t.name for t in snapshots.credential_tables()}
    assert {"ram_users", "access_keys"} <= credentials
    assert not restorable & credentials
    assert not restorable & {"console_sessions", "audit_events", "account_snapshots", "server_state"}
    assert {"vpc_vpcs", "ecs_instances"} <= restorable
    # a restorable row never points at a credential row (a restore could otherwise break a foreign key)
    for table in snapshots.owned_tables():
        assert not {fk.column.table.name for fk in table.foreign_keys} & credentials, table.name
    assert "root_password_hash" not in snapshots.ACCOUNT_STATE_COLUMNS
