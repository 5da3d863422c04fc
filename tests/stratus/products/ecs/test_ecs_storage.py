"""ECS disks and snapshots through the public API: validation, the state machines on the clock, quotas, audit."""

from __future__ import annotations

from typing import Any

import pytest

from stratus.sdk import Client, StratusError
from tests.stratus.products.ecs.test_ecs_security_groups import IMAGE, _system_ctx, make_instance, make_vpc, set_instance_status, settle


def _error(fn: Any, *args: Any, **kwargs: Any) -> StratusError:
    with pytest.raises(StratusError) as info:
        fn(*args, **kwargs)
    return info.value


def _disk(client: Client, disk_id: str) -> dict[str, Any]:
    return client.call("ecs", "DescribeDisks", DiskIds=[disk_id])["Disks"][0]


def _create(client: Client, zone: str = "cn-hangzhou-h", **params: Any) -> str:
    params.setdefault("Size", 40)
    return client.call("ecs", "CreateDisk", ZoneId=zone, **params)["DiskId"]


@pytest.fixture
def env(cloud: Any, tenant: Any) -> dict[str, str]:
    net = make_vpc(cloud, tenant)
    sg = tenant.sdk.call("ecs", "CreateSecurityGroup", VpcId=net["vpc"], SecurityGroupName="storage-sg")["SecurityGroupId"]
    instance = make_instance(cloud, tenant, net, [sg])
    return {**net, "sg": sg, "instance": instance}


# --- disks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("params", "code"), [
    ({"ZoneId": "cn-hangzhou-z"}, "InvalidParameter.ZoneId"),
    ({"DiskCategory": "cloud"}, "InvalidParameter.DiskCategory"),
    ({"DiskCategory": "cloud_ssd", "PerformanceLevel": "PL1"}, "InvalidParameter.PerformanceLevel"),
    ({"DiskCategory": "cloud_essd", "PerformanceLevel": "PL9"}, "InvalidParameter.PerformanceLevel"),
    ({"DiskCategory": "cloud_efficiency", "Size": 19}, "InvalidParameter.Size"),
    ({"DiskCategory": "cloud_ssd", "Size": 32769}, "InvalidParameter.Size"),
    ({"DiskCategory": "cloud_essd", "PerformanceLevel": "PL2", "Size": 460}, "InvalidParameter.Size"),
    ({"DiskCategory": "cloud_essd", "PerformanceLevel": "PL3", "Size": 1260}, "InvalidParameter.Size"),
    ({"DiskCategory": "cloud_essd", "Size": 65537}, "InvalidParameter.Size"),
    ({"Size": None}, "MissingParameter"),
    ({"DiskName": "http://disk"}, "InvalidParameter.DiskName"),
    ({"SnapshotId": "s-missing"}, "NotFound"),
])
def test_create_disk_validation(tenant: Any, params: dict[str, Any], code: str) -> None:
    values = {"ZoneId": "cn-hangzhou-h", "Size": 40, **params}
    assert _error(tenant.sdk.call, "ecs", "CreateDisk", **values).code == code
    assert tenant.sdk.call("ecs", "DescribeDisks")["TotalCount"] == 0


def test_create_disk_lifecycle_and_describe_filters(cloud: Any, tenant: Any) -> None:
    client = tenant.sdk
    essd = _create(client, DiskCategory="cloud_essd", Size=20, DiskName="data-essd", Description="logs")
    disk = _disk(client, essd)
    assert (disk["Status"], disk["Category"], disk["PerformanceLevel"], disk["Size"], disk["Type"]) == \
        ("Creating", "cloud_essd", "PL1", 20, "data")
    assert disk["Portable"] is True and disk["InstanceId"] == "" and disk["DeleteWithInstance"] is False
    cloud.advance(1)
    assert _disk(client, essd)["Status"] == "Creating"
    cloud.advance(1.5)
    assert _disk(client, essd)["Status"] == "Available"
    pl0 = _create(client, DiskCategory="cloud_essd", PerformanceLevel="PL0", Size=1)
    _create(client, "cn-hangzhou-i", DiskCategory="cloud_auto", Size=100, DiskName="auto-one")
    assert _disk(client, pl0)["PerformanceLevel"] == "PL0"

    assert client.call("ecs", "DescribeDisks")["TotalCount"] == 3
    assert client.call("ecs", "DescribeDisks", ZoneId="cn-hangzhou-i")["Disks"][0]["Category"] == "cloud_auto"
    assert client.call("ecs", "DescribeDisks", Category="cloud_essd")["TotalCount"] == 2
    assert client.call("ecs", "DescribeDisks", Status="Available")["Disks"][0]["DiskId"] == essd
    assert client.call("ecs", "DescribeDisks", DiskType="system")["TotalCount"] == 0
    assert client.call("ecs", "DescribeDisks", Keyword="essd")["TotalCount"] == 1
    assert client.call("ecs", "DescribeDisks", DiskName="auto-one")["TotalCount"] == 1
    assert client.call("ecs", "DescribeDisks", DiskIds=f'["{essd}","{pl0}"]')["TotalCount"] == 2
    paged = client.call("ecs", "DescribeDisks", PageSize=2, PageNumber=2, SortBy="Size", SortOrder="Asc")
    assert paged["TotalCount"] == 3 and [d["Size"] for d in paged["Disks"]] == [100]

    client.call("ecs", "ModifyDiskAttribute", DiskId=essd, DiskName="renamed", Description="d", DeleteWithInstance=True)
    assert (_disk(client, essd)["DiskName"], _disk(client, essd)["DeleteWithInstance"]) == ("renamed", True)


def test_disk_quota_and_balance(cloud: Any, tenant: Any) -> None:
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.disks": 1})
    _create(tenant.sdk)
    assert _error(_create, tenant.sdk).code == "QuotaExceeded"
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.disks": 10})
    cloud.admin.set_balance(tenant.account_id, 0)
    assert _error(_create, tenant.sdk).code == "InsufficientBalance"


def test_attach_detach_state_machine(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    instance = env["instance"]
    system = client.call("ecs", "DescribeDisks", InstanceId=instance, DiskType="system")["Disks"][0]
    assert (system["Device"], system["Status"], system["Portable"]) == ("/dev/xvda", "In_use", False)

    disk = _create(client)
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=instance, DiskId=disk).code == "IncorrectStatus"  # Creating
    settle(cloud, client, 3)
    other_zone = _create(client, "cn-hangzhou-i")
    settle(cloud, client, 3)
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=instance, DiskId=other_zone).code == "InvalidParameter.InstanceId"
    assert _error(client.call, "ecs", "AttachDisk", InstanceId="i-missing", DiskId=disk).code == "NotFound"
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=instance, DiskId=system["DiskId"]).code == "InvalidParameter.DiskId"

    client.call("ecs", "AttachDisk", InstanceId=instance, DiskId=disk, DeleteWithInstance=True)
    attaching = _disk(client, disk)
    assert (attaching["Status"], attaching["InstanceId"], attaching["Device"]) == ("Attaching", instance, "/dev/xvdb")
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=instance, DiskId=disk).code == "IncorrectStatus"
    assert _error(client.call, "ecs", "DetachDisk", InstanceId=instance, DiskId=disk).code == "IncorrectStatus"
    cloud.advance(2)
    assert _disk(client, disk)["Status"] == "In_use"
    assert _error(client.call, "ecs", "DeleteDisk", DiskId=disk).code == "IncorrectStatus"

    assert _error(client.call, "ecs", "DetachDisk", InstanceId=instance, DiskId=system["DiskId"]).code == "InvalidParameter.DiskId"
    assert _error(client.call, "ecs", "DetachDisk", InstanceId=instance, DiskId=other_zone).code == "InvalidParameter.InstanceId"
    client.call("ecs", "DetachDisk", InstanceId=instance, DiskId=disk)
    detaching = _disk(client, disk)
    assert (detaching["Status"], detaching["InstanceId"]) == ("Detaching", instance)
    cloud.advance(2)
    detached = _disk(client, disk)
    assert (detached["Status"], detached["InstanceId"], detached["Device"]) == ("Available", "", "")
    client.call("ecs", "DeleteDisk", DiskId=disk)
    assert client.call("ecs", "DescribeDisks", DiskIds=[disk])["TotalCount"] == 0
    assert _error(client.call, "ecs", "DeleteDisk", DiskId=disk).code == "NotFound"

    # every transition was audited as a ServiceEvent
    cloud.advance(600)
    events = client.call("actiontrail", "LookupEvents", ResourceId=disk, EventName="Disk:StateChange", PageSize=50)["Events"]
    assert sorted(e["responseElements"]["Status"] for e in events) == ["Available", "Available", "In_use"]


def _run(client: Client, env: dict[str, str], data_disks: list[dict[str, Any]]) -> str:
    run = client.call("ecs", "RunInstances", ZoneId=env["zone"], InstanceType="ecs.g7.large", ImageId=IMAGE,
                      SecurityGroupId=env["sg"], VSwitchId=env["vswitch"], InstanceChargeType="PostPaid",
                      SystemDisk={"Category": "cloud_essd", "Size": 40}, DataDisk=data_disks)
    return run["InstanceIdSets"]["InstanceIdSet"][0]


def test_attach_needs_running_or_stopped_instance_and_limits_data_disks(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    full = _run(client, env, [{"Category": "cloud_efficiency", "Size": 20}] * 16)
    extra = _create(client)
    cloud.advance(0.5)
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=full, DiskId=extra).code == "IncorrectStatus"  # Creating
    settle(cloud, client, 30)
    devices = sorted(d["Device"] for d in client.call("ecs", "DescribeDisks", InstanceId=full, DiskType="data", PageSize=50)["Disks"])
    assert devices == [f"/dev/xvd{c}" for c in "bcdefghijklmnopq"]
    starting = _run(client, env, [])
    assert _error(client.call, "ecs", "AttachDisk", InstanceId=starting, DiskId=extra).code == "IncorrectStatus"  # Pending
    too_many = _error(client.call, "ecs", "AttachDisk", InstanceId=full, DiskId=extra)
    assert too_many.code == "InvalidParameter.InstanceId" and "16" in too_many.message


def test_resize_only_grows_and_respects_mode(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    disk = _create(client, DiskCategory="cloud_ssd", Size=50)
    settle(cloud, client, 3)
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=disk, NewSize=50).code == "InvalidParameter.NewSize"
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=disk, NewSize=40).code == "InvalidParameter.NewSize"
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=disk, NewSize=40000).code == "InvalidParameter.NewSize"
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=disk, NewSize=60, Type="online").code == "IncorrectStatus"
    client.call("ecs", "ResizeDisk", DiskId=disk, NewSize=60)
    assert _disk(client, disk)["Size"] == 60

    client.call("ecs", "AttachDisk", InstanceId=env["instance"], DiskId=disk)
    settle(cloud, client, 3)
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=disk, NewSize=70, Type="offline").code == "IncorrectStatus"
    client.call("ecs", "ResizeDisk", DiskId=disk, NewSize=70, Type="online")
    system = client.call("ecs", "DescribeDisks", InstanceId=env["instance"], DiskType="system")["Disks"][0]
    assert _error(client.call, "ecs", "ResizeDisk", DiskId=system["DiskId"], NewSize=2049, Type="online").code == \
        "InvalidParameter.NewSize"  # system disks stop at 2 TiB
    set_instance_status(cloud, tenant, env["instance"], "Stopped")
    client.call("ecs", "ResizeDisk", DiskId=disk, NewSize=80, Type="offline")
    assert _disk(client, disk)["Size"] == 80


def test_instance_release_deletes_or_keeps_its_disks(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    instance = _run(client, env, [{"Category": "cloud_essd", "Size": 100, "PerformanceLevel": "PL0", "DeleteWithInstance": False},
                                  {"Category": "cloud_ssd", "Size": 30, "DeleteWithInstance": True}])
    settle(cloud, client, 30)
    disks = {d["Device"]: d for d in client.call("ecs", "DescribeDisks", InstanceId=instance)["Disks"]}
    assert sorted(disks) == ["/dev/xvda", "/dev/xvdb", "/dev/xvdc"]
    assert (disks["/dev/xvda"]["Type"], disks["/dev/xvda"]["Status"], disks["/dev/xvda"]["ImageId"]) == ("system", "In_use", IMAGE)
    assert (disks["/dev/xvdb"]["PerformanceLevel"], disks["/dev/xvdb"]["DeleteWithInstance"]) == ("PL0", False)
    kept = disks["/dev/xvdb"]["DiskId"]
    client.call("ecs", "DeleteInstance", InstanceId=instance, Force=True)
    settle(cloud, client, 30)
    assert client.call("ecs", "DescribeDisks", InstanceId=instance)["TotalCount"] == 0
    left = _disk(client, kept)
    assert (left["Status"], left["InstanceId"], left["Device"]) == ("Available", "", "")
    assert all(d["DiskId"] in (kept,) or d["InstanceId"] == env["instance"]
               for d in client.call("ecs", "DescribeDisks")["Disks"])


# --- snapshots -----------------------------------------------------------------------------


def _snapshot(client: Client, snapshot_id: str) -> dict[str, Any]:
    return client.call("ecs", "DescribeSnapshots", SnapshotIds=[snapshot_id])["Snapshots"][0]


def test_snapshot_progress_then_accomplished(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    creating = _create(client)
    assert _error(client.call, "ecs", "CreateSnapshot", DiskId=creating).code == "IncorrectStatus"
    system = client.call("ecs", "DescribeDisks", InstanceId=env["instance"], DiskType="system")["Disks"][0]["DiskId"]
    snap = client.call("ecs", "CreateSnapshot", DiskId=system, SnapshotName="before-upgrade", Description="pre")["SnapshotId"]
    first = _snapshot(client, snap)
    assert (first["Status"], first["Progress"], first["SourceDiskId"], first["SourceDiskType"]) == \
        ("Progressing", "0%", system, "system")
    cloud.advance(3)
    assert _snapshot(client, snap)["Progress"] == "50%"
    cloud.advance(3)
    done = _snapshot(client, snap)
    assert (done["Status"], done["Progress"], done["SourceDiskSize"]) == ("Accomplished", "100%", 40)

    assert client.call("ecs", "DescribeSnapshots", DiskId=system)["TotalCount"] == 1
    assert client.call("ecs", "DescribeSnapshots", InstanceId=env["instance"])["TotalCount"] == 1
    assert client.call("ecs", "DescribeSnapshots", Status="progressing")["TotalCount"] == 0
    assert client.call("ecs", "DescribeSnapshots", Status="accomplished")["TotalCount"] == 1
    assert client.call("ecs", "DescribeSnapshots", SnapshotType="auto")["TotalCount"] == 0
    assert client.call("ecs", "DescribeSnapshots", Keyword="upgrade")["TotalCount"] == 1
    client.call("ecs", "ModifySnapshotAttribute", SnapshotId=snap, SnapshotName="golden", Description="ok")
    assert _snapshot(client, snap)["SnapshotName"] == "golden"
    assert _error(client.call, "ecs", "ModifySnapshotAttribute", SnapshotId=snap, SnapshotName="auto-x").code == \
        "InvalidParameter.SnapshotName"


def test_snapshot_quota_retention_and_disk_from_snapshot(cloud: Any, tenant: Any) -> None:
    client = tenant.sdk
    disk = _create(client, Size=60)
    settle(cloud, client, 3)
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.snapshots": 1})
    snap = client.call("ecs", "CreateSnapshot", DiskId=disk, RetentionDays=2)["SnapshotId"]
    assert _error(client.call, "ecs", "CreateSnapshot", DiskId=disk).code == "QuotaExceeded"
    assert _error(client.call, "ecs", "CreateDisk", ZoneId="cn-hangzhou-h", SnapshotId=snap).code == "IncorrectStatus"
    settle(cloud, client, 6)
    assert _snapshot(client, snap)["ExpiredTime"] == "2026-01-07T08:00:03.000Z"

    assert _error(client.call, "ecs", "CreateDisk", ZoneId="cn-hangzhou-h", SnapshotId=snap, Size=50).code == "InvalidParameter.Size"
    restored = client.call("ecs", "CreateDisk", ZoneId="cn-hangzhou-h", SnapshotId=snap)["DiskId"]
    assert (_disk(client, restored)["Size"], _disk(client, restored)["SourceSnapshotId"]) == (60, snap)
    assert client.call("ecs", "DescribeDisks", SnapshotId=snap)["TotalCount"] == 1

    cloud.advance(2 * 86400)
    assert client.call("ecs", "DescribeSnapshots")["TotalCount"] == 0  # expired after its retention days


def test_reset_disk_and_delete_snapshot(cloud: Any, tenant: Any, env: dict[str, str]) -> None:
    from stratus.products.ecs.models import Image

    client = tenant.sdk
    disk = _create(client)
    other = _create(client)
    settle(cloud, client, 3)
    snap = client.call("ecs", "CreateSnapshot", DiskId=disk)["SnapshotId"]
    other_snap = client.call("ecs", "CreateSnapshot", DiskId=other)["SnapshotId"]
    assert _error(client.call, "ecs", "ResetDisk", DiskId=disk, SnapshotId=snap).code == "IncorrectStatus"  # Progressing
    settle(cloud, client, 6)
    assert _error(client.call, "ecs", "ResetDisk", DiskId=disk, SnapshotId=other_snap).code == "InvalidParameter.SnapshotId"
    client.call("ecs", "AttachDisk", InstanceId=env["instance"], DiskId=disk)
    settle(cloud, client, 3)
    assert _error(client.call, "ecs", "ResetDisk", DiskId=disk, SnapshotId=snap).code == "IncorrectStatus"  # instance Running
    set_instance_status(cloud, tenant, env["instance"], "Stopped")
    client.call("ecs", "ResetDisk", DiskId=disk, SnapshotId=snap)
    assert _disk(client, disk)["SourceSnapshotId"] == snap

    # a snapshot a custom image was created from needs Force
    with cloud.runtime.session() as db:
        ctx = _system_ctx(cloud, db, tenant)
        db.add(Image(id=ctx.new_id("m"), account_id=tenant.account_id, region_id="cn-hangzhou", name="from-snap",
                     source_snapshot_id=snap, os_name="Alibaba Cloud Linux 3", os_type="linux", size_gb=40,
                     status="Available", created_at=ctx.now))
        db.commit()
    assert _snapshot(client, snap)["Usage"] == "image"
    blocked = _error(client.call, "ecs", "DeleteSnapshot", SnapshotId=snap)
    assert blocked.code == "DependencyViolation" and "Force" in blocked.message
    client.call("ecs", "DeleteSnapshot", SnapshotId=snap, Force=True)
    client.call("ecs", "DeleteSnapshot", SnapshotId=other_snap)
    assert client.call("ecs", "DescribeSnapshots")["TotalCount"] == 0
    assert _error(client.call, "ecs", "DeleteSnapshot", SnapshotId=snap).code == "NotFound"


def test_storage_is_isolated_and_audited(cloud: Any, tenant: Any, other_tenant: Any, env: dict[str, str]) -> None:
    client = tenant.sdk
    disk = _create(client)
    settle(cloud, client, 3)
    assert other_tenant.sdk.call("ecs", "DescribeDisks")["TotalCount"] == 0
    assert _error(other_tenant.sdk.call, "ecs", "DeleteDisk", DiskId=disk).code == "NotFound"
    assert _error(other_tenant.sdk.call, "ecs", "CreateSnapshot", DiskId=disk).code == "NotFound"
    client.call("ecs", "AttachDisk", InstanceId=env["instance"], DiskId=disk)
    assert _error(client.call, "ecs", "CreateSnapshot", DiskId=disk).code == "IncorrectStatus"  # Attaching
    settle(cloud, client, 3)
    snap = client.call("ecs", "CreateSnapshot", DiskId=disk)["SnapshotId"]
    cloud.advance(600)
    events = client.call("actiontrail", "LookupEvents", ResourceId=disk, PageSize=50)["Events"]
    attach = next(e for e in events if e["eventName"] == "AttachDisk")
    assert attach["referencedResources"]["ACS::ECS::Disk"] == [disk]
    assert attach["referencedResources"]["ACS::ECS::Instance"] == [env["instance"]]
    taken = next(e for e in events if e["eventName"] == "CreateSnapshot")
    assert taken["referencedResources"]["ACS::ECS::Snapshot"] == [snap]
