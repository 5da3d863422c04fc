"""Console pages of ECS block storage: the disk list and detail, and the snapshot list.

Row actions are enabled or disabled (with the reason as a tooltip) from the same state rules the
API enforces, so the console never offers what the API would refuse. Which actions a row offers,
and the create form's default category, are release switches.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from stratus.console.pages import ConsolePage, console_page
from stratus.core.regions import REGION_BY_ID
from stratus.products.ecs.disks import CATEGORIES, PERFORMANCE_LEVELS
from stratus.products.ecs.security_console import all_items, crumbs, table_state

router = APIRouter(include_in_schema=False)

DISK_STATUSES = ("Creating", "Available", "Attaching", "In_use", "Detaching")
DISK_TYPES = ("system", "data")
SNAPSHOT_STATUSES = ("Progressing", "Accomplished")


def _zones(page: ConsolePage) -> list[tuple[str, str]]:
    return [(zone, page.t("ecs.disks.zone_label", zone=zone[-1].upper(), id=zone)) for zone in REGION_BY_ID[page.region].zones]


def _disk_reasons(page: ConsolePage, disk: dict[str, Any]) -> dict[str, str]:
    """Why each action is unavailable for this disk ("" = available): the API's own state rules."""
    status, system = disk["Status"], disk["Type"] == "system"
    settled = status in ("Available", "In_use")
    return {
        "attach": "" if status == "Available" and not system else page.t("ecs.disks.attach_reason"),
        "detach": page.t("ecs.disks.detach_system_reason") if system else
                  ("" if status == "In_use" else page.t("ecs.disks.detach_reason")),
        "resize": "" if settled else page.t("ecs.disks.resize_reason"),
        "snapshot": "" if settled else page.t("ecs.disks.snapshot_reason"),
        "release": "" if status == "Available" else page.t("ecs.disks.release_reason"),
    }


def disk_row(page: ConsolePage, disk: dict[str, Any]) -> dict[str, Any]:
    category = page.t(f"ecs.disks.category_{disk['Category']}")
    return disk | {
        "id": disk["DiskId"], "name": disk["DiskName"] or disk["DiskId"],
        "TypeLabel": page.t(f"ecs.disks.type_{disk['Type']}"),
        "CategoryLabel": f"{category} {disk['PerformanceLevel']}" if disk["PerformanceLevel"] else category,
        "SizeLabel": page.t("ecs.disks.size_gib", n=disk["Size"]),
        "disabled_actions": _disk_reasons(page, disk),
    }


def _snapshot_options(page: ConsolePage) -> list[dict[str, str]]:
    snapshots = all_items(page, "ecs", "DescribeSnapshots", "Snapshots", Status="accomplished")
    return [{"value": s["SnapshotId"], "label": f"{s['SnapshotName'] or s['SnapshotId']} ({s['SourceDiskSize']} GiB)"}
            for s in snapshots]


@router.get("/ecs/disks")
def disks(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = table_state(page)
    params: dict[str, Any] = {"PageNumber": state["page"], "PageSize": state["page_size"]}
    if state["q"]:
        key = {"id": "DiskIds", "instance": "InstanceId"}.get(state["field"], "Keyword")
        params[key] = [state["q"]] if key == "DiskIds" else state["q"]
    filters = {"type": page.query("type"), "status": page.query("status"), "category": page.query("category")}
    if filters["type"] in DISK_TYPES:
        params["DiskType"] = filters["type"]
    if filters["status"] in DISK_STATUSES:
        params["Status"] = filters["status"]
    if filters["category"] in CATEGORIES:
        params["Category"] = filters["category"]
    data = page.call("ecs", "DescribeDisks", **params)
    state["total"] = data["TotalCount"]
    return page.render(
        "ecs/disks.html", product="ecs", title=page.t("ecs.disks.title"),
        breadcrumbs=crumbs(page, (page.t("ecs.disks.title"), None)),
        rows=[disk_row(page, d) for d in data["Disks"]], state=state, filters=filters,
        status_options=[(s, page.t(f"ecs.disks.status.{s}")) for s in DISK_STATUSES],
        type_options=[(d, page.t(f"ecs.disks.type_{d}")) for d in DISK_TYPES],
        category_options=[(c, page.t(f"ecs.disks.category_{c}")) for c in CATEGORIES],
        levels=PERFORMANCE_LEVELS, zones=_zones(page),
        snapshot_options=_snapshot_options(page), default_category=page.feature("ecs.disks.default_category"),
        row_resize=bool(page.feature("ecs.disks.row_resize")), open_create=page.query("create") == "1",
        prefill_snapshot=page.query("snapshot"),
    )


@router.get("/ecs/disks/{disk_id}")
def disk_detail(disk_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    found = page.call("ecs", "DescribeDisks", DiskIds=[disk_id])["Disks"]
    if not found:
        return page.render("ecs/disk_detail.html", product="ecs", title=disk_id, status_code=404,
                           breadcrumbs=crumbs(page, (page.t("ecs.disks.title"), "/ecs/disks"), (disk_id, None)),
                           disk=None, snapshots=[], zones=_zones(page))
    disk = disk_row(page, found[0])
    snapshots = [snapshot_row(page, s) for s in all_items(page, "ecs", "DescribeSnapshots", "Snapshots", DiskId=disk_id)]
    return page.render("ecs/disk_detail.html", product="ecs", title=disk["name"],
                       breadcrumbs=crumbs(page, (page.t("ecs.disks.title"), "/ecs/disks"), (disk["name"], None)),
                       disk=disk, snapshots=snapshots, zones=_zones(page))


def snapshot_row(page: ConsolePage, snapshot: dict[str, Any]) -> dict[str, Any]:
    done = snapshot["Status"] == "Accomplished"
    days = snapshot["RetentionDays"]
    return snapshot | {
        "id": snapshot["SnapshotId"], "name": snapshot["SnapshotName"] or snapshot["SnapshotId"],
        "StatusLabel": f"{page.t('ecs.snapshots.status.' + snapshot['Status'])} {'' if done else snapshot['Progress']}".strip(),
        "DiskTypeLabel": page.t(f"ecs.disks.type_{snapshot['SourceDiskType']}"),
        "SizeLabel": page.t("ecs.disks.size_gib", n=snapshot["SourceDiskSize"]),
        "RetentionLabel": page.t("ecs.snapshots.retention_days", n=days) if days else page.t("ecs.snapshots.retention_forever"),
        "disabled_actions": {"rollback": "" if done else page.t("ecs.snapshots.rollback_reason")},
    }


@router.get("/ecs/snapshots")
def snapshots(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = table_state(page)
    params: dict[str, Any] = {"PageNumber": state["page"], "PageSize": state["page_size"]}
    if state["q"]:
        key = {"id": "SnapshotIds", "disk": "DiskId"}.get(state["field"], "Keyword")
        params[key] = [state["q"]] if key == "SnapshotIds" else state["q"]
    status = page.query("status")
    if status in SNAPSHOT_STATUSES:
        params["Status"] = status
    data = page.call("ecs", "DescribeSnapshots", **params)
    state["total"] = data["TotalCount"]
    return page.render("ecs/snapshots.html", product="ecs", title=page.t("ecs.snapshots.title"),
                       breadcrumbs=crumbs(page, (page.t("ecs.snapshots.title"), None)),
                       rows=[snapshot_row(page, s) for s in data["Snapshots"]], state=state,
                       status=status if status in SNAPSHOT_STATUSES else None,
                       status_options=[(s, page.t(f"ecs.snapshots.status.{s}")) for s in SNAPSHOT_STATUSES])
