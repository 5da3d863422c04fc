"""The VPC console: overview, VPCs, vSwitches, route tables, EIPs and NAT gateways.

Pages read only through ``page.call`` (audited, scoped) and every change goes through the JSON API
from the widget JS. Labels and structural switches come from the release catalog, so a release can
rename, move or remove things without touching this module.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from stratus.console.pages import Breadcrumb, ConsolePage, console_page
from stratus.console.product import ConsoleProduct, NavGroup, NavItem, ResourceCount, register_console_product
from stratus.core.regions import REGION_BY_ID
from stratus.releases import Catalog

router = APIRouter(include_in_schema=False)

RECOMMENDED_CIDRS = ("192.168.0.0/16", "172.16.0.0/12", "10.0.0.0/8")
VPC_STATUSES = ("Pending", "Available")


# --- navigation ------------------------------------------------------------------------------

def nav(catalog: Catalog) -> list[NavGroup]:
    """Left tree. ``vpc.nav.route_tables_group`` says which group holds "Route tables" (a release moves it)."""
    t = catalog.t
    vpc_group = NavGroup(t("vpc.nav.group_vpc"), [
        NavItem(t("vpc.nav.vpcs"), "/vpc/vpcs"),
        NavItem(t("vpc.nav.vswitches"), "/vpc/vswitches"),
    ])
    route_tables = NavItem(t("vpc.nav.route_tables"), "/vpc/route-tables")
    groups = [NavGroup(t("vpc.nav.overview"), href="/vpc"), vpc_group]
    if catalog.feature("vpc.nav.route_tables_group") == "routing":
        groups.append(NavGroup(t("vpc.nav.group_routing"), [route_tables]))
    else:
        vpc_group.items.append(route_tables)
    groups.append(NavGroup(t("vpc.nav.group_eips"), [NavItem(t("vpc.nav.eips"), "/vpc/eips")]))
    groups.append(NavGroup(t("vpc.nav.group_nat"), [NavItem(t("vpc.nav.nat_gateways"), "/vpc/nat-gateways")]))
    return groups


# --- helpers ---------------------------------------------------------------------------------

def _crumbs(page: ConsolePage, *trail: tuple[str, str | None]) -> list[Breadcrumb]:
    return [Breadcrumb(page.t("product.vpc.name"), "/vpc")] + [Breadcrumb(label, href) for label, href in trail]


def _table_state(page: ConsolePage, sortable: tuple[str, ...], default_sort: str = "CreationTime") -> dict[str, Any]:
    """The data table's state from the query string, clamped to what the API accepts."""
    sort = page.query("sort", default_sort)
    return {
        "q": page.query("q").strip(),
        "field": page.query("field", "name"),
        "sort": sort if sort in sortable else default_sort,
        "order": "asc" if page.query("order") == "asc" else "desc",
        "page": page.query_int("page", 1),
        "page_size": page.query_int("page_size", 10, 1, 100),
    }


def _list_params(state: dict[str, Any], id_param: str) -> dict[str, Any]:
    params: dict[str, Any] = {"PageNumber": state["page"], "PageSize": state["page_size"],
                              "SortBy": state["sort"], "SortOrder": state["order"]}
    if state["q"]:
        params[id_param if state["field"] == "id" else "Keyword"] = state["q"]
    return params


def _all(page: ConsolePage, action: str, list_name: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a Describe* list (for selects and small per-page joins)."""
    items: list[dict[str, Any]] = []
    number = 1
    while True:
        data = page.call("vpc", action, PageNumber=number, PageSize=100, **params)
        items.extend(data[list_name])
        if number * 100 >= data["TotalCount"]:
            return items
        number += 1


def _zones(page: ConsolePage) -> list[tuple[str, str]]:
    region = REGION_BY_ID[page.region]
    return [(zone, page.t("vpc.zone_label", zone=zone[-1].upper(), id=zone)) for zone in region.zones]


def _vpc_options(vpcs: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"value": v["VpcId"], "label": f"{v['VpcName'] or v['VpcId']} ({v['CidrBlock']})",
             "disabled_reason": "" if v["Status"] == "Available" else v["Status"]} for v in vpcs]


# --- overview --------------------------------------------------------------------------------

def resource_counts(page: ConsolePage) -> list[ResourceCount]:
    """The home page's VPC tiles (also the overview's counts)."""
    counts = [
        ("vpc.nav.vpcs", "DescribeVpcs", "/vpc/vpcs"),
        ("vpc.nav.vswitches", "DescribeVSwitches", "/vpc/vswitches"),
        ("vpc.nav.route_tables", "DescribeRouteTables", "/vpc/route-tables"),
        ("vpc.nav.eips", "DescribeEipAddresses", "/vpc/eips"),
        ("vpc.nav.nat_gateways", "DescribeNatGateways", "/vpc/nat-gateways"),
    ]
    return [ResourceCount(page.t(key), page.call("vpc", action, PageSize=1)["TotalCount"], href)
            for key, action, href in counts]


@router.get("/vpc")
def overview(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    return page.render("vpc/overview.html", product="vpc", title=page.t("vpc.overview.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.overview.title"), None)), counts=resource_counts(page),
                       region_name=REGION_BY_ID[page.region].name)


# --- VPCs ------------------------------------------------------------------------------------

@router.get("/vpc/vpcs")
def vpcs(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = _table_state(page, ("CreationTime", "VpcName", "CidrBlock", "Status"))
    status = page.query("status")
    params = _list_params(state, "VpcId")
    if status in VPC_STATUSES:
        params["Status"] = status
    data = page.call("vpc", "DescribeVpcs", **params)
    state["total"] = data["TotalCount"]
    rows = []
    for vpc in data["Vpcs"]:
        blocked = vpc["VSwitchIds"] or vpc["NatGatewayIds"] or len(vpc["RouteTableIds"]) > 1
        rows.append(vpc | {"id": vpc["VpcId"], "name": vpc["VpcName"] or vpc["VpcId"],
                           "VSwitchCount": len(vpc["VSwitchIds"]),
                           "disabled_actions": {"delete": page.t("vpc.vpcs.delete_blocked") if blocked else ""}})
    return page.render("vpc/vpcs.html", product="vpc", title=page.t("vpc.vpcs.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.vpcs.title"), None)), rows=rows, state=state,
                       status=status if status in VPC_STATUSES else None, statuses=VPC_STATUSES)


@router.get("/vpc/vpcs/create")
def create_vpc_page(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    default_cidr = page.feature("vpc.create_vpc.default_cidr")
    return page.render("vpc/vpc_create.html", product="vpc", title=page.t("vpc.create_vpc.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.vpcs.title"), "/vpc/vpcs"), (page.t("vpc.create_vpc.title"), None)),
                       cidrs=RECOMMENDED_CIDRS, default_cidr=default_cidr, zones=_zones(page),
                       with_vswitch=bool(page.feature("vpc.create_vpc.with_vswitch")),
                       region_name=REGION_BY_ID[page.region].name)


@router.get("/vpc/vpcs/{vpc_id}")
def vpc_detail(vpc_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    vpc = page.call("vpc", "DescribeVpcAttribute", VpcId=vpc_id)
    vswitches = _all(page, "DescribeVSwitches", "VSwitches", VpcId=vpc_id)
    tables = _all(page, "DescribeRouteTables", "RouteTables", VpcId=vpc_id)
    nats = _all(page, "DescribeNatGateways", "NatGateways", VpcId=vpc_id)
    for vsw in vswitches:
        vsw.update(id=vsw["VSwitchId"], name=vsw["VSwitchName"] or vsw["VSwitchId"])
    for table in tables:
        table.update(id=table["RouteTableId"], name=table["RouteTableName"] or table["RouteTableId"])
    return page.render("vpc/vpc_detail.html", product="vpc", title=vpc["VpcName"] or vpc["VpcId"],
                       breadcrumbs=_crumbs(page, (page.t("vpc.vpcs.title"), "/vpc/vpcs"), (vpc["VpcName"] or vpc["VpcId"], None)),
                       vpc=vpc, vswitches=vswitches, tables=tables, nats=nats,
                       other_resources=_other_resources(page, vpc["CloudResources"]))


def _other_resources(page: ConsolePage, resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dependents from other products (instances, security groups...), labelled from the catalog."""
    own = {"vSwitch", "route table", "NAT gateway"}
    out = []
    for item in resources:
        if item["ResourceType"] in own:
            continue
        key = "vpc.resource_type." + item["ResourceType"].replace(" ", "_")
        out.append({"label": page.catalog.strings.get(key, item["ResourceType"]), "count": item["ResourceCount"]})
    return out


# --- vSwitches -------------------------------------------------------------------------------

@router.get("/vpc/vswitches")
def vswitches(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = _table_state(page, ("CreationTime", "VSwitchName", "CidrBlock", "ZoneId", "Status"))
    params = _list_params(state, "VSwitchId")
    vpc_filter, zone_filter = page.query("vpc_id"), page.query("zone_id")
    zones = _zones(page)
    if vpc_filter:
        params["VpcId"] = vpc_filter
    if zone_filter in {z for z, _ in zones}:
        params["ZoneId"] = zone_filter
    data = page.call("vpc", "DescribeVSwitches", **params)
    state["total"] = data["TotalCount"]
    vpcs_all = _all(page, "DescribeVpcs", "Vpcs")
    vpc_names = {v["VpcId"]: v["VpcName"] or v["VpcId"] for v in vpcs_all}
    rows = []
    for vsw in data["VSwitches"]:
        in_use = sum(r["ResourceCount"] for r in vsw["CloudResources"])
        rows.append(vsw | {"id": vsw["VSwitchId"], "name": vsw["VSwitchName"] or vsw["VSwitchId"],
                           "VpcName": vpc_names.get(vsw["VpcId"], vsw["VpcId"]), "ResourceCount": in_use,
                           "disabled_actions": {"delete": page.t("vpc.vswitches.delete_blocked") if in_use else ""}})
    return page.render("vpc/vswitches.html", product="vpc", title=page.t("vpc.vswitches.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.vswitches.title"), None)), rows=rows, state=state,
                       vpcs=vpcs_all, vpc_options=_vpc_options(vpcs_all), zones=zones,
                       vpc_filter=vpc_filter or None, zone_filter=zone_filter or None,
                       vpc_cidrs={v["VpcId"]: v["CidrBlock"] for v in vpcs_all},
                       open_create=page.query("create") == "1",
                       description_required=bool(page.feature("vpc.vswitches.description_required")))


@router.get("/vpc/vswitches/{vswitch_id}/drawer")
def vswitch_drawer(vswitch_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    """The quick-view drawer of the vSwitch list: details without leaving the table."""
    vsw = page.call("vpc", "DescribeVSwitchAttributes", VSwitchId=vswitch_id)
    return page.fragment("vpc/vswitch_drawer.html", vsw=vsw)


# --- route tables ----------------------------------------------------------------------------

@router.get("/vpc/route-tables")
def route_tables(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = _table_state(page, ("CreationTime", "RouteTableName", "RouteTableType"))
    params = _list_params(state, "RouteTableId")
    vpc_filter = page.query("vpc_id")
    if vpc_filter:
        params["VpcId"] = vpc_filter
    data = page.call("vpc", "DescribeRouteTables", **params)
    state["total"] = data["TotalCount"]
    vpcs_all = _all(page, "DescribeVpcs", "Vpcs")
    rows = []
    for table in data["RouteTables"]:
        reason = ""
        if table["RouteTableType"] == "System":
            reason = page.t("vpc.route_tables.system_undeletable")
        elif table["VSwitchIds"]:
            reason = page.t("vpc.route_tables.delete_blocked")
        rows.append(table | {"id": table["RouteTableId"], "name": table["RouteTableName"] or table["RouteTableId"],
                             "TypeLabel": page.t(f"vpc.route_tables.type.{table['RouteTableType']}"),
                             "VSwitchCount": len(table["VSwitchIds"]), "disabled_actions": {"delete": reason}})
    return page.render("vpc/route_tables.html", product="vpc", title=page.t("vpc.route_tables.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.route_tables.title"), None)), rows=rows, state=state,
                       vpc_options=_vpc_options(vpcs_all), vpc_filter=vpc_filter or None)


@router.get("/vpc/route-tables/{table_id}")
def route_table_detail(table_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    tables = page.call("vpc", "DescribeRouteTables", RouteTableId=table_id)["RouteTables"]
    if not tables:
        page.call("vpc", "DescribeRouteEntryList", RouteTableId=table_id)  # raises the API's NotFound
    table = tables[0]
    entries = page.call("vpc", "DescribeRouteEntryList", RouteTableId=table_id, PageSize=100)["RouteEntrys"]
    for entry in entries:
        entry.update(id=entry["RouteEntryId"], name=entry["RouteEntryName"] or entry["DestinationCidrBlock"],
                     TypeLabel=page.t(f"vpc.route_tables.type.{entry['Type']}"),
                     disabled_actions={"delete": page.t("vpc.route_entries.system_undeletable") if entry["Type"] == "System" else ""})
    vswitches = _all(page, "DescribeVSwitches", "VSwitches", VpcId=table["VpcId"])
    associated = [v | {"id": v["VSwitchId"], "name": v["VSwitchName"] or v["VSwitchId"]}
                  for v in vswitches if v["VSwitchId"] in table["VSwitchIds"]]
    free = [{"value": v["VSwitchId"], "label": f"{v['VSwitchName'] or v['VSwitchId']} ({v['CidrBlock']})"}
            for v in vswitches if v["RouteTable"]["RouteTableType"] == "System"]
    name = table["RouteTableName"] or table["RouteTableId"]
    return page.render("vpc/route_table_detail.html", product="vpc", title=name,
                       breadcrumbs=_crumbs(page, (page.t("vpc.route_tables.title"), "/vpc/route-tables"), (name, None)),
                       rt=table, entries=entries, associated=associated, free_vswitches=free)


# --- EIPs ------------------------------------------------------------------------------------

@router.get("/vpc/eips")
def eips(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = _table_state(page, ("AllocationTime", "Name", "IpAddress", "Status", "Bandwidth"), "AllocationTime")
    params = _list_params(state, "AllocationId")
    status = page.query("status")
    statuses = ("Available", "Associating", "InUse", "Unassociating")
    if status in statuses:
        params["Status"] = status
    data = page.call("vpc", "DescribeEipAddresses", **params)
    state["total"] = data["TotalCount"]
    rows = []
    for eip in data["EipAddresses"]:
        rows.append(eip | {
            "id": eip["AllocationId"], "name": eip["Name"] or eip["AllocationId"],
            "ChargeLabel": page.t(f"vpc.eips.charge.{eip['InternetChargeType']}"),
            "disabled_actions": {
                "associate": "" if eip["Status"] == "Available" else page.t("vpc.eips.associate_blocked"),
                "unassociate": "" if eip["Status"] == "InUse" else page.t("vpc.eips.unassociate_blocked"),
                "release": "" if eip["Status"] == "Available" else page.t("vpc.eips.release_blocked"),
            },
        })
    return page.render("vpc/eips.html", product="vpc", title=page.t("vpc.eips.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.eips.title"), None)), rows=rows, state=state,
                       status=status if status in statuses else None, statuses=statuses,
                       default_bandwidth=int(page.feature("vpc.eips.default_bandwidth")))


# --- NAT gateways ----------------------------------------------------------------------------

@router.get("/vpc/nat-gateways")
def nat_gateways(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = _table_state(page, ("CreationTime", "Name", "Status", "Spec"))
    params = _list_params(state, "NatGatewayId")
    data = page.call("vpc", "DescribeNatGateways", **params)
    state["total"] = data["TotalCount"]
    vpcs_all = _all(page, "DescribeVpcs", "Vpcs")
    rows = []
    for nat in data["NatGateways"]:
        reason = ""
        if nat["Status"] != "Available":
            reason = page.t("vpc.nat.delete_wait")
        elif nat["IpLists"]:
            reason = page.t("vpc.nat.delete_blocked")
        rows.append(nat | {"id": nat["NatGatewayId"], "name": nat["Name"] or nat["NatGatewayId"],
                           "Ips": ", ".join(ip["IpAddress"] for ip in nat["IpLists"]),
                           "disabled_actions": {"delete": reason}})
    return page.render("vpc/nat_gateways.html", product="vpc", title=page.t("vpc.nat.title"),
                       breadcrumbs=_crumbs(page, (page.t("vpc.nat.title"), None)), rows=rows, state=state,
                       vpc_options=_vpc_options(vpcs_all))


register_console_product(ConsoleProduct(
    key="vpc", router=router, nav=nav, home_href="/vpc", templates_package="stratus.products.vpc",
    resource_counts=resource_counts,
))
