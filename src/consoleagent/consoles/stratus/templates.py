"""The stratus templates: VPC, vSwitch, security group, key pair, ECS instance, disk, snapshot,
EIP, NAT gateway, custom route table and custom image, written against the public SDK (the stratus
backend's Resource META library; ``provisioning.py`` binds it to the SDK client and waiters).

Defaults pass stratus validation as they are (a task names only what matters to it). Destroy
undoes what the agent may have left in the way (an instance still running, a disk still attached,
an EIP still associated) and waits until the resource is really gone, so the next destroy in the
reverse order does not fail on a dependency.
"""

from __future__ import annotations

from ipaddress import ip_network
from typing import Any

from stratus.sdk import NotFoundError

from consoleagent.consoles.stratus.provisioning import BINDING
from consoleagent.provisioning.templates import Attribute, Template, TemplateContext, TemplateLibrary
from consoleagent.provisioning.types import ProvisioningError

DEFAULT_IMAGE = "aliyun_3_x64_20G_alibase_20250629.vhd"
DEFAULT_INSTANCE_TYPE = "ecs.g7.large"  # sold in every zone
INSTANCE_SETTLED = {"Running", "Stopped"}


# --- shared helpers ------------------------------------------------------------------------


def _fail(template: str, message: str) -> ProvisioningError:
    return ProvisioningError(message, template=template, phase="verify")


def _expect(template: str, what: str, field: str, actual: Any, wanted: Any) -> None:
    if actual != wanted:
        raise _fail(template, f"{what}: {field} is {actual!r}, expected {wanted!r}")


def _only(template: str, items: list[dict[str, Any]], resource_id: str) -> dict[str, Any]:
    if len(items) != 1:
        raise _fail(template, f"{resource_id} not found (the describe call returned {len(items)} items)")
    return items[0]


def _status(ctx: TemplateContext, resource_id: str) -> str | None:
    """The resource's status, or None when it no longer exists."""
    try:
        return ctx.client.get_resource(resource_id).get("Status")
    except NotFoundError:
        return None


def _delete(ctx: TemplateContext, resource_id: str, product: str, action: str, **params: Any) -> None:
    """Call a delete action and wait until the resource is gone; gone already is fine."""
    try:
        ctx.call(product, action, **params)
    except NotFoundError:
        return
    ctx.wait(resource_id, "Deleted")


def _default_zone(ctx: TemplateContext) -> str:
    return ctx.call("ecs", "DescribeZones", Verbose=False)["Zones"][0]["ZoneId"]


def _no_blank(value: str) -> None:
    if not value.strip():
        raise ValueError("must not be empty")


def _cidr(value: str) -> None:
    if value:
        try:
            ip_network(value, strict=True)
        except ValueError as err:
            raise ValueError(f"{value!r} is not a CIDR block ({err})") from None


# --- VPC -----------------------------------------------------------------------------------


def _vpc_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("vpc", "CreateVpc", CidrBlock=p["cidr_block"], VpcName=ctx.name(p), Description=p["description"] or None)
    ctx.record(vpc_id=made["VpcId"])
    ctx.wait(made["VpcId"], "Available")
    return {"vpc_id": made["VpcId"], "vpc_name": ctx.name(p), "cidr_block": p["cidr_block"],
            "route_table_id": made["RouteTableId"], "vrouter_id": made["VRouterId"]}


def _vpc_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    vpc = _only("vpc", ctx.call("vpc", "DescribeVpcs", VpcId=out["vpc_id"])["Vpcs"], out["vpc_id"])
    _expect("vpc", out["vpc_id"], "Status", vpc["Status"], "Available")
    _expect("vpc", out["vpc_id"], "CidrBlock", vpc["CidrBlock"], p["cidr_block"])


def _vpc_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    if _status(ctx, out["vpc_id"]) == "Pending":  # a create that failed half-way
        ctx.wait(out["vpc_id"], "Available")
    _delete(ctx, out["vpc_id"], "vpc", "DeleteVpc", VpcId=out["vpc_id"])


VPC = Template(
    name="vpc",
    description="A VPC (virtual private cloud) with its system route table; Available when ready.",
    attributes={
        "cidr_block": Attribute("str", "192.168.0.0/16", description="IPv4 CIDR block (a private range, /8 to /24)",
                                check=_cidr),
        "name": Attribute("str", "", description="VPC name (default: derived from the requirement name)"),
        "description": Attribute("str", "", description="VPC description"),
    },
    outputs=["vpc_id", "vpc_name", "cidr_block", "route_table_id", "vrouter_id"],
    create=_vpc_create, verify=_vpc_verify, destroy=_vpc_destroy,
    keywords=["vpc", "virtual private cloud", "network", "private network"],
)


# --- vSwitch -------------------------------------------------------------------------------


def _free_block(ctx: TemplateContext, vpc_id: str) -> str:
    """The first /24 (or the VPC's own prefix when smaller) that overlaps no vSwitch of the VPC."""
    vpc = ctx.call("vpc", "DescribeVpcs", VpcId=vpc_id)["Vpcs"]
    if not vpc:
        raise ProvisioningError(f"VPC {vpc_id} not found", template="vswitch", phase="create")
    network = ip_network(vpc[0]["CidrBlock"])
    taken = [ip_network(v["CidrBlock"]) for v in ctx.call("vpc", "DescribeVSwitches", VpcId=vpc_id, PageSize=50)["VSwitches"]]
    for candidate in network.subnets(new_prefix=max(24, network.prefixlen)):
        if not any(candidate.overlaps(other) for other in taken):
            return str(candidate)
    raise ProvisioningError(f"VPC {vpc_id} has no free block for a vSwitch", template="vswitch", phase="create")


def _vswitch_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    zone = p["zone"] or _default_zone(ctx)
    cidr = p["cidr_block"] or _free_block(ctx, p["vpc_id"])
    made = ctx.call("vpc", "CreateVSwitch", VpcId=p["vpc_id"], ZoneId=zone, CidrBlock=cidr, VSwitchName=ctx.name(p))
    ctx.record(vswitch_id=made["VSwitchId"])
    ctx.wait(made["VSwitchId"], "Available")
    return {"vswitch_id": made["VSwitchId"], "vpc_id": p["vpc_id"], "zone_id": zone, "cidr_block": cidr,
            "vswitch_name": ctx.name(p)}


def _vswitch_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    vsw = ctx.call("vpc", "DescribeVSwitchAttributes", VSwitchId=out["vswitch_id"])
    _expect("vswitch", out["vswitch_id"], "Status", vsw["Status"], "Available")
    _expect("vswitch", out["vswitch_id"], "VpcId", vsw["VpcId"], out["vpc_id"])
    _expect("vswitch", out["vswitch_id"], "ZoneId", vsw["ZoneId"], out["zone_id"])


def _vswitch_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    if _status(ctx, out["vswitch_id"]) == "Pending":
        ctx.wait(out["vswitch_id"], "Available")
    _delete(ctx, out["vswitch_id"], "vpc", "DeleteVSwitch", VSwitchId=out["vswitch_id"])


VSWITCH = Template(
    name="vswitch",
    description="A vSwitch (subnet) of a VPC in one zone; instances and NAT gateways are placed in it.",
    attributes={
        "vpc_id": Attribute("str", required=True, description="the VPC it belongs to"),
        "zone": Attribute("str", "", description="zone id (default: the region's first zone)"),
        "cidr_block": Attribute("str", "", description="CIDR block inside the VPC's (default: the first free /24)",
                                check=_cidr),
        "name": Attribute("str", "", description="vSwitch name"),
    },
    outputs=["vswitch_id", "vpc_id", "zone_id", "cidr_block", "vswitch_name"],
    create=_vswitch_create, verify=_vswitch_verify, destroy=_vswitch_destroy,
    depends={"vpc_id": "vpc"},
    keywords=["vswitch", "subnet", "switch", "zone"],
)


# --- security group ------------------------------------------------------------------------


def parse_rule(text: str) -> dict[str, Any]:
    """``protocol:ports:cidr[:ingress|egress[:accept|drop]]`` → the AuthorizeSecurityGroup parameters.

    Ports are ``22``, ``80-443`` or ``80/443``; ``-1`` for icmp, gre and all.
    """
    parts = text.split(":")
    if not 3 <= len(parts) <= 5:
        raise ValueError(f"rule {text!r} is not protocol:ports:cidr[:direction[:policy]] (e.g. tcp:22:0.0.0.0/0)")
    protocol, ports, cidr = parts[0].upper(), parts[1].replace("-", "/") if parts[1] != "-1" else "-1", parts[2]
    direction = parts[3].lower() if len(parts) > 3 else "ingress"
    policy = parts[4].lower() if len(parts) > 4 else "accept"
    if protocol not in ("TCP", "UDP", "ICMP", "GRE", "ALL"):
        raise ValueError(f"rule {text!r}: protocol must be tcp, udp, icmp, gre or all")
    if direction not in ("ingress", "egress") or policy not in ("accept", "drop"):
        raise ValueError(f"rule {text!r}: direction must be ingress|egress and policy accept|drop")
    port_range = "-1/-1" if protocol in ("ICMP", "GRE", "ALL") else (ports if "/" in ports else f"{ports}/{ports}")
    try:
        ip_network(cidr, strict=False)
    except ValueError:
        raise ValueError(f"rule {text!r}: {cidr!r} is not a CIDR block") from None
    peer = "SourceCidrIp" if direction == "ingress" else "DestCidrIp"
    return {"direction": direction, "IpProtocol": protocol, "PortRange": port_range, peer: cidr, "Policy": policy}


def _rules_check(rules: list[str]) -> None:
    for rule in rules:
        parse_rule(rule)


def _sg_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("ecs", "CreateSecurityGroup", VpcId=p["vpc_id"], SecurityGroupName=ctx.name(p),
                    SecurityGroupType=p["type"], Description=p["description"] or None)
    group_id = made["SecurityGroupId"]
    ctx.record(security_group_id=group_id)
    for text in p["rules"]:
        rule = parse_rule(text)
        action = "AuthorizeSecurityGroup" if rule.pop("direction") == "ingress" else "AuthorizeSecurityGroupEgress"
        ctx.call("ecs", action, SecurityGroupId=group_id, **rule)
    return {"security_group_id": group_id, "vpc_id": p["vpc_id"], "security_group_name": ctx.name(p)}


def _sg_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    group = ctx.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=out["security_group_id"])
    _expect("security_group", out["security_group_id"], "VpcId", group["VpcId"], out["vpc_id"])
    have = {(r["Direction"], r["IpProtocol"], r["PortRange"], r["SourceCidrIp"] or r["DestCidrIp"], r["Policy"].lower())
            for r in group["Permissions"]}
    for text in p["rules"]:
        rule = parse_rule(text)
        key = (rule["direction"], rule["IpProtocol"], rule["PortRange"],
               str(ip_network(rule.get("SourceCidrIp") or rule["DestCidrIp"], strict=False)), rule["Policy"])
        if key not in have:
            raise _fail("security_group", f"{out['security_group_id']} lacks the rule {text!r}")


def _sg_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    try:
        ctx.call("ecs", "DeleteSecurityGroup", SecurityGroupId=out["security_group_id"])
    except NotFoundError:
        pass


SECURITY_GROUP = Template(
    name="security_group",
    description="A security group in a VPC, optionally with rules such as tcp:22:0.0.0.0/0 (SSH from anywhere).",
    attributes={
        "vpc_id": Attribute("str", required=True, description="the VPC it belongs to"),
        "rules": Attribute("list[str]", [], description="rules as protocol:ports:cidr[:ingress|egress[:accept|drop]]",
                           check=_rules_check),
        "type": Attribute("str", "normal", choices=("normal", "enterprise"), description="security group type"),
        "name": Attribute("str", "", description="security group name"),
        "description": Attribute("str", "", description="security group description"),
    },
    outputs=["security_group_id", "vpc_id", "security_group_name"],
    create=_sg_create, verify=_sg_verify, destroy=_sg_destroy,
    depends={"vpc_id": "vpc"},
    keywords=["security group", "firewall", "rule", "port", "ingress", "egress"],
)


# --- key pair ------------------------------------------------------------------------------


def _kp_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("ecs", "CreateKeyPair", KeyPairName=ctx.name(p))
    ctx.record(key_pair_name=made["KeyPairName"])
    return {"key_pair_name": made["KeyPairName"], "key_pair_id": made.get("KeyPairId", ""),
            "fingerprint": made.get("KeyPairFingerPrint", "")}


def _kp_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    found = ctx.call("ecs", "DescribeKeyPairs", KeyPairName=out["key_pair_name"])["KeyPairs"]
    _only("key_pair", [k for k in found if k["KeyPairName"] == out["key_pair_name"]], out["key_pair_name"])


def _kp_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    try:
        ctx.call("ecs", "DeleteKeyPairs", KeyPairNames=[out["key_pair_name"]])
    except NotFoundError:
        pass


KEY_PAIR = Template(
    name="key_pair",
    description="An SSH key pair (the platform keeps the public key; the private key is not kept).",
    attributes={"name": Attribute("str", "", description="key pair name (unique in the region)")},
    outputs=["key_pair_name", "key_pair_id", "fingerprint"],
    create=_kp_create, verify=_kp_verify, destroy=_kp_destroy,
    keywords=["key pair", "ssh key", "keypair"],
)


# --- ECS instance --------------------------------------------------------------------------


def _instance_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    prepaid = p["charge_type"] == "prepaid"
    run = ctx.call(
        "ecs", "RunInstances", VSwitchId=p["vswitch_id"], SecurityGroupId=p["security_group_id"],
        InstanceType=p["instance_type"], ImageId=p["image"], InstanceName=ctx.name(p),
        InstanceChargeType="PrePaid" if prepaid else "PostPaid", Period=p["period"] if prepaid else None,
        PeriodUnit="Month", AutoRenew=p["auto_renew"] if prepaid else None,
        KeyPairName=p["key_pair_name"] or None, Password=p["password"] or None,
        SystemDisk={"Category": p["system_disk_category"], "Size": p["system_disk_size"]},
        InternetMaxBandwidthOut=p["internet_bandwidth"], DeletionProtection=p["deletion_protection"] or None,
    )
    instance_id = run["InstanceIdSets"]["InstanceIdSet"][0]
    ctx.record(instance_id=instance_id)
    ctx.wait(instance_id, "Running")
    if p["state"] == "stopped":
        ctx.call("ecs", "StopInstance", InstanceId=instance_id)
        ctx.wait(instance_id, "Stopped")
    view = ctx.call("ecs", "DescribeInstanceAttribute", InstanceId=instance_id)
    return {"instance_id": instance_id, "instance_name": view["InstanceName"], "zone_id": view["ZoneId"],
            "vpc_id": view["VpcAttributes"]["VpcId"], "vswitch_id": p["vswitch_id"],
            "security_group_id": p["security_group_id"], "private_ip": view["VpcAttributes"]["PrivateIpAddress"][0],
            "public_ip": (view["PublicIpAddress"] or [""])[0], "instance_type": view["InstanceType"]}


def _instance_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    view = ctx.call("ecs", "DescribeInstanceAttribute", InstanceId=out["instance_id"])
    what = out["instance_id"]
    _expect("ecs_instance", what, "Status", view["Status"], p["state"].capitalize())
    _expect("ecs_instance", what, "InstanceType", view["InstanceType"], p["instance_type"])
    _expect("ecs_instance", what, "InstanceChargeType", view["InstanceChargeType"],
            "PrePaid" if p["charge_type"] == "prepaid" else "PostPaid")
    if p["charge_type"] == "prepaid":
        _expect("ecs_instance", what, "AutoRenewEnabled", view["AutoRenewEnabled"], p["auto_renew"])
    if p["security_group_id"] not in view["SecurityGroupIds"]:
        raise _fail("ecs_instance", f"{what} is not in security group {p['security_group_id']}")


def _instance_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    instance_id = out["instance_id"]
    try:
        view = ctx.call("ecs", "DescribeInstanceAttribute", InstanceId=instance_id)
    except NotFoundError:
        return
    if view["InstanceChargeType"] == "PrePaid":
        raise ProvisioningError(f"{instance_id} is a subscription (PrePaid) instance: stratus releases those only at "
                                "expiry, so only an account snapshot restore or reset removes it",
                                template="ecs_instance", phase="destroy")
    if view["DeletionProtection"]:
        ctx.call("ecs", "ModifyInstanceAttribute", InstanceId=instance_id, DeletionProtection=False)
    status = view["Status"]
    if status not in INSTANCE_SETTLED:
        status = ctx.wait(instance_id, INSTANCE_SETTLED)["Status"]
    if status == "Running":
        ctx.call("ecs", "StopInstance", InstanceId=instance_id, ForceStop=True)
        ctx.wait(instance_id, "Stopped")
    _delete(ctx, instance_id, "ecs", "DeleteInstance", InstanceId=instance_id)


ECS_INSTANCE = Template(
    name="ecs_instance",
    description="An ECS instance in a vSwitch and security group, Running or Stopped, pay-as-you-go or subscription.",
    attributes={
        "vswitch_id": Attribute("str", required=True, description="the vSwitch (and so the zone and VPC) it runs in"),
        "security_group_id": Attribute("str", required=True, description="the security group it joins (same VPC)"),
        "state": Attribute("str", "running", choices=("running", "stopped"), description="the state it is left in"),
        "instance_type": Attribute("str", DEFAULT_INSTANCE_TYPE, description="instance type, e.g. ecs.g7.large",
                                   check=_no_blank),
        "image": Attribute("str", DEFAULT_IMAGE, description="image id (public or custom)", check=_no_blank),
        "name": Attribute("str", "", description="instance name"),
        "charge_type": Attribute("str", "postpaid", choices=("postpaid", "prepaid"),
                                 description="postpaid = pay-as-you-go; prepaid = subscription (cannot be released early)"),
        "period": Attribute("int", 1, description="subscription months (prepaid only)"),
        "auto_renew": Attribute("bool", False, description="subscription auto-renewal (prepaid only)"),
        "key_pair_name": Attribute("str", "", description="key pair to bind (Linux images)"),
        "password": Attribute("str", "", description="logon password (8-30 chars, three character classes)"),
        "system_disk_category": Attribute("str", "cloud_essd", choices=("cloud_essd", "cloud_auto", "cloud_ssd",
                                                                         "cloud_efficiency"), description="system disk category"),
        "system_disk_size": Attribute("int", 40, description="system disk size in GiB"),
        "internet_bandwidth": Attribute("int", 0, description="public bandwidth in Mbit/s (0 = no public IP)"),
        "deletion_protection": Attribute("bool", False, description="release protection (postpaid only)"),
    },
    outputs=["instance_id", "instance_name", "zone_id", "vpc_id", "vswitch_id", "security_group_id", "private_ip",
             "public_ip", "instance_type"],
    create=_instance_create, verify=_instance_verify, destroy=_instance_destroy,
    depends={"vswitch_id": "vswitch", "security_group_id": "security_group"},
    keywords=["ecs", "instance", "server", "vm", "virtual machine", "running", "stopped", "subscription",
              "auto-renewal", "renew"],
)


# --- disk ----------------------------------------------------------------------------------


def _disk_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    zone = p["zone"]
    if not zone:
        zone = (ctx.call("ecs", "DescribeInstanceAttribute", InstanceId=p["instance_id"])["ZoneId"]
                if p["instance_id"] else _default_zone(ctx))
    made = ctx.call("ecs", "CreateDisk", ZoneId=zone, DiskCategory=p["category"], Size=p["size"], DiskName=ctx.name(p),
                    PerformanceLevel=p["performance_level"] or None)
    disk_id = made["DiskId"]
    ctx.record(disk_id=disk_id)
    ctx.wait(disk_id, "Available")
    if p["instance_id"]:
        ctx.call("ecs", "AttachDisk", InstanceId=p["instance_id"], DiskId=disk_id)
        ctx.wait(disk_id, "In_use")
    return {"disk_id": disk_id, "zone_id": zone, "instance_id": p["instance_id"], "size": p["size"]}


def _disk_view(ctx: TemplateContext, disk_id: str) -> dict[str, Any] | None:
    found = ctx.call("ecs", "DescribeDisks", DiskIds=[disk_id])["Disks"]
    return found[0] if found else None


def _disk_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    disk = _disk_view(ctx, out["disk_id"])
    if disk is None:
        raise _fail("disk", f"{out['disk_id']} not found")
    _expect("disk", out["disk_id"], "Status", disk["Status"], "In_use" if p["instance_id"] else "Available")
    _expect("disk", out["disk_id"], "InstanceId", disk["InstanceId"], p["instance_id"])
    _expect("disk", out["disk_id"], "Size", disk["Size"], p["size"])


def _disk_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    disk_id = out["disk_id"]
    disk = _disk_view(ctx, disk_id)
    if disk is None:
        return
    if disk["Status"] not in ("In_use", "Available"):
        disk["Status"] = ctx.wait(disk_id, {"In_use", "Available"})["Status"]
    if disk["Status"] == "In_use":
        instance_id = _disk_view(ctx, disk_id)["InstanceId"]  # type: ignore[index]
        status = _status(ctx, instance_id)
        if status not in INSTANCE_SETTLED:
            ctx.wait(instance_id, INSTANCE_SETTLED)
        ctx.call("ecs", "DetachDisk", InstanceId=instance_id, DiskId=disk_id)
        ctx.wait(disk_id, "Available")
    _delete(ctx, disk_id, "ecs", "DeleteDisk", DiskId=disk_id)


DISK = Template(
    name="disk",
    description="A pay-as-you-go data disk, detached or attached to an instance (then in the instance's zone).",
    attributes={
        "instance_id": Attribute("str", "", description="attach to this instance (default: leave it detached)"),
        "zone": Attribute("str", "", description="zone id (default: the instance's zone, else the region's first)"),
        "category": Attribute("str", "cloud_essd", choices=("cloud_essd", "cloud_auto", "cloud_ssd", "cloud_efficiency"),
                              description="disk category"),
        "performance_level": Attribute("str", "", choices=("", "PL0", "PL1", "PL2", "PL3"),
                                       description="ESSD performance level (default PL1)"),
        "size": Attribute("int", 40, description="size in GiB"),
        "name": Attribute("str", "", description="disk name"),
    },
    outputs=["disk_id", "zone_id", "instance_id", "size"],
    create=_disk_create, verify=_disk_verify, destroy=_disk_destroy,
    keywords=["disk", "cloud disk", "data disk", "block storage", "volume", "attach", "detach"],
)


# --- snapshot ------------------------------------------------------------------------------


def _snapshot_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("ecs", "CreateSnapshot", DiskId=p["disk_id"], SnapshotName=ctx.name(p))
    ctx.record(snapshot_id=made["SnapshotId"])
    ctx.wait(made["SnapshotId"], "Accomplished")
    return {"snapshot_id": made["SnapshotId"], "disk_id": p["disk_id"], "snapshot_name": ctx.name(p)}


def _snapshot_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    found = ctx.call("ecs", "DescribeSnapshots", SnapshotIds=[out["snapshot_id"]])["Snapshots"]
    snap = _only("snapshot", found, out["snapshot_id"])
    _expect("snapshot", out["snapshot_id"], "Status", snap["Status"], "Accomplished")
    _expect("snapshot", out["snapshot_id"], "SourceDiskId", snap["SourceDiskId"], out["disk_id"])


def _snapshot_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    if _status(ctx, out["snapshot_id"]) == "Progressing":
        ctx.wait(out["snapshot_id"], {"Accomplished", "Failed", "Deleted"})
    _delete(ctx, out["snapshot_id"], "ecs", "DeleteSnapshot", SnapshotId=out["snapshot_id"], Force=True)


SNAPSHOT = Template(
    name="snapshot",
    description="A snapshot of a disk (Accomplished when ready).",
    attributes={
        "disk_id": Attribute("str", required=True, description="the disk to snapshot"),
        "name": Attribute("str", "", description="snapshot name (cannot start with 'auto')"),
    },
    outputs=["snapshot_id", "disk_id", "snapshot_name"],
    create=_snapshot_create, verify=_snapshot_verify, destroy=_snapshot_destroy,
    depends={"disk_id": "disk"},
    keywords=["snapshot", "backup", "rollback"],
)


# --- EIP -----------------------------------------------------------------------------------


def _eip_target_type(instance_id: str) -> str:
    return "Nat" if instance_id.startswith("ngw-") else "EcsInstance"


def _eip_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("vpc", "AllocateEipAddress", Bandwidth=p["bandwidth"], InternetChargeType=p["internet_charge_type"],
                    Name=ctx.name(p))
    allocation = made["AllocationId"]
    ctx.record(allocation_id=allocation)
    if p["instance_id"]:
        ctx.call("vpc", "AssociateEipAddress", AllocationId=allocation, InstanceId=p["instance_id"],
                 InstanceType=_eip_target_type(p["instance_id"]))
        ctx.wait(allocation, "InUse")
    return {"allocation_id": allocation, "ip_address": made["EipAddress"], "instance_id": p["instance_id"]}


def _eip_view(ctx: TemplateContext, allocation: str) -> dict[str, Any] | None:
    found = ctx.call("vpc", "DescribeEipAddresses", AllocationId=allocation)["EipAddresses"]
    return found[0] if found else None


def _eip_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    eip = _eip_view(ctx, out["allocation_id"])
    if eip is None:
        raise _fail("eip", f"{out['allocation_id']} not found")
    _expect("eip", out["allocation_id"], "Status", eip["Status"], "InUse" if p["instance_id"] else "Available")
    _expect("eip", out["allocation_id"], "InstanceId", eip["InstanceId"], p["instance_id"])


def _eip_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    allocation = out["allocation_id"]
    eip = _eip_view(ctx, allocation)
    if eip is None:
        return
    status = eip["Status"]
    if status in ("Associating", "Unassociating"):
        status = ctx.wait(allocation, {"InUse", "Available"})["Status"]
    if status == "InUse":
        ctx.call("vpc", "UnassociateEipAddress", AllocationId=allocation)
        ctx.wait(allocation, "Available")
    _delete(ctx, allocation, "vpc", "ReleaseEipAddress", AllocationId=allocation)


EIP = Template(
    name="eip",
    description="An elastic IP address, optionally associated with an ECS instance or a NAT gateway.",
    attributes={
        "instance_id": Attribute("str", "", description="associate with this instance or NAT gateway (ngw-...)"),
        "bandwidth": Attribute("int", 5, description="peak bandwidth in Mbit/s (1-200)"),
        "internet_charge_type": Attribute("str", "PayByTraffic", choices=("PayByTraffic", "PayByBandwidth"),
                                          description="how traffic is billed"),
        "name": Attribute("str", "", description="EIP name"),
    },
    outputs=["allocation_id", "ip_address", "instance_id"],
    create=_eip_create, verify=_eip_verify, destroy=_eip_destroy,
    keywords=["eip", "elastic ip", "public ip", "ip address", "associate"],
)


# --- NAT gateway ---------------------------------------------------------------------------


def _nat_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    vpc_id = p["vpc_id"] or ctx.call("vpc", "DescribeVSwitchAttributes", VSwitchId=p["vswitch_id"])["VpcId"]
    made = ctx.call("vpc", "CreateNatGateway", VpcId=vpc_id, VSwitchId=p["vswitch_id"], Spec=p["spec"], Name=ctx.name(p))
    nat_id = made["NatGatewayId"]
    ctx.record(nat_gateway_id=nat_id)
    ctx.wait(nat_id, "Available")
    return {"nat_gateway_id": nat_id, "vpc_id": vpc_id, "vswitch_id": p["vswitch_id"]}


def _nat_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    found = ctx.call("vpc", "DescribeNatGateways", NatGatewayId=out["nat_gateway_id"])["NatGateways"]
    nat = _only("nat_gateway", found, out["nat_gateway_id"])
    _expect("nat_gateway", out["nat_gateway_id"], "Status", nat["Status"], "Available")
    _expect("nat_gateway", out["nat_gateway_id"], "Spec", nat["Spec"], p["spec"])


def _nat_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    nat_id = out["nat_gateway_id"]
    status = _status(ctx, nat_id)
    if status is None:
        return
    if status == "Creating":
        ctx.wait(nat_id, "Available")
    elif status == "Deleting":
        ctx.wait(nat_id, "Deleted")
        return
    _delete(ctx, nat_id, "vpc", "DeleteNatGateway", NatGatewayId=nat_id)


NAT_GATEWAY = Template(
    name="nat_gateway",
    description="A pay-as-you-go enhanced NAT gateway in a vSwitch of a VPC.",
    attributes={
        "vswitch_id": Attribute("str", required=True, description="the vSwitch it is placed in"),
        "vpc_id": Attribute("str", "", description="its VPC (default: the vSwitch's)"),
        "spec": Attribute("str", "Small", choices=("Small", "Middle", "Large"), description="specification"),
        "name": Attribute("str", "", description="NAT gateway name"),
    },
    outputs=["nat_gateway_id", "vpc_id", "vswitch_id"],
    create=_nat_create, verify=_nat_verify, destroy=_nat_destroy,
    depends={"vswitch_id": "vswitch"},
    keywords=["nat", "nat gateway", "snat", "internet access", "gateway"],
)


# --- custom route table --------------------------------------------------------------------


def _next_hop_type(hop_id: str) -> str:
    return "NatGateway" if hop_id.startswith("ngw-") else "Instance"


def _route_table_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("vpc", "CreateRouteTable", VpcId=p["vpc_id"], RouteTableName=ctx.name(p))
    table_id = made["RouteTableId"]
    ctx.record(route_table_id=table_id)
    if p["vswitch_id"]:
        ctx.call("vpc", "AssociateRouteTable", RouteTableId=table_id, VSwitchId=p["vswitch_id"])
    entry_id = ""
    if p["route_destination"]:
        entry_id = ctx.call("vpc", "CreateRouteEntry", RouteTableId=table_id, DestinationCidrBlock=p["route_destination"],
                            NextHopId=p["route_next_hop_id"], NextHopType=_next_hop_type(p["route_next_hop_id"]))["RouteEntryId"]
        ctx.wait(entry_id, "Available")
    return {"route_table_id": table_id, "vpc_id": p["vpc_id"], "vswitch_id": p["vswitch_id"], "route_entry_id": entry_id}


def _route_table_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    found = ctx.call("vpc", "DescribeRouteTables", RouteTableId=out["route_table_id"])["RouteTables"]
    table = _only("route_table", found, out["route_table_id"])
    _expect("route_table", out["route_table_id"], "RouteTableType", table["RouteTableType"], "Custom")
    if p["vswitch_id"] and p["vswitch_id"] not in table["VSwitchIds"]:
        raise _fail("route_table", f"{out['route_table_id']} is not associated with {p['vswitch_id']}")
    if out["route_entry_id"]:
        entries = ctx.call("vpc", "DescribeRouteEntryList", RouteTableId=out["route_table_id"],
                           RouteEntryId=out["route_entry_id"])["RouteEntrys"]
        entry = _only("route_table", entries, out["route_entry_id"])
        _expect("route_table", out["route_entry_id"], "Status", entry["Status"], "Available")


def _route_table_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    table_id = out["route_table_id"]
    found = ctx.call("vpc", "DescribeRouteTables", RouteTableId=table_id)["RouteTables"]
    if not found:
        return
    for vswitch_id in found[0]["VSwitchIds"]:
        ctx.call("vpc", "UnassociateRouteTable", RouteTableId=table_id, VSwitchId=vswitch_id)
    entries = ctx.call("vpc", "DescribeRouteEntryList", RouteTableId=table_id, RouteEntryType="Custom")["RouteEntrys"]
    for entry in entries:
        if entry["Status"] != "Available":
            ctx.wait(entry["RouteEntryId"], "Available")
    _delete(ctx, table_id, "vpc", "DeleteRouteTable", RouteTableId=table_id)


def _route_check(value: str) -> None:
    _cidr(value)


ROUTE_TABLE = Template(
    name="route_table",
    description="A custom route table of a VPC, optionally associated with a vSwitch and with one custom route.",
    attributes={
        "vpc_id": Attribute("str", required=True, description="the VPC it belongs to"),
        "vswitch_id": Attribute("str", "", description="associate with this vSwitch (same VPC)"),
        "route_destination": Attribute("str", "", description="add a route to this CIDR block", check=_route_check),
        "route_next_hop_id": Attribute("str", "", description="the route's next hop: an instance (i-...) or NAT gateway (ngw-...)"),
        "name": Attribute("str", "", description="route table name"),
    },
    outputs=["route_table_id", "vpc_id", "vswitch_id", "route_entry_id"],
    create=_route_table_create, verify=_route_table_verify, destroy=_route_table_destroy,
    depends={"vpc_id": "vpc"},
    keywords=["route table", "route", "routing", "route entry", "next hop"],
)


# --- custom image --------------------------------------------------------------------------


def _image_create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    made = ctx.call("ecs", "CreateImage", InstanceId=p["instance_id"], ImageName=ctx.name(p),
                    Description=p["description"] or None)
    ctx.record(image_id=made["ImageId"])
    ctx.wait(made["ImageId"], "Available")
    return {"image_id": made["ImageId"], "instance_id": p["instance_id"], "image_name": ctx.name(p)}


def _image_verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    found = ctx.call("ecs", "DescribeImages", ImageId=out["image_id"], ImageOwnerAlias="self")["Images"]
    image = _only("image", found, out["image_id"])
    _expect("image", out["image_id"], "Status", image["Status"], "Available")
    _expect("image", out["image_id"], "SourceInstanceId", image["SourceInstanceId"], out["instance_id"])


def _image_destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
    if _status(ctx, out["image_id"]) == "Creating":
        ctx.wait(out["image_id"], "Available")
    _delete(ctx, out["image_id"], "ecs", "DeleteImage", ImageId=out["image_id"])


IMAGE = Template(
    name="image",
    description="A custom image made from an ECS instance's system disk (Available when ready).",
    attributes={
        "instance_id": Attribute("str", required=True, description="the instance to image"),
        "name": Attribute("str", "", description="image name (unique in the region)"),
        "description": Attribute("str", "", description="image description"),
    },
    outputs=["image_id", "instance_id", "image_name"],
    create=_image_create, verify=_image_verify, destroy=_image_destroy,
    depends={"instance_id": "ecs_instance"},
    keywords=["image", "custom image", "template image", "golden image"],
)


STRATUS_TEMPLATES: tuple[Template, ...] = (
    VPC, VSWITCH, SECURITY_GROUP, KEY_PAIR, ECS_INSTANCE, DISK, SNAPSHOT, EIP, NAT_GATEWAY, ROUTE_TABLE, IMAGE,
)


def stratus_library() -> TemplateLibrary:
    """Every stratus template in one checked library, bound to stratus's SDK (``provisioning.BINDING``)."""
    library = TemplateLibrary(STRATUS_TEMPLATES, binding=BINDING)
    library.check()
    return library
