"""Snapshot/restore is the reset of every training rollout: exact, isolated, and history-preserving."""

from __future__ import annotations

import json

import pytest

from stratus.sdk import NotFoundError, StratusError
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
