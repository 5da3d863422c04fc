"""ECS snapshots: point-in-time copies of a disk, taken on the clock, kept for a retention period.

A snapshot is Progressing while it is taken (its progress grows with virtual time), then
Accomplished. One created with ``RetentionDays`` expires on its own that many days later, unless
a custom image still uses it. A snapshot outlives its disk.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import or_, select

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import dependency_violation, incorrect_status, invalid_parameter
from stratus.products.ecs.params import check_description, check_name, id_list, tags_view
from stratus.products.ecs.models import SNAPSHOT_LIFECYCLE, SNAPSHOT_TYPE, Disk, Image, Snapshot

TAKING_SECONDS = SNAPSHOT_LIFECYCLE.steps["Progressing"][1]
# An Accomplished snapshot's next transition is its expiry; ``_on_enter`` sets when (or never).
SNAPSHOT_LIFECYCLE.steps.setdefault("Accomplished", ("Expired", 0.0))


def _images_using(db: Any, snapshot: Snapshot) -> list[str]:
    stmt = select(Image.id).where(Image.account_id == snapshot.account_id, Image.source_snapshot_id == snapshot.id)
    return list(db.execute(stmt).scalars())


def _on_enter(db: Any, snapshot: Snapshot, status: str) -> None:
    """Accomplished: progress is 100% and expiry is scheduled; Expired: the snapshot is gone."""
    if status == "Accomplished":
        snapshot.progress = 100
        snapshot.transition_at = (snapshot.created_at + timedelta(days=snapshot.retention_days)
                                  if snapshot.retention_days else None)
    elif status == "Expired":
        if _images_using(db, snapshot):
            snapshot.status, snapshot.transition_at = "Accomplished", None  # an image keeps it alive
        else:
            db.delete(snapshot)


SNAPSHOT_LIFECYCLE.on_enter = _on_enter


def progress_of(snapshot: Snapshot, now: Any) -> int:
    """How far a Progressing snapshot is, from the time it has been running (never 100 until done)."""
    if snapshot.status != "Progressing" or snapshot.transition_at is None:
        return snapshot.progress
    elapsed = (now - snapshot.created_at).total_seconds()
    return max(0, min(99, int(elapsed * 100 / TAKING_SECONDS)))


def snapshot_name(value: str | None) -> str:
    name = check_name("SnapshotName", value)
    if name.lower().startswith("auto"):
        raise invalid_parameter("SnapshotName", "Snapshot names starting with 'auto' are reserved for automatic snapshots.")
    return name


def snapshot_view(ctx: CallContext, snapshot: Snapshot) -> dict[str, Any]:
    progress = progress_of(snapshot, ctx.now)
    expires = (snapshot.created_at + timedelta(days=snapshot.retention_days)) if snapshot.retention_days else None
    used_by = _images_using(ctx.db, snapshot)
    return {
        "SnapshotId": snapshot.id, "SnapshotName": snapshot.name, "Description": snapshot.description,
        "RegionId": snapshot.region_id, "SourceDiskId": snapshot.source_disk_id, "SourceDiskType": snapshot.source_disk_type,
        "SourceDiskSize": snapshot.source_disk_size_gb, "Status": snapshot.status, "Progress": f"{progress}%",
        "RetentionDays": snapshot.retention_days, "ExpiredTime": format_time(expires) if expires else "",
        "SnapshotType": "user", "Usage": "image" if used_by else "none", "ImageIds": used_by,
        "CreationTime": format_time(snapshot.created_at),
        "Tags": tags_view(snapshot.tags),
    }


class CreateSnapshotRequest(CreateRequest):
    DiskId: str = Field(min_length=1)
    SnapshotName: str | None = None
    Description: str | None = Field(None, max_length=256)
    RetentionDays: int | None = Field(None, ge=1, le=65536)


@action("ecs", "CreateSnapshot", rw="Write", request=CreateSnapshotRequest)
def create_snapshot(ctx: CallContext, req: CreateSnapshotRequest) -> dict[str, Any]:
    """Take a snapshot of an In_use or Available disk; it is Progressing, then Accomplished."""
    disk = ctx.get(Disk, req.DiskId)
    if disk.status not in ("In_use", "Available"):
        raise incorrect_status("disk", disk.id, disk.status, "In_use or Available")
    name = snapshot_name(req.SnapshotName)
    ctx.check_quota("ecs.snapshots", ctx.count(Snapshot))
    snapshot = Snapshot(id=ctx.new_id("s"), account_id=ctx.principal.account_id, region_id=ctx.region, name=name,
                        description=check_description(req.Description), created_at=ctx.now, source_disk_id=disk.id,
                        source_disk_type=disk.disk_type, source_disk_size_gb=disk.size_gb,
                        retention_days=req.RetentionDays, progress=0, status="Progressing")
    ctx.db.add(snapshot)
    SNAPSHOT_LIFECYCLE.begin(snapshot, "Progressing", ctx.now)
    ctx.reference(SNAPSHOT_TYPE.type_name, snapshot.id)
    return {"SnapshotId": snapshot.id}


class DescribeSnapshotsRequest(ListRequest):
    SnapshotIds: list[str] | str | None = None
    DiskId: str | None = None
    InstanceId: str | None = None
    Status: Literal["progressing", "accomplished", "failed", "all", "Progressing", "Accomplished", "Failed", "All"] = "all"
    SnapshotType: Literal["auto", "user", "all"] = "all"
    SnapshotName: str | None = None
    Keyword: str | None = Field(None, max_length=128)


@action("ecs", "DescribeSnapshots", rw="Read", request=DescribeSnapshotsRequest)
def describe_snapshots(ctx: CallContext, req: DescribeSnapshotsRequest) -> dict[str, Any]:
    """Snapshots of this region, filtered by ids, disk, the disks an instance has now, status, type or keyword."""
    stmt = ctx.scoped(Snapshot)
    ids = id_list("SnapshotIds", req.SnapshotIds)
    if ids is not None:
        stmt = stmt.where(Snapshot.id.in_(ids))
    if req.DiskId:
        stmt = stmt.where(Snapshot.source_disk_id == req.DiskId)
    if req.InstanceId:
        disk_ids = select(Disk.id).where(Disk.account_id == ctx.principal.account_id, Disk.instance_id == req.InstanceId)
        stmt = stmt.where(Snapshot.source_disk_id.in_(disk_ids))
    if req.Status.lower() != "all":
        stmt = stmt.where(Snapshot.status == req.Status.capitalize())
    if req.SnapshotType == "auto":  # automatic snapshot policies are not offered: every snapshot is a user one
        stmt = stmt.where(Snapshot.id.is_(None))
    if req.SnapshotName:
        stmt = stmt.where(Snapshot.name == req.SnapshotName)
    if req.Keyword:
        stmt = stmt.where(or_(Snapshot.id.contains(req.Keyword), Snapshot.name.contains(req.Keyword),
                              Snapshot.source_disk_id.contains(req.Keyword)))
    stmt = stmt.order_by(Snapshot.created_at.desc(), Snapshot.id)
    return page([snapshot_view(ctx, s) for s in ctx.db.execute(stmt).scalars()], req, "Snapshots")


class ModifySnapshotAttributeRequest(ApiRequest):
    SnapshotId: str = Field(min_length=1)
    SnapshotName: str | None = None
    Description: str | None = Field(None, max_length=256)


@action("ecs", "ModifySnapshotAttribute", rw="Write", request=ModifySnapshotAttributeRequest)
def modify_snapshot_attribute(ctx: CallContext, req: ModifySnapshotAttributeRequest) -> dict[str, Any]:
    """Rename a snapshot or change its description."""
    snapshot = ctx.get(Snapshot, req.SnapshotId)
    if req.SnapshotName is not None:
        snapshot.name = snapshot_name(req.SnapshotName)
    if req.Description is not None:
        snapshot.description = check_description(req.Description)
    return {}


class DeleteSnapshotRequest(ApiRequest):
    SnapshotId: str = Field(min_length=1)
    Force: bool = False


@action("ecs", "DeleteSnapshot", rw="Write", request=DeleteSnapshotRequest)
def delete_snapshot(ctx: CallContext, req: DeleteSnapshotRequest) -> dict[str, Any]:
    """Delete a snapshot. One a custom image was created from needs ``Force`` (the image then cannot be restored)."""
    snapshot = ctx.get(Snapshot, req.SnapshotId)
    images = _images_using(ctx.db, snapshot)
    if images and not req.Force:
        raise dependency_violation(f"The snapshot {snapshot.id} cannot be deleted while custom images were created from it: "
                                   f"{', '.join(images)}. Delete the images first or set Force=true.")
    ctx.db.delete(snapshot)
    return {}
