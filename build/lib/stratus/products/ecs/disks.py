"""ECS block storage: cloud disks, their attach/detach state machine, resizing and rollback.

A disk is either a system disk (created with its instance, never detached) or a data disk
(created alone or with an instance, attached to at most one instance in its zone). Attach,
detach and create are asynchronous like on a real cloud: the disk passes through Attaching /
Detaching / Creating on the clock before it settles.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from sqlalchemy import or_

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import incorrect_status, invalid_parameter, missing_parameter
from stratus.core.regions import check_zone
from stratus.products.ecs.params import check_description, check_name, id_list, tags_view
from stratus.products.ecs.models import DISK_LIFECYCLE, DISK_TYPE, Disk, Instance, Snapshot

CATEGORIES = ("cloud_essd", "cloud_ssd", "cloud_efficiency", "cloud_auto")
PERFORMANCE_LEVELS = ("PL0", "PL1", "PL2", "PL3")
# Data disk sizes (GiB) per category, and per performance level for ESSDs, as the real cloud documents.
DATA_DISK_SIZES: dict[str, tuple[int, int]] = {
    "cloud_efficiency": (20, 32768),
    "cloud_ssd": (20, 32768),
    "cloud_auto": (1, 65536),
}
ESSD_SIZES: dict[str, tuple[int, int]] = {"PL0": (1, 65536), "PL1": (20, 65536), "PL2": (461, 65536), "PL3": (1261, 65536)}
SYSTEM_DISK_SIZES = (20, 2048)
MAX_DATA_DISKS = 16
DATA_DEVICES = tuple(f"/dev/xvd{letter}" for letter in "bcdefghijklmnopq")
SYSTEM_DEVICE = "/dev/xvda"

# --- validation ----------------------------------------------------------------------------


def resolve_performance_level(category: str, level: str | None, field: str = "PerformanceLevel") -> str | None:
    """ESSDs have a performance level (PL1 unless chosen); other categories refuse one."""
    if category != "cloud_essd":
        if level:
            raise invalid_parameter(field, f"A performance level is only supported by cloud_essd disks, not {category}.")
        return None
    level = level or "PL1"
    if level not in PERFORMANCE_LEVELS:
        raise invalid_parameter(field, f"The performance level {level!r} is invalid; valid values: {', '.join(PERFORMANCE_LEVELS)}.")
    return level


def check_category(category: str, field: str = "DiskCategory") -> str:
    if category not in CATEGORIES:
        raise invalid_parameter(field, f"The disk category {category!r} is not supported; valid values: {', '.join(CATEGORIES)}.")
    return category


def size_range(category: str, level: str | None, disk_type: str = "data") -> tuple[int, int]:
    if disk_type == "system":
        return SYSTEM_DISK_SIZES
    if category == "cloud_essd":
        return ESSD_SIZES[level or "PL1"]
    return DATA_DISK_SIZES[category]


def check_size(category: str, level: str | None, size: int, field: str = "Size", disk_type: str = "data") -> int:
    low, high = size_range(category, level, disk_type)
    if not low <= size <= high:
        what = f"{category} {level}" if level else category
        raise invalid_parameter(field, f"The size {size} GiB is out of range for a {disk_type} disk of category {what}: "
                                       f"it must be between {low} and {high} GiB.")
    return size


# --- helpers other ECS modules call --------------------------------------------------------


def get_disk(ctx: CallContext, disk_id: str) -> Disk:
    return ctx.get(Disk, disk_id)


def _new_disk(ctx: CallContext, zone_id: str, category: str, size_gb: int, level: str | None, disk_type: str,
              name: str = "", description: str = "") -> Disk:
    disk = Disk(id=ctx.new_id("d"), account_id=ctx.principal.account_id, region_id=ctx.region, zone_id=zone_id,
                category=category, performance_level=level, size_gb=size_gb, disk_type=disk_type, name=name,
                description=description, created_at=ctx.now, status="Creating")
    ctx.db.add(disk)
    ctx.reference(DISK_TYPE.type_name, disk.id)
    return disk


def _attached(ctx: CallContext, instance_id: str) -> list[Disk]:
    return list(ctx.db.execute(ctx.scoped(Disk).where(Disk.instance_id == instance_id)).scalars())


def next_device(ctx: CallContext, instance_id: str) -> str:
    """The first free data device of an instance, or ``InvalidParameter`` when 16 data disks are attached."""
    disks = _attached(ctx, instance_id)
    used = {d.device for d in disks}
    if sum(1 for d in disks if d.disk_type == "data") >= MAX_DATA_DISKS:
        raise invalid_parameter("InstanceId", f"The instance {instance_id} already has {MAX_DATA_DISKS} data disks attached, the maximum.")
    return next(device for device in DATA_DEVICES if device not in used)


def create_system_disk(ctx: CallContext, instance: Instance, category: str, size_gb: int, performance_level: str | None) -> Disk:
    """The system disk of a new instance: In_use on /dev/xvda from the start, deleted with the instance by default."""
    check_category(category, "SystemDisk.Category")
    level = resolve_performance_level(category, performance_level, "SystemDisk.PerformanceLevel")
    check_size(category, level, size_gb, "SystemDisk.Size", "system")
    disk = _new_disk(ctx, instance.zone_id, category, size_gb, level, "system")
    disk.status, disk.transition_at = "In_use", None
    disk.instance_id, disk.device = instance.id, SYSTEM_DEVICE
    disk.source_image_id = instance.image_id
    disk.charge_type = instance.charge_type
    disk.delete_with_instance = True
    return disk


def create_data_disk_for_instance(ctx: CallContext, instance: Instance, category: str, size_gb: int,
                                  performance_level: str | None, delete_with_instance: bool) -> Disk:
    """A data disk created together with an instance: In_use on the next free device."""
    check_category(category, "DataDisk.Category")
    level = resolve_performance_level(category, performance_level, "DataDisk.PerformanceLevel")
    check_size(category, level, size_gb, "DataDisk.Size")
    ctx.db.flush()  # devices of disks created earlier in this call must be visible
    device = next_device(ctx, instance.id)
    disk = _new_disk(ctx, instance.zone_id, category, size_gb, level, "data")
    disk.status, disk.transition_at = "In_use", None
    disk.instance_id, disk.device = instance.id, device
    disk.charge_type = instance.charge_type
    disk.delete_with_instance = delete_with_instance
    ctx.db.flush()
    return disk


def release_instance_disks(ctx: CallContext, instance_id: str) -> None:
    """On instance release: delete disks marked DeleteWithInstance, detach the others (they become data disks)."""
    for disk in _attached(ctx, instance_id):
        ctx.reference(DISK_TYPE.type_name, disk.id)
        if disk.delete_with_instance:
            ctx.db.delete(disk)
        else:
            disk.instance_id, disk.device, disk.disk_type = None, None, "data"
            disk.status, disk.transition_at = "Available", None
    ctx.db.flush()


def _on_enter(db: Any, disk: Disk, status: str) -> None:
    """A disk that finished detaching lets go of its instance and device."""
    if status == "Available":
        disk.instance_id = None
        disk.device = None


DISK_LIFECYCLE.on_enter = _on_enter


def disk_view(disk: Disk) -> dict[str, Any]:
    return {
        "DiskId": disk.id, "DiskName": disk.name, "Description": disk.description, "RegionId": disk.region_id,
        "ZoneId": disk.zone_id, "Category": disk.category, "PerformanceLevel": disk.performance_level,
        "Size": disk.size_gb, "Type": disk.disk_type, "Status": disk.status, "InstanceId": disk.instance_id or "",
        "Device": disk.device or "", "DeleteWithInstance": disk.delete_with_instance,
        "Portable": disk.disk_type == "data", "Encrypted": disk.encrypted, "DiskChargeType": disk.charge_type,
        "ImageId": disk.source_image_id or "", "SourceSnapshotId": disk.source_snapshot_id or "",
        "CreationTime": format_time(disk.created_at), "Tags": tags_view(disk.tags),
    }


def _instance_of(ctx: CallContext, instance_id: str) -> Instance:
    return ctx.get(Instance, instance_id)


def _require_instance_status(instance: Instance, allowed: tuple[str, ...]) -> None:
    if instance.status not in allowed:
        raise incorrect_status("instance", instance.id, instance.status, " or ".join(allowed))


# --- actions -------------------------------------------------------------------------------


class CreateDiskRequest(CreateRequest):
    ZoneId: str = Field(min_length=1)
    DiskCategory: str = "cloud_efficiency"
    Size: int | None = Field(None, ge=1)
    PerformanceLevel: str | None = None
    DiskName: str | None = None
    Description: str | None = Field(None, max_length=256)
    SnapshotId: str | None = None
    Encrypted: bool = False


@action("ecs", "CreateDisk", rw="Write", request=CreateDiskRequest)
def create_disk(ctx: CallContext, req: CreateDiskRequest) -> dict[str, Any]:
    """Create a pay-as-you-go data disk in a zone, empty or from a snapshot; it is Creating, then Available."""
    zone = check_zone(ctx.region, req.ZoneId)
    category = check_category(req.DiskCategory)
    level = resolve_performance_level(category, req.PerformanceLevel)
    name = check_name("DiskName", req.DiskName)
    size = req.Size
    snapshot = None
    if req.SnapshotId:
        snapshot = ctx.get(Snapshot, req.SnapshotId)
        if snapshot.status != "Accomplished":
            raise incorrect_status("snapshot", snapshot.id, snapshot.status, "Accomplished")
        size = size or snapshot.source_disk_size_gb
        if size < snapshot.source_disk_size_gb:
            raise invalid_parameter("Size", f"The disk size {size} GiB is smaller than the snapshot {snapshot.id} "
                                            f"({snapshot.source_disk_size_gb} GiB).")
    if size is None:
        raise missing_parameter("Size")
    check_size(category, level, size)
    ctx.check_quota("ecs.disks", ctx.count(Disk))
    ctx.require_positive_balance()
    disk = _new_disk(ctx, zone, category, size, level, "data", name, check_description(req.Description))
    disk.encrypted = req.Encrypted
    disk.delete_with_instance = False
    disk.source_snapshot_id = snapshot.id if snapshot else None
    DISK_LIFECYCLE.begin(disk, "Creating", ctx.now)
    return {"DiskId": disk.id}


class DescribeDisksRequest(ListRequest):
    DiskIds: list[str] | str | None = None
    InstanceId: str | None = None
    DiskType: Literal["system", "data", "all"] = "all"
    Status: str | None = None
    Category: str | None = None
    ZoneId: str | None = None
    DiskName: str | None = None
    SnapshotId: str | None = None
    Keyword: str | None = Field(None, max_length=128)
    SortBy: Literal["CreationTime", "Size", "DiskName"] = "CreationTime"
    SortOrder: Literal["Asc", "Desc"] = "Desc"


@action("ecs", "DescribeDisks", rw="Read", request=DescribeDisksRequest)
def describe_disks(ctx: CallContext, req: DescribeDisksRequest) -> dict[str, Any]:
    """Disks of this region, filtered by ids, instance, type, status, category, zone, name or keyword."""
    stmt = ctx.scoped(Disk)
    ids = id_list("DiskIds", req.DiskIds)
    if ids is not None:
        stmt = stmt.where(Disk.id.in_(ids))
    if req.InstanceId:
        stmt = stmt.where(Disk.instance_id == req.InstanceId)
    if req.DiskType != "all":
        stmt = stmt.where(Disk.disk_type == req.DiskType)
    if req.Status and req.Status != "All":
        stmt = stmt.where(Disk.status == req.Status)
    if req.Category and req.Category != "all":
        stmt = stmt.where(Disk.category == req.Category)
    if req.ZoneId:
        stmt = stmt.where(Disk.zone_id == req.ZoneId)
    if req.DiskName:
        stmt = stmt.where(Disk.name == req.DiskName)
    if req.SnapshotId:
        stmt = stmt.where(Disk.source_snapshot_id == req.SnapshotId)
    if req.Keyword:
        stmt = stmt.where(or_(Disk.id.contains(req.Keyword), Disk.name.contains(req.Keyword),
                              Disk.instance_id.contains(req.Keyword)))
    column = {"CreationTime": Disk.created_at, "Size": Disk.size_gb, "DiskName": Disk.name}[req.SortBy]
    stmt = stmt.order_by(column.desc() if req.SortOrder == "Desc" else column.asc(), Disk.id)
    return page([disk_view(d) for d in ctx.db.execute(stmt).scalars()], req, "Disks")


class AttachDiskRequest(ApiRequest):
    InstanceId: str = Field(min_length=1)
    DiskId: str = Field(min_length=1)
    DeleteWithInstance: bool | None = None


@action("ecs", "AttachDisk", rw="Write", request=AttachDiskRequest)
def attach_disk(ctx: CallContext, req: AttachDiskRequest) -> dict[str, Any]:
    """Attach an Available data disk to a Running or Stopped instance of the same zone (Attaching, then In_use)."""
    disk = get_disk(ctx, req.DiskId)
    instance = _instance_of(ctx, req.InstanceId)
    if disk.disk_type != "data":
        raise invalid_parameter("DiskId", f"The disk {disk.id} is a system disk; only data disks can be attached.")
    if disk.status != "Available":
        raise incorrect_status("disk", disk.id, disk.status, "Available")
    _require_instance_status(instance, ("Running", "Stopped"))
    if instance.zone_id != disk.zone_id:
        raise invalid_parameter("InstanceId", f"The disk {disk.id} is in zone {disk.zone_id} and the instance {instance.id} "
                                              f"in zone {instance.zone_id}; a disk can only be attached in its own zone.")
    disk.device = next_device(ctx, instance.id)
    disk.instance_id = instance.id
    if req.DeleteWithInstance is not None:
        disk.delete_with_instance = req.DeleteWithInstance
    DISK_LIFECYCLE.begin(disk, "Attaching", ctx.now)
    return {}


class DetachDiskRequest(ApiRequest):
    InstanceId: str = Field(min_length=1)
    DiskId: str = Field(min_length=1)


@action("ecs", "DetachDisk", rw="Write", request=DetachDiskRequest)
def detach_disk(ctx: CallContext, req: DetachDiskRequest) -> dict[str, Any]:
    """Detach a data disk from its instance (Detaching, then Available). System disks stay attached."""
    disk = get_disk(ctx, req.DiskId)
    instance = _instance_of(ctx, req.InstanceId)
    if disk.disk_type == "system":
        raise invalid_parameter("DiskId", f"The disk {disk.id} is the system disk of {instance.id}; system disks cannot be detached.")
    if disk.instance_id != instance.id:
        raise invalid_parameter("InstanceId", f"The disk {disk.id} is not attached to the instance {instance.id}.")
    if disk.status != "In_use":
        raise incorrect_status("disk", disk.id, disk.status, "In_use")
    _require_instance_status(instance, ("Running", "Stopped"))
    DISK_LIFECYCLE.begin(disk, "Detaching", ctx.now)
    return {}


class ResizeDiskRequest(ApiRequest):
    DiskId: str = Field(min_length=1)
    NewSize: int = Field(ge=1)
    Type: Literal["offline", "online"] = "offline"


@action("ecs", "ResizeDisk", rw="Write", request=ResizeDiskRequest)
def resize_disk(ctx: CallContext, req: ResizeDiskRequest) -> dict[str, Any]:
    """Grow a disk (disks never shrink). Offline needs a detached disk or a stopped instance; online an attached disk."""
    disk = get_disk(ctx, req.DiskId)
    if disk.status not in ("Available", "In_use"):
        raise incorrect_status("disk", disk.id, disk.status, "Available or In_use")
    if req.NewSize <= disk.size_gb:
        raise invalid_parameter("NewSize", f"The new size {req.NewSize} GiB must be larger than the current size "
                                           f"{disk.size_gb} GiB: disks can only be expanded.")
    check_size(disk.category, disk.performance_level, req.NewSize, "NewSize", disk.disk_type)
    instance = _instance_of(ctx, disk.instance_id) if disk.instance_id else None
    if req.Type == "offline" and instance is not None:
        _require_instance_status(instance, ("Stopped",))
    if req.Type == "online":
        if instance is None:
            raise incorrect_status("disk", disk.id, disk.status, "In_use (online resizing applies to attached disks; use offline)")
        _require_instance_status(instance, ("Running", "Stopped"))
    ctx.require_positive_balance()
    disk.size_gb = req.NewSize
    return {}


class ModifyDiskAttributeRequest(ApiRequest):
    DiskId: str = Field(min_length=1)
    DiskName: str | None = None
    Description: str | None = Field(None, max_length=256)
    DeleteWithInstance: bool | None = None


@action("ecs", "ModifyDiskAttribute", rw="Write", request=ModifyDiskAttributeRequest)
def modify_disk_attribute(ctx: CallContext, req: ModifyDiskAttributeRequest) -> dict[str, Any]:
    """Rename a disk, change its description, or whether it is released with its instance."""
    disk = get_disk(ctx, req.DiskId)
    if req.DiskName is not None:
        disk.name = check_name("DiskName", req.DiskName)
    if req.Description is not None:
        disk.description = check_description(req.Description)
    if req.DeleteWithInstance is not None:
        disk.delete_with_instance = req.DeleteWithInstance
    return {}


class DeleteDiskRequest(ApiRequest):
    DiskId: str = Field(min_length=1)


@action("ecs", "DeleteDisk", rw="Write", request=DeleteDiskRequest)
def delete_disk(ctx: CallContext, req: DeleteDiskRequest) -> dict[str, Any]:
    """Release an Available disk. Its snapshots are kept."""
    disk = get_disk(ctx, req.DiskId)
    if disk.status != "Available":
        raise incorrect_status("disk", disk.id, disk.status, "Available (detach it first)")
    ctx.db.delete(disk)
    return {}


class ResetDiskRequest(ApiRequest):
    DiskId: str = Field(min_length=1)
    SnapshotId: str = Field(min_length=1)


@action("ecs", "ResetDisk", rw="Write", request=ResetDiskRequest)
def reset_disk(ctx: CallContext, req: ResetDiskRequest) -> dict[str, Any]:
    """Roll a disk back to one of its own snapshots; an attached disk needs its instance Stopped."""
    disk = get_disk(ctx, req.DiskId)
    snapshot = ctx.get(Snapshot, req.SnapshotId)
    if snapshot.source_disk_id != disk.id:
        raise invalid_parameter("SnapshotId", f"The snapshot {snapshot.id} was not created from the disk {disk.id}; "
                                              "a disk can only be rolled back to its own snapshots.")
    if snapshot.status != "Accomplished":
        raise incorrect_status("snapshot", snapshot.id, snapshot.status, "Accomplished")
    if disk.status not in ("Available", "In_use"):
        raise incorrect_status("disk", disk.id, disk.status, "Available or In_use")
    if disk.instance_id:
        _require_instance_status(_instance_of(ctx, disk.instance_id), ("Stopped",))
    disk.source_snapshot_id = snapshot.id
    return {}
