"""Console pages of ECS security groups: the list, and a group's rules and instances.

Pages read only through ``page.call``; every change (create, add/modify/delete rule, quick add,
remove an instance) is a JSON API call made by the widget JS. Labels and structural switches
(quick add buttons, the default rule priority, whether a rule needs a description) come from the
release catalog, so a release changes the pages without touching this module.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from stratus.console.pages import Breadcrumb, ConsolePage, console_page

router = APIRouter(include_in_schema=False)

GROUP_TYPES = ("normal", "enterprise")
PROTOCOLS = ("TCP", "UDP", "ICMP", "GRE", "ALL")
QUICK_PORTS = (("ssh", "22/22"), ("http", "80/80"), ("https", "443/443"), ("rdp", "3389/3389"))


def crumbs(page: ConsolePage, *trail: tuple[str, str | None]) -> list[Breadcrumb]:
    return [Breadcrumb(page.t("product.ecs.name"), "/ecs")] + [Breadcrumb(label, href) for label, href in trail]


def table_state(page: ConsolePage, default_field: str = "name") -> dict[str, Any]:
    """The data table's state from the query string (search, paging)."""
    return {
        "q": page.query("q").strip(),
        "field": page.query("field", default_field),
        "sort": None,
        "order": None,
        "page": page.query_int("page", 1),
        "page_size": page.query_int("page_size", 10, 1, 100),
    }


def all_items(page: ConsolePage, product: str, action: str, list_name: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a Describe* list, page after page (for selects and small joins)."""
    items: list[dict[str, Any]] = []
    number = 1
    while True:
        data = page.call(product, action, PageNumber=number, PageSize=100, **params)
        items.extend(_unwrap(data[list_name]))
        if number * 100 >= data["TotalCount"]:
            return items
        number += 1


def _unwrap(value: Any) -> list[dict[str, Any]]:
    """Lists come flat or Alibaba-style ``{"Instance": [...]}``; take either."""
    if isinstance(value, dict):
        return next((v for v in value.values() if isinstance(v, list)), [])
    return list(value)


def _vpc_options(page: ConsolePage) -> list[dict[str, str]]:
    vpcs = all_items(page, "vpc", "DescribeVpcs", "Vpcs")
    return [{"value": v["VpcId"], "label": f"{v.get('VpcName') or v['VpcId']} ({v['CidrBlock']})",
             "disabled_reason": "" if v["Status"] == "Available" else v["Status"]} for v in vpcs]


@router.get("/ecs/security-groups")
def security_groups(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    state = table_state(page)
    params: dict[str, Any] = {"PageNumber": state["page"], "PageSize": state["page_size"]}
    if state["q"]:
        params["SecurityGroupIds" if state["field"] == "id" else "Keyword"] = [state["q"]] if state["field"] == "id" else state["q"]
    vpc_filter, type_filter = page.query("vpc_id"), page.query("type")
    if vpc_filter:
        params["VpcId"] = vpc_filter
    if type_filter in GROUP_TYPES:
        params["SecurityGroupType"] = type_filter
    data = page.call("ecs", "DescribeSecurityGroups", **params)
    state["total"] = data["TotalCount"]
    rows = [group | {"id": group["SecurityGroupId"], "name": group["SecurityGroupName"] or group["SecurityGroupId"],
                     "TypeLabel": page.t(f"ecs.security_groups.type_{group['SecurityGroupType']}"),
                     "disabled_actions": {"delete": page.t("ecs.security_groups.delete_blocked") if group["InstanceCount"] else ""}}
            for group in data["SecurityGroups"]]
    vpc_options = _vpc_options(page)
    return page.render("ecs/security_groups.html", product="ecs", title=page.t("ecs.security_groups.title"),
                       breadcrumbs=crumbs(page, (page.t("ecs.security_groups.title"), None)), rows=rows, state=state,
                       vpc_options=vpc_options, vpc_filter=vpc_filter or None,
                       type_filter=type_filter if type_filter in GROUP_TYPES else None, group_types=GROUP_TYPES,
                       open_create=page.query("create") == "1")


def _rule_rows(page: ConsolePage, rules: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for rule in rules:
        ingress = rule["Direction"] == "ingress"
        cidr = rule["SourceCidrIp"] if ingress else rule["DestCidrIp"]
        group = rule["SourceGroupId"] if ingress else rule["DestGroupId"]
        rows.append(rule | {
            "id": rule["SecurityGroupRuleId"], "name": rule["SecurityGroupRuleId"],
            "policy": rule["Policy"].lower(), "PolicyLabel": page.t(f"ecs.security_groups.policy_{rule['Policy'].lower()}"),
            "ProtocolLabel": page.t(f"ecs.security_groups.protocol_{rule['IpProtocol']}"),
            "Peer": cidr or f"{names.get(group, group)} ({group})", "CidrIp": cidr, "PeerGroupId": group,
        })
    return rows


@router.get("/ecs/security-groups/{security_group_id}")
def security_group_detail(security_group_id: str, page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    group = page.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=security_group_id)
    peers = all_items(page, "ecs", "DescribeSecurityGroups", "SecurityGroups", VpcId=group["VpcId"])
    names = {p["SecurityGroupId"]: p["SecurityGroupName"] or p["SecurityGroupId"] for p in peers}
    rules = _rule_rows(page, group["Permissions"], names)
    instances = all_items(page, "ecs", "DescribeInstances", "Instances", SecurityGroupId=security_group_id)
    instance_rows = []
    for instance in instances:
        group_ids = _unwrap(instance.get("SecurityGroupIds") or [])
        instance_rows.append(instance | {
            "id": instance["InstanceId"], "name": instance.get("InstanceName") or instance["InstanceId"],
            "PrivateIp": _private_ip(instance),
            "disabled_actions": {"leave": page.t("ecs.security_groups.leave_blocked") if len(group_ids) <= 1 else ""},
        })
    name = group["SecurityGroupName"] or group["SecurityGroupId"]
    peer_options = [{"value": gid, "label": f"{label} ({gid})"} for gid, label in names.items()]
    return page.render(
        "ecs/security_group_detail.html", product="ecs", title=name,
        breadcrumbs=crumbs(page, (page.t("ecs.security_groups.title"), "/ecs/security-groups"), (name, None)),
        group=group, name=name, inbound=[r for r in rules if r["Direction"] == "ingress"],
        outbound=[r for r in rules if r["Direction"] == "egress"], instances=instance_rows,
        protocols=PROTOCOLS, peer_options=peer_options, quick_ports=QUICK_PORTS,
        quick_add=bool(page.feature("ecs.security_groups.quick_add_buttons")),
        default_priority=int(page.feature("ecs.security_groups.default_priority")),
        description_required=bool(page.feature("ecs.security_groups.rule_description_required")),
    )


def _private_ip(instance: dict[str, Any]) -> str:
    """The primary private IP, whichever response shape DescribeInstances uses."""
    vpc_attrs = instance.get("VpcAttributes") or {}
    addresses = vpc_attrs.get("PrivateIpAddress") if isinstance(vpc_attrs, dict) else None
    if isinstance(addresses, dict):
        addresses = next((v for v in addresses.values() if isinstance(v, list)), [])
    if addresses:
        return str(addresses[0])
    return str(instance.get("PrivateIpAddress") or "")
