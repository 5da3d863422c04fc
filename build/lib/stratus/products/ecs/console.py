"""The ECS console: overview, instance list and detail, the purchase wizard, images, key pairs.

Pages read data only through ``page.call`` (audited, scoped) and change state only through the
JSON API from the browser. Every label comes from the release catalog, and every structural
difference between releases (a moved menu, a removed button, reordered wizard steps, a new
required field, a changed default, a removed option) is a catalog switch read here.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from stratus.console.pages import Breadcrumb, ConsolePage, console_page
from stratus.console.product import ConsoleProduct, NavGroup, NavItem, ResourceCount, register_console_product
from stratus.core.errors import ApiError
from stratus.core.regions import REGION_BY_ID
from stratus.products.ecs import catalogs
from stratus.products.ecs.security_console import router as security_router
from stratus.products.ecs.storage_console import router as storage_router
from stratus.releases import Catalog

router = APIRouter(include_in_schema=False)

# The security group, disk and snapshot pages are written in their own modules; ECS serves them all.
router.include_router(security_router)
router.include_router(storage_router)

SORTABLE = {"name": "InstanceName", "created": "CreationTime", "Status": "Status", "type": "InstanceType", "zone": "ZoneId"}


# --- navigation ----------------------------------------------------------------------------


def nav(catalog: Catalog) -> list[NavGroup]:
    """The left tree. Where Images and Key pairs live is a release switch (menus move between releases)."""
    t = catalog.t
    images = NavItem(t("ecs.nav.images"), "/ecs/images")
    key_pairs = NavItem(t("ecs.nav.key_pairs"), "/ecs/key-pairs")
    instances = NavGroup(t("ecs.nav.group_instances"), [NavItem(t("ecs.nav.instances"), "/ecs/instances")])
    network = NavGroup(t("ecs.nav.group_network"), [NavItem(t("ecs.nav.security_groups"), "/ecs/security-groups")])
    storage = NavGroup(t("ecs.nav.group_storage"), [NavItem(t("ecs.nav.disks"), "/ecs/disks"),
                                                    NavItem(t("ecs.nav.snapshots"), "/ecs/snapshots")])
    {"instances": instances, "storage": storage}[catalog.feature("ecs.nav.images_group")].items.append(images)
    {"network": network, "instances": instances}[catalog.feature("ecs.nav.key_pairs_group")].items.append(key_pairs)
    return [NavGroup(t("ecs.nav.overview"), href="/ecs"), instances, network, storage]


def resource_counts(page: ConsolePage) -> list[ResourceCount]:
    try:
        total = page.call("ecs", "DescribeInstances", PageSize=1)["TotalCount"]
    except ApiError:
        return []
    return [ResourceCount(page.t("ecs.home.instances"), total, "/ecs/instances")]


# --- shaping API data for templates ---------------------------------------------------------


def _type_label(page: ConsolePage, instance_type: str) -> str:
    spec = catalogs.TYPE_BY_ID.get(instance_type)
    if spec is None:
        return ""
    return page.t("ecs.type_spec", vcpu=spec.vcpu, memory=f"{spec.memory_gib:g}")


def _zone_label(page: ConsolePage, zone_id: str) -> str:
    return page.t("ecs.zone_label", letter=zone_id[-1].upper())


def instance_row(page: ConsolePage, item: dict[str, Any]) -> dict[str, Any]:
    """One table row: display values plus why each row action is unavailable, if it is."""
    status = item["Status"]
    prepaid = item["InstanceChargeType"] == "PrePaid"
    public = item["PublicIpAddress"] or ([item["EipAddress"]["IpAddress"]] if item["EipAddress"]["IpAddress"] else [])
    disabled: dict[str, str] = {}
    if prepaid:
        disabled["release"] = page.t("ecs.instances.release_prepaid_reason")
    if item["DeletionProtection"]:
        disabled["release"] = page.t("ecs.instances.release_protected_reason")
    return {
        "id": item["InstanceId"], "name": item["InstanceName"], "Status": status, "zone": _zone_label(page, item["ZoneId"]),
        "zone_id": item["ZoneId"],
        "private_ip": f"{item['VpcAttributes']['PrivateIpAddress'][0]} {page.t('ecs.ip_private')}",
        "public_ip": f"{', '.join(public)} {page.t('ecs.ip_public')}" if public else "",
        "type": item["InstanceType"], "type_spec": _type_label(page, item["InstanceType"]),
        "billing": page.t(f"ecs.billing.{item['InstanceChargeType']}"),
        "billing_sub": item["ExpiredTime"][:10] if prepaid else "",
        "created": item["CreationTime"][:19] + "Z", "disabled_actions": disabled,
    }


def _options(page: ConsolePage, values: list[str], prefix: str) -> list[tuple[str, str]]:
    return [(v, page.t(f"{prefix}{v}")) for v in values]


# --- overview ------------------------------------------------------------------------------


@router.get("/ecs")
def overview(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    data = page.call("ecs", "DescribeInstances", PageSize=100)
    counts = {s: 0 for s in ("Running", "Stopped")}
    for item in data["Instances"]:
        counts[item["Status"]] = counts.get(item["Status"], 0) + 1
    recent = [instance_row(page, item) for item in data["Instances"][:5]]
    stats = {
        "instances": data["TotalCount"],
        "running": counts.get("Running", 0),
        "stopped": counts.get("Stopped", 0),
        "images": page.call("ecs", "DescribeImages", ImageOwnerAlias="self", PageSize=1)["TotalCount"],
        "key_pairs": page.call("ecs", "DescribeKeyPairs", PageSize=1)["TotalCount"],
    }
    return page.render("ecs/overview.html", product="ecs", title=page.t("ecs.overview.title"),
                       breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.overview.title"))],
                       stats=stats, recent=recent, region_name=REGION_BY_ID[page.region].name)


# --- instance list -------------------------------------------------------------------------


def _list_params(page: ConsolePage) -> tuple[dict[str, Any], dict[str, Any]]:
    q, field = page.query("q").strip(), page.query("field", "name")
    sort = page.query("sort", "created")
    order = "asc" if page.query("order") == "asc" else "desc"
    params: dict[str, Any] = {"PageNumber": page.query_int("page", 1), "PageSize": page.query_int("page_size", 20, 1, 100),
                              "SortBy": SORTABLE.get(sort, "CreationTime"), "SortOrder": order}
    if q:
        if field == "id":
            params["InstanceIds"] = [q]
        elif field == "ip":
            params["Keyword"] = q
        else:
            params["InstanceName"] = q if "*" in q else f"*{q}*"
    if page.query("status"):
        params["Status"] = page.query("status")
    if page.query("zone"):
        params["ZoneId"] = page.query("zone")
    state = {"q": q, "field": field, "sort": sort if sort in SORTABLE else "created", "order": order,
             "page": params["PageNumber"], "page_size": params["PageSize"]}
    return params, state


@router.get("/ecs/instances")
def instances(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    params, state = _list_params(page)
    error = None
    try:
        data = page.call("ecs", "DescribeInstances", **params)
    except ApiError as err:  # a malformed filter from the URL: show it, keep the page usable
        data, error = {"Instances": [], "TotalCount": 0}, err.message
    state["total"] = data["TotalCount"]
    rows = [instance_row(page, item) for item in data["Instances"]]
    zones = REGION_BY_ID[page.region].zones
    return page.render(
        "ecs/instances.html", product="ecs", title=page.t("ecs.instances.title"),
        breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.instances.title"))],
        rows=rows, state=state, error=error,
        status_options=_options(page, ["Pending", "Starting", "Running", "Stopping", "Stopped"], "status."),
        zone_options=[(z, _zone_label(page, z)) for z in zones],
        status_filter=page.query("status") or None, zone_filter=page.query("zone") or None,
        type_options=[(t.id, f"{t.id} ({_type_label(page, t.id)})") for t in catalogs.INSTANCE_TYPES],
    )


# --- instance detail -----------------------------------------------------------------------


def _events(page: ConsolePage, instance_id: str) -> list[dict[str, Any]]:
    try:
        events = page.call("actiontrail", "LookupEvents", ResourceId=instance_id, PageSize=20)["Events"]
    except ApiError:
        return []
    return [{"id": e["eventId"], "time": e["eventTime"], "name": e["eventName"],
             "user": e["userIdentity"].get("userName") or "", "actor": e["actor"],
             "result": e["errorCode"] or page.t("ecs.logs.success")} for e in events]


def _disks(page: ConsolePage, instance_id: str) -> list[dict[str, Any]]:
    try:
        disks = page.call("ecs", "DescribeDisks", InstanceId=instance_id, PageSize=50)["Disks"]
    except ApiError:
        return []
    return [{"id": d["DiskId"], "name": d["DiskName"] or d["DiskId"], "type": page.t(f"ecs.disk_type.{d['Type']}"),
             "category": d["Category"] + (f" {d['PerformanceLevel']}" if d.get("PerformanceLevel") else ""),
             "size": f"{d['Size']} GiB", "device": d["Device"], "Status": d["Status"].replace("In_use", "InUse")} for d in disks]


def _groups(page: ConsolePage, group_ids: list[str]) -> list[dict[str, Any]]:
    if not group_ids:
        return []
    try:
        groups = page.call("ecs", "DescribeSecurityGroups", SecurityGroupIds=group_ids, PageSize=50)["SecurityGroups"]
    except ApiError:
        return []
    return [{"id": g["SecurityGroupId"], "name": g.get("SecurityGroupName") or g["SecurityGroupId"],
             "type": g.get("SecurityGroupType", "normal"), "description": g.get("Description", "")} for g in groups]


@router.get("/ecs/instances/create")
def create_instance(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    return _wizard(page)


@router.get("/ecs/instances/{instance_id}")
def instance_detail(instance_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    item = page.call("ecs", "DescribeInstanceAttribute", InstanceId=instance_id)
    renewal = None
    if item["InstanceChargeType"] == "PrePaid":
        renewal = page.call("ecs", "DescribeInstanceAutoRenewAttribute", InstanceId=instance_id)["InstanceRenewAttributes"][0]
    spec = catalogs.TYPE_BY_ID.get(item["InstanceType"])
    same_zone_types = [(t.id, f"{t.id} ({_type_label(page, t.id)})") for t in catalogs.types_in_zone(item["ZoneId"])
                       if t.id != item["InstanceType"]]
    return page.render(
        "ecs/instance_detail.html", product="ecs", title=item["InstanceName"],
        breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.instances.title"), "/ecs/instances"),
                     Breadcrumb(item["InstanceName"])],
        inst=item, row=instance_row(page, item), renewal=renewal, spec=spec, type_options=same_zone_types,
        disks=_disks(page, instance_id), groups=_groups(page, item["SecurityGroupIds"]), events=_events(page, instance_id),
    )


# --- the purchase wizard -------------------------------------------------------------------


def _wizard_data(page: ConsolePage) -> dict[str, Any]:
    """What the wizard's script needs to filter choices: types per zone with prices, images per OS."""
    zones = REGION_BY_ID[page.region].zones
    return {
        "types": [{"id": t.id, "family": t.family, "vcpu": t.vcpu, "memory": t.memory_gib,
                   "hourly": t.hourly_price, "monthly": f"{t.monthly_cents / 100:.2f}",
                   "zones": [z for z in zones if catalogs.is_sold_in(t.id, z)]} for t in catalogs.INSTANCE_TYPES],
        "images": [{"id": i.id, "platform": i.platform, "version": i.version, "os_type": i.os_type,
                    "min_disk": i.min_disk_gib} for i in catalogs.PUBLIC_IMAGES],
    }


def _wizard(page: ConsolePage) -> HTMLResponse:
    custom = page.call("ecs", "DescribeImages", ImageOwnerAlias="self", Status="Available", PageSize=100)["Images"]
    vpcs = page.call("vpc", "DescribeVpcs", PageSize=50)["Vpcs"]
    key_pairs = page.call("ecs", "DescribeKeyPairs", PageSize=50)["KeyPairs"]
    steps = [{"key": key, "label": page.t(f"ecs.create.step.{key}"), "description": page.t(f"ecs.create.step.{key}_desc")}
             for key in page.feature("ecs.create_wizard.steps")]
    zones = REGION_BY_ID[page.region].zones
    platforms = list(dict.fromkeys(i.platform for i in catalogs.PUBLIC_IMAGES))
    data = _wizard_data(page)
    data["custom_images"] = [{"id": i["ImageId"], "os_type": i["OSType"], "min_disk": i["Size"]} for i in custom]
    return page.render(
        "ecs/instance_create.html", product="ecs", title=page.t("ecs.create.title"),
        breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.instances.title"), "/ecs/instances"),
                     Breadcrumb(page.t("ecs.create.title"))],
        steps=steps, region_name=REGION_BY_ID[page.region].name,
        zone_options=[(z, _zone_label(page, z)) for z in zones],
        family_options=[(f.id, f"{f.id} · {page.t('ecs.family.' + f.label)}") for f in catalogs.FAMILIES],
        type_options=[{"value": t.id, "label": t.id,
                       "description": page.t("ecs.create.type_option", vcpu=t.vcpu, memory=f"{t.memory_gib:g}",
                                             hourly=t.hourly_price, monthly=f"{t.monthly_cents / 100:.2f}")}
                      for t in catalogs.INSTANCE_TYPES],
        platform_options=[(p, p) for p in platforms],
        version_options=[(i.id, i.version) for i in catalogs.PUBLIC_IMAGES],
        custom_image_options=[(i["ImageId"], f"{i['ImageName']} ({i['ImageId']})") for i in custom],
        vpc_options=[(v["VpcId"], f"{v['VpcName'] or v['VpcId']} ({v['CidrBlock']})") for v in vpcs],
        key_pair_options=[(k["KeyPairName"], k["KeyPairName"]) for k in key_pairs],
        disk_options=[(c, page.t(f"ecs.disk_category.{c}")) for c in catalogs.DISK_CATEGORIES],
        preset_image=page.query("image"), wizard_data=data,
    )


# --- images and key pairs ------------------------------------------------------------------


@router.get("/ecs/images")
def images(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    owner = "system" if page.query("owner") == "system" else "self"
    q = page.query("q").strip()
    params: dict[str, Any] = {"ImageOwnerAlias": owner, "PageNumber": page.query_int("page", 1),
                              "PageSize": page.query_int("page_size", 20, 1, 100)}
    if q:
        params["Keyword"] = q
    data = page.call("ecs", "DescribeImages", **params)
    rows = [{"id": i["ImageId"], "name": i["ImageName"], "os": i["OSName"], "platform": i["Platform"],
             "size": f"{i['Size']} GiB", "Status": i["Status"], "created": i["CreationTime"], "owner": owner,
             "source": i.get("SourceInstanceId") or "", "description": i.get("Description") or ""} for i in data["Images"]]
    state = {"q": q, "field": "keyword", "sort": None, "order": None, "page": params["PageNumber"], "page_size": params["PageSize"],
             "total": data["TotalCount"]}
    return page.render("ecs/images.html", product="ecs", title=page.t("ecs.images.title"),
                       breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.images.title"))],
                       rows=rows, state=state, owner=owner)


@router.get("/ecs/key-pairs")
def key_pairs(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    q = page.query("q").strip()
    params: dict[str, Any] = {"PageNumber": page.query_int("page", 1), "PageSize": page.query_int("page_size", 20, 1, 50)}
    if q:
        params["KeyPairName"] = q if "*" in q else f"*{q}*"
    data = page.call("ecs", "DescribeKeyPairs", **params)
    rows = [{"id": k["KeyPairId"], "name": k["KeyPairName"], "fingerprint": k["KeyPairFingerPrint"],
             "created": k["CreationTime"], "names_json": f'["{k["KeyPairName"]}"]'} for k in data["KeyPairs"]]
    state = {"q": q, "field": "name", "sort": None, "order": None, "page": params["PageNumber"], "page_size": params["PageSize"], "total": data["TotalCount"]}
    return page.render("ecs/key_pairs.html", product="ecs", title=page.t("ecs.key_pairs.title"),
                       breadcrumbs=[Breadcrumb(page.t("product.ecs.name"), "/ecs"), Breadcrumb(page.t("ecs.key_pairs.title"))],
                       rows=rows, state=state)


register_console_product(ConsoleProduct(key="ecs", router=router, nav=nav, home_href="/ecs",
                                        templates_package="stratus.products.ecs", resource_counts=resource_counts))
