"""ECS instances: RunInstances, the start/stop/reboot state machine, modification and release.

States move on the clock (``INSTANCE_LIFECYCLE``): a new instance is Pending, then Starting, then
Running; StopInstance goes Running -> Stopping -> Stopped; StartInstance Stopped -> Starting ->
Running. RebootInstance goes Running -> Rebooting -> Starting -> Running: ``Rebooting`` stands
for the "stopping before the restart" phase, so that it never passes through Stopped (which would
look like a stop in the trail and in the console).
"""

from __future__ import annotations

import hashlib
from calendar import monthrange
from datetime import datetime
from ipaddress import IPv4Address, ip_address, ip_network
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.dependencies import ensure_no_dependents, register_dependents
from stratus.core.errors import (
    ApiError, dry_run_operation, forbidden, incorrect_status, invalid_parameter, missing_parameter,
)
from stratus.core.regions import check_zone
from stratus.products.ecs import catalogs
from stratus.products.ecs.disks import create_data_disk_for_instance, create_system_disk, release_instance_disks
from stratus.products.ecs.images import ImageInfo, resolve_image
from stratus.products.ecs.key_pairs import key_pair_by_name
from stratus.products.ecs.models import INSTANCE_LIFECYCLE, INSTANCE_TYPE, Instance, InstanceSecurityGroup
from stratus.products.ecs.params import (
    TagSpec, check_description, check_host_name, check_name, check_password, check_tags, fold_dotted, id_list,
    keyword_match, name_matches, tags_match, tags_view,
)
from stratus.products.ecs.security_groups import get_security_group
from stratus.products.vpc.models import Eip, VSwitch

PRODUCT = "ecs"
TRANSITIONAL = ("Pending", "Starting", "Stopping", "Rebooting")
STATUSES = ("Pending", "Starting", "Running", "Stopping", "Stopped", "Rebooting")
MONTH_PERIODS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24, 36, 48, 60)
YEAR_PERIODS = (1, 2, 3, 4, 5)
MAX_SECURITY_GROUPS = 5
POSTPAID_EXPIRY = "2099-12-31T15:59:00.000Z"  # what the real API reports for pay-as-you-go instances


# --- small helpers -------------------------------------------------------------------------


def add_months(value: datetime, months: int) -> datetime:
    index = value.month - 1 + months
    year, month = value.year + index // 12, index % 12 + 1
    return value.replace(year=year, month=month, day=min(value.day, monthrange(year, month)[1]))


def check_period(period: int | None, unit: str) -> int:
    if period is None:
        raise missing_parameter("Period")
    allowed = YEAR_PERIODS if unit == "Year" else MONTH_PERIODS
    if period not in allowed:
        raise invalid_parameter("Period", f"The specified Period {period} is invalid for PeriodUnit {unit}; valid values: "
                                          f"{', '.join(str(p) for p in allowed)}.")
    return period


def check_instance_type(instance_type: str, zone_id: str) -> catalogs.InstanceTypeSpec:
    spec = catalogs.TYPE_BY_ID.get(instance_type)
    if spec is None:
        raise invalid_parameter("InstanceType", f"The specified InstanceType {instance_type!r} does not exist.")
    if not catalogs.is_sold_in(instance_type, zone_id):
        raise invalid_parameter("InstanceType", f"The instance type {instance_type} is not available in zone {zone_id}. "
                                                "Call DescribeAvailableResource to list the instance types sold there.")
    return spec


def require_status(instance: Instance, *allowed: str) -> None:
    if instance.status not in allowed:
        raise incorrect_status("instance", instance.id, instance.status, " or ".join(allowed))


def _public_ip_for(ctx: CallContext, instance_id: str) -> str:
    """A stable public address for an instance with public bandwidth (47.96.0.0/11, as Alibaba's)."""
    for salt in range(64):
        h = hashlib.sha256(f"{instance_id}:{salt}".encode()).digest()
        candidate = f"47.{96 + h[0] % 24}.{h[1]}.{1 + h[2] % 254}"
        if not ctx.count(Instance, Instance.public_ip == candidate):
            return candidate
    raise AssertionError("no free public address")  # pragma: no cover


def free_private_ips(ctx: CallContext, vswitch: VSwitch, wanted: int, requested: str | None) -> list[str]:
    """The lowest free addresses of a vSwitch; the first and last three of each block are reserved."""
    network = ip_network(vswitch.cidr_block)
    used = {row.private_ip for row in ctx.db.execute(ctx.scoped(Instance).where(Instance.vswitch_id == vswitch.id)).scalars()}
    first, last = int(network.network_address) + 1, int(network.broadcast_address) - 3
    if requested:
        try:
            address = ip_address(requested)
        except ValueError:
            raise invalid_parameter("PrivateIpAddress", f"The specified PrivateIpAddress {requested!r} is not an IPv4 address.") from None
        if wanted != 1:
            raise invalid_parameter("PrivateIpAddress", "PrivateIpAddress can only be specified when Amount is 1.")
        if not first <= int(address) <= last:
            raise invalid_parameter("PrivateIpAddress", f"The address {requested} is not a usable address of the vSwitch "
                                                        f"{vswitch.id} ({vswitch.cidr_block}).")
        if requested in used:
            raise invalid_parameter("PrivateIpAddress", f"The address {requested} is already used in vSwitch {vswitch.id}.")
        return [requested]
    found: list[str] = []
    for value in range(first, last + 1):
        candidate = str(IPv4Address(value))
        if candidate not in used:
            found.append(candidate)
            if len(found) == wanted:
                return found
    raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} ({vswitch.cidr_block}) does not have {wanted} free "
                                         "private IP address(es). Choose another vSwitch or a larger CIDR block.")


def security_group_ids_of(ctx: CallContext, instance_id: str) -> list[str]:
    stmt = ctx.scoped(InstanceSecurityGroup, regional=False).where(InstanceSecurityGroup.instance_id == instance_id)
    return sorted(row.security_group_id for row in ctx.db.execute(stmt).scalars())


def _eip_of(ctx: CallContext, instance_id: str) -> dict[str, Any]:
    eip = ctx.db.execute(ctx.scoped(Eip).where(Eip.instance_id == instance_id)).scalars().first()
    if eip is None:
        return {"IpAddress": "", "AllocationId": "", "Bandwidth": 0, "InternetChargeType": ""}
    return {"IpAddress": eip.ip_address, "AllocationId": eip.id, "Bandwidth": eip.bandwidth_mbps,
            "InternetChargeType": eip.internet_charge_type}


def instance_view(ctx: CallContext, row: Instance) -> dict[str, Any]:
    """The API shape of one instance, as DescribeInstances returns it."""
    spec = catalogs.TYPE_BY_ID.get(row.instance_type)
    return {
        "InstanceId": row.id, "InstanceName": row.name, "Description": row.description, "HostName": row.host_name,
        "RegionId": row.region_id, "ZoneId": row.zone_id, "InstanceType": row.instance_type,
        "InstanceTypeFamily": spec.family if spec else "", "Cpu": spec.vcpu if spec else 0,
        "Memory": int(spec.memory_gib * 1024) if spec else 0, "ImageId": row.image_id, "OSName": row.os_name,
        "OSNameEn": row.os_name, "OSType": row.os_type, "Status": row.status, "InstanceNetworkType": "vpc",
        "VpcAttributes": {"VpcId": row.vpc_id, "VSwitchId": row.vswitch_id, "PrivateIpAddress": [row.private_ip],
                          "NatIpAddress": ""},
        "PublicIpAddress": [row.public_ip] if row.public_ip else [], "EipAddress": _eip_of(ctx, row.id),
        "InternetMaxBandwidthOut": row.internet_max_bandwidth_out, "InternetChargeType": row.internet_charge_type,
        "SecurityGroupIds": security_group_ids_of(ctx, row.id), "KeyPairName": row.key_pair_name or "",
        "InstanceChargeType": row.charge_type,
        "ExpiredTime": format_time(row.expired_at) if row.expired_at else POSTPAID_EXPIRY,
        "StoppedMode": row.stopped_mode if row.status == "Stopped" and row.stopped_mode else "Not-applicable",
        "DeletionProtection": row.deletion_protection, "CreationTime": format_time(row.created_at),
        "SerialNumber": _serial(row.id), "Tags": tags_view(row.tags),
    }


def _serial(instance_id: str) -> str:
    h = hashlib.sha256(f"serial:{instance_id}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


# --- dependents: instances in a vSwitch or a VPC --------------------------------------------


def _instances_where(ctx: CallContext, *conditions: Any) -> list[tuple[str, str]]:
    rows = ctx.db.execute(ctx.scoped(Instance, regional=False).where(*conditions).order_by(Instance.id)).scalars()
    return [(INSTANCE_TYPE.label, row.id) for row in rows]


register_dependents("ACS::VPC::VSwitch", lambda ctx, vsw_id: _instances_where(ctx, Instance.vswitch_id == vsw_id))
register_dependents("ACS::VPC::VPC", lambda ctx, vpc_id: _instances_where(ctx, Instance.vpc_id == vpc_id))


# --- RunInstances --------------------------------------------------------------------------


class _Nested(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SystemDiskSpec(_Nested):
    Category: str = "cloud_essd"
    Size: int | None = Field(None, ge=1)
    PerformanceLevel: str | None = None


class DataDiskSpec(_Nested):
    Category: str = "cloud_essd"
    Size: int = Field(ge=1)
    PerformanceLevel: str | None = None
    DeleteWithInstance: bool = True


class RunInstancesRequest(CreateRequest):
    ZoneId: str | None = None
    InstanceType: str = Field(min_length=1)
    ImageId: str = Field(min_length=1)
    VSwitchId: str = Field(min_length=1)
    SecurityGroupId: str | None = None
    SecurityGroupIds: list[str] | str | None = None
    PrivateIpAddress: str | None = None
    InstanceName: str | None = Field(None, max_length=128)
    UniqueSuffix: bool = False
    HostName: str | None = Field(None, max_length=64)
    Description: str | None = Field(None, max_length=256)
    Password: str | None = None
    KeyPairName: str | None = None
    InstanceChargeType: Literal["PostPaid", "PrePaid"] = "PostPaid"
    Period: int | None = None
    PeriodUnit: Literal["Month", "Year"] = "Month"
    AutoRenew: bool = False
    AutoRenewPeriod: int | None = None
    SystemDisk: SystemDiskSpec = Field(default_factory=SystemDiskSpec)
    DataDisk: list[DataDiskSpec] = Field(default_factory=list, max_length=16)
    InternetMaxBandwidthOut: int = Field(0, ge=0, le=100)
    InternetChargeType: Literal["PayByTraffic", "PayByBandwidth"] = "PayByTraffic"
    Amount: int = Field(1, ge=1, le=100)
    DeletionProtection: bool = False
    Tag: list[TagSpec] = Field(default_factory=list)
    DryRun: bool = False

    @model_validator(mode="before")
    @classmethod
    def accept_dotted_names(cls, data: Any) -> Any:
        return fold_dotted(data)


def _security_groups(ctx: CallContext, req: RunInstancesRequest, vpc_id: str) -> list[str]:
    ids = list(dict.fromkeys(([req.SecurityGroupId] if req.SecurityGroupId else [])
                             + (id_list("SecurityGroupIds", req.SecurityGroupIds) or [])))
    if not ids:
        raise missing_parameter("SecurityGroupId")
    if len(ids) > MAX_SECURITY_GROUPS:
        raise invalid_parameter("SecurityGroupIds", f"An instance can join at most {MAX_SECURITY_GROUPS} security groups.")
    for group_id in ids:
        group = get_security_group(ctx, group_id)
        if group.vpc_id != vpc_id:
            raise invalid_parameter("SecurityGroupId", f"The security group {group_id} belongs to VPC {group.vpc_id}, not to "
                                                       f"the VPC {vpc_id} of the specified vSwitch.")
    return ids


def _credentials(ctx: CallContext, req: RunInstancesRequest, image: ImageInfo) -> tuple[bool, str | None]:
    if req.Password and req.KeyPairName:
        raise invalid_parameter("KeyPairName", "Specify either Password or KeyPairName, not both.")
    if req.Password:
        check_password(req.Password)
        return True, None
    if req.KeyPairName:
        if image.os_type == "windows":
            raise invalid_parameter("KeyPairName", "Key pairs are only supported by Linux instances; set a Password for "
                                                   f"the Windows image {image.id}.")
        return False, key_pair_by_name(ctx, req.KeyPairName).name
    return False, None


def _system_disk(req: RunInstancesRequest, image: ImageInfo) -> tuple[str, int, str | None]:
    disk = req.SystemDisk
    size = disk.Size if disk.Size is not None else max(40, image.min_disk_gib)
    if size < image.min_disk_gib:
        raise invalid_parameter("SystemDisk.Size", f"The system disk size {size} GiB is smaller than the {image.min_disk_gib} "
                                                   f"GiB the image {image.id} needs.")
    if size > catalogs.SYSTEM_DISK_MAX_GIB:
        raise invalid_parameter("SystemDisk.Size", f"The system disk size must be between {image.min_disk_gib} and "
                                                   f"{catalogs.SYSTEM_DISK_MAX_GIB} GiB.")
    if disk.Category not in catalogs.DISK_CATEGORIES:
        raise invalid_parameter("SystemDisk.Category", f"The disk category {disk.Category!r} is not supported; valid values: "
                                                       f"{', '.join(catalogs.DISK_CATEGORIES)}.")
    level = disk.PerformanceLevel or ("PL1" if disk.Category == "cloud_essd" else None)
    return disk.Category, size, level


def _names(req: RunInstancesRequest, image: ImageInfo) -> tuple[str, str, str]:
    name = check_name("InstanceName", req.InstanceName)
    host = check_host_name(req.HostName, image.os_type) if req.HostName else ""
    return name, host, check_description(req.Description)


def _suffixed(base: str, index: int, amount: int, unique: bool) -> str:
    return f"{base}{index + 1:03d}" if base and unique and amount > 1 else base


def _default_host(instance_id: str, os_type: str) -> str:
    suffix = instance_id.split("-", 1)[1]
    return f"iZ{suffix[:11]}Z" if os_type == "windows" else f"iZ{suffix}Z"


@action(PRODUCT, "RunInstances", rw="Write", request=RunInstancesRequest)
def run_instances(ctx: CallContext, req: RunInstancesRequest) -> dict[str, Any]:
    """Create and start one or more instances (Pending, then Starting, then Running)."""
    vswitch = ctx.get(VSwitch, req.VSwitchId)
    if vswitch.status != "Available":
        raise incorrect_status("vSwitch", vswitch.id, vswitch.status, "Available")
    zone = check_zone(ctx.region, req.ZoneId) if req.ZoneId else vswitch.zone_id
    if zone != vswitch.zone_id:
        raise invalid_parameter("VSwitchId", f"The vSwitch {vswitch.id} is in zone {vswitch.zone_id}, not in the "
                                             f"specified zone {zone}.")
    spec = check_instance_type(req.InstanceType, zone)
    image = resolve_image(ctx, req.ImageId)
    group_ids = _security_groups(ctx, req, vswitch.vpc_id)
    password_set, key_name = _credentials(ctx, req, image)
    name, host, description = _names(req, image)
    tags = check_tags(req.Tag)
    system_disk = _system_disk(req, image)
    data_disks = [(d.Category, d.Size, d.PerformanceLevel or ("PL1" if d.Category == "cloud_essd" else None))
                  for d in req.DataDisk]
    prepaid = req.InstanceChargeType == "PrePaid"
    period = check_period(req.Period, req.PeriodUnit) if prepaid else None
    if req.AutoRenew and not prepaid:
        raise invalid_parameter("AutoRenew", "Auto-renewal applies to subscription (PrePaid) instances only.")
    ctx.check_quota("ecs.instances", ctx.count(Instance), req.Amount)
    addresses = free_private_ips(ctx, vswitch, req.Amount, req.PrivateIpAddress)

    price = catalogs.quote(spec.id, system_disk, data_disks, req.InternetMaxBandwidthOut, req.InstanceChargeType,
                           period or 1, req.PeriodUnit, req.Amount)
    if prepaid:
        ctx.charge(price.trade_cents, f"{req.Amount} x {spec.id} for {period} {req.PeriodUnit.lower()}(s)")
    else:
        ctx.require_positive_balance()

    ids: list[str] = []
    for index in range(req.Amount):
        instance_id = ctx.new_id("i")
        row = Instance(
            id=instance_id, account_id=ctx.principal.account_id, region_id=ctx.region,
            name=_suffixed(name, index, req.Amount, req.UniqueSuffix) or instance_id, description=description,
            tags=dict(tags), created_at=ctx.now, zone_id=zone, instance_type=spec.id, image_id=image.id,
            os_name=image.os_name, os_type=image.os_type, vpc_id=vswitch.vpc_id, vswitch_id=vswitch.id,
            private_ip=addresses[index], host_name=_suffixed(host, index, req.Amount, req.UniqueSuffix)
            or _default_host(instance_id, image.os_type),
            charge_type=req.InstanceChargeType, period=period, period_unit=req.PeriodUnit if prepaid else None,
            auto_renew=req.AutoRenew, auto_renew_period=(req.AutoRenewPeriod or 1) if req.AutoRenew else None,
            expired_at=add_months(ctx.now, catalogs.period_months(period, req.PeriodUnit)) if period else None,
            key_pair_name=key_name, password_set=password_set, internet_max_bandwidth_out=req.InternetMaxBandwidthOut,
            internet_charge_type=req.InternetChargeType, deletion_protection=req.DeletionProtection,
        )
        if req.InternetMaxBandwidthOut > 0:
            row.public_ip = _public_ip_for(ctx, instance_id)
        INSTANCE_LIFECYCLE.begin(row, "Pending", ctx.now)
        ctx.db.add(row)
        ctx.db.flush()
        ctx.db.add_all(InstanceSecurityGroup(account_id=ctx.principal.account_id, instance_id=instance_id,
                                             security_group_id=group_id) for group_id in group_ids)
        create_system_disk(ctx, row, *system_disk)
        for (category, size, level), disk in zip(data_disks, req.DataDisk):
            create_data_disk_for_instance(ctx, row, category, size, level, disk.DeleteWithInstance)
        ctx.reference(INSTANCE_TYPE.type_name, instance_id)
        ids.append(instance_id)
    if req.DryRun:
        # Everything above ran and passed; the dispatcher rolls the transaction back on this error,
        # so nothing is created and nothing is charged, exactly as a real dry run.
        raise dry_run_operation()
    trade = price.trade_cents if prepaid else price.hourly_millicents * req.Amount / 1000
    return {"InstanceIdSets": {"InstanceIdSet": ids}, "OrderId": ctx.runtime.ids.numeric_id(ctx.db, 15),
            "TradePrice": round(trade / 100, 3)}


# --- describing ----------------------------------------------------------------------------


class DescribeInstancesRequest(ListRequest):
    InstanceIds: list[str] | str | None = None
    InstanceName: str | None = Field(None, description="Exact name or a pattern with * wildcards")
    Status: Literal["Pending", "Starting", "Running", "Stopping", "Stopped", "Rebooting"] | None = None
    VpcId: str | None = None
    VSwitchId: str | None = None
    ZoneId: str | None = None
    InstanceType: str | None = None
    InstanceTypeFamily: str | None = None
    ImageId: str | None = None
    SecurityGroupId: str | None = None
    KeyPairName: str | None = None
    InstanceChargeType: Literal["PostPaid", "PrePaid"] | None = None
    ChargeType: Literal["PostPaid", "PrePaid"] | None = Field(None, description="Alias of InstanceChargeType")
    PrivateIpAddresses: list[str] | str | None = None
    PublicIpAddresses: list[str] | str | None = None
    Keyword: str | None = Field(None, max_length=128, description="Matches id, name, host name and IP addresses")
    Tag: list[TagSpec] = Field(default_factory=list)
    SortBy: Literal["CreationTime", "InstanceName", "Status", "InstanceType", "ZoneId", "InstanceId"] = "CreationTime"
    SortOrder: Literal["asc", "desc"] = "desc"
    PageSize: int = Field(10, ge=1, le=100)

    @model_validator(mode="before")
    @classmethod
    def accept_dotted_names(cls, data: Any) -> Any:
        return fold_dotted(data)

    @field_validator("SortOrder", mode="before")
    @classmethod
    def lower_sort_order(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


_SORT_COLUMNS = {"CreationTime": "created_at", "InstanceName": "name", "Status": "status",
                 "InstanceType": "instance_type", "ZoneId": "zone_id", "InstanceId": "id"}


def _matches(ctx: CallContext, row: Instance, req: DescribeInstancesRequest, ids: list[str] | None,
             private: list[str] | None, public: list[str] | None) -> bool:
    charge = req.InstanceChargeType or req.ChargeType
    return (
        (ids is None or row.id in ids)
        and name_matches(req.InstanceName, row.name)
        and (req.Status is None or row.status == req.Status)
        and (req.VpcId is None or row.vpc_id == req.VpcId)
        and (req.VSwitchId is None or row.vswitch_id == req.VSwitchId)
        and (req.ZoneId is None or row.zone_id == req.ZoneId)
        and (req.InstanceType is None or row.instance_type == req.InstanceType)
        and (req.InstanceTypeFamily is None or row.instance_type.startswith(req.InstanceTypeFamily + "."))
        and (req.ImageId is None or row.image_id == req.ImageId)
        and (req.KeyPairName is None or row.key_pair_name == req.KeyPairName)
        and (charge is None or row.charge_type == charge)
        and (private is None or row.private_ip in private)
        and (public is None or (row.public_ip or "") in public)
        and keyword_match(req.Keyword, row.id, row.name, row.host_name, row.private_ip, row.public_ip)
        and tags_match(row.tags, req.Tag)
        and (req.SecurityGroupId is None or req.SecurityGroupId in security_group_ids_of(ctx, row.id))
    )


@action(PRODUCT, "DescribeInstances", rw="Read", request=DescribeInstancesRequest)
def describe_instances(ctx: CallContext, req: DescribeInstancesRequest) -> dict[str, Any]:
    """Instances of this region with filters, sorting and pages (newest first by default)."""
    ids = id_list("InstanceIds", req.InstanceIds)
    if ids is not None and len(ids) > 100:
        raise invalid_parameter("InstanceIds", "InstanceIds can list at most 100 instance ids.")
    private = id_list("PrivateIpAddresses", req.PrivateIpAddresses)
    public = id_list("PublicIpAddresses", req.PublicIpAddresses)
    rows = [row for row in ctx.db.execute(ctx.scoped(Instance).order_by(Instance.id)).scalars()
            if _matches(ctx, row, req, ids, private, public)]
    column = _SORT_COLUMNS[req.SortBy]
    rows.sort(key=lambda row: (getattr(row, column) if column != "name" else row.name.lower()), reverse=req.SortOrder == "desc")
    selected = page(rows, req, "Instances")
    selected["Instances"] = [instance_view(ctx, row) for row in selected["Instances"]]
    return selected


class InstanceIdRequest(ApiRequest):
    InstanceId: str = Field(min_length=1)


@action(PRODUCT, "DescribeInstanceAttribute", rw="Read", request=InstanceIdRequest)
def describe_instance_attribute(ctx: CallContext, req: InstanceIdRequest) -> dict[str, Any]:
    """Every attribute of one instance, with its logon credential kind and auto-renewal."""
    row = ctx.get(Instance, req.InstanceId)
    view = instance_view(ctx, row)
    view["Credential"] = "KeyPair" if row.key_pair_name else ("Password" if row.password_set else "None")
    view["AutoRenewEnabled"] = row.auto_renew
    view["Period"], view["PeriodUnit"] = row.period, row.period_unit
    return view


class DescribeInstanceStatusRequest(ListRequest):
    InstanceIds: list[str] | str | None = None
    ZoneId: str | None = None
    PageSize: int = Field(50, ge=1, le=100)


@action(PRODUCT, "DescribeInstanceStatus", rw="Read", request=DescribeInstanceStatusRequest)
def describe_instance_status(ctx: CallContext, req: DescribeInstanceStatusRequest) -> dict[str, Any]:
    """Just ids and statuses: the cheap call that status badges poll while an instance is transitional."""
    ids = id_list("InstanceIds", req.InstanceIds)
    rows = ctx.db.execute(ctx.scoped(Instance).order_by(Instance.created_at, Instance.id)).scalars()
    items = [{"InstanceId": row.id, "Status": row.status} for row in rows
             if (ids is None or row.id in ids) and (req.ZoneId is None or row.zone_id == req.ZoneId)]
    return page(items, req, "InstanceStatuses")


# --- start / stop / reboot -----------------------------------------------------------------


def _start(ctx: CallContext, row: Instance) -> None:
    require_status(row, "Stopped")
    if row.internet_max_bandwidth_out > 0 and not row.public_ip:
        row.public_ip = _public_ip_for(ctx, row.id)  # given back when stopped in StopCharging mode
    row.stopped_mode = None
    INSTANCE_LIFECYCLE.begin(row, "Starting", ctx.now)


def _stop(ctx: CallContext, row: Instance, stopped_mode: str | None) -> None:
    require_status(row, "Running")
    mode = stopped_mode or "KeepCharging"
    if mode == "StopCharging":
        if row.charge_type != "PostPaid":
            raise invalid_parameter("StoppedMode", "StopCharging (economical mode) applies to pay-as-you-go instances only.")
        row.public_ip = None  # economical mode releases the public address, as on the real cloud
    row.stopped_mode = mode
    INSTANCE_LIFECYCLE.begin(row, "Stopping", ctx.now)


def _reboot(ctx: CallContext, row: Instance) -> None:
    require_status(row, "Running")
    INSTANCE_LIFECYCLE.begin(row, "Rebooting", ctx.now)


class StartInstanceRequest(InstanceIdRequest):
    DryRun: bool = False


class StopInstanceRequest(InstanceIdRequest):
    ForceStop: bool = False
    StoppedMode: Literal["KeepCharging", "StopCharging"] | None = None
    DryRun: bool = False


class RebootInstanceRequest(InstanceIdRequest):
    ForceStop: bool = False
    DryRun: bool = False


def _single(ctx: CallContext, instance_id: str, dry_run: bool, apply: Any) -> dict[str, Any]:
    row = ctx.get(Instance, instance_id)
    apply(row)
    if dry_run:
        raise dry_run_operation()
    return {}


@action(PRODUCT, "StartInstance", rw="Write", request=StartInstanceRequest)
def start_instance(ctx: CallContext, req: StartInstanceRequest) -> dict[str, Any]:
    """Start a Stopped instance (Starting, then Running)."""
    return _single(ctx, req.InstanceId, req.DryRun, lambda row: _start(ctx, row))


@action(PRODUCT, "StopInstance", rw="Write", request=StopInstanceRequest)
def stop_instance(ctx: CallContext, req: StopInstanceRequest) -> dict[str, Any]:
    """Stop a Running instance (Stopping, then Stopped); StopCharging stops billing of pay-as-you-go ones."""
    return _single(ctx, req.InstanceId, req.DryRun, lambda row: _stop(ctx, row, req.StoppedMode))


@action(PRODUCT, "RebootInstance", rw="Write", request=RebootInstanceRequest)
def reboot_instance(ctx: CallContext, req: RebootInstanceRequest) -> dict[str, Any]:
    """Restart a Running instance (Rebooting, Starting, then Running again)."""
    return _single(ctx, req.InstanceId, req.DryRun, lambda row: _reboot(ctx, row))


class BatchRequest(ApiRequest):
    InstanceIds: list[str] | str = Field(description='A JSON array of 1 to 100 instance ids')
    BatchOptimization: Literal["AllTogether", "SuccessFirst"] = "AllTogether"
    ForceStop: bool = False
    StoppedMode: Literal["KeepCharging", "StopCharging"] | None = None
    DryRun: bool = False


def _batch(ctx: CallContext, req: BatchRequest, apply: Any) -> dict[str, Any]:
    """Apply one transition to many instances: all or nothing, or (SuccessFirst) each on its own."""
    ids = list(dict.fromkeys(id_list("InstanceIds", req.InstanceIds) or []))
    if not 1 <= len(ids) <= 100:
        raise invalid_parameter("InstanceIds", "InstanceIds must list 1 to 100 instance ids.")
    responses = []
    for instance_id in ids:
        try:
            row = ctx.get(Instance, instance_id)
            previous = row.status
            apply(row)
        except ApiError as err:
            if req.BatchOptimization == "AllTogether":
                raise
            responses.append({"InstanceId": instance_id, "Code": err.code, "Message": err.message,
                              "PreviousStatus": "", "CurrentStatus": ""})
            continue
        responses.append({"InstanceId": instance_id, "Code": "200", "Message": "success", "PreviousStatus": previous,
                          "CurrentStatus": row.status})
    if req.DryRun:
        raise dry_run_operation()
    return {"InstanceResponses": responses}


@action(PRODUCT, "StartInstances", rw="Write", request=BatchRequest)
def start_instances(ctx: CallContext, req: BatchRequest) -> dict[str, Any]:
    """Start several Stopped instances at once."""
    return _batch(ctx, req, lambda row: _start(ctx, row))


@action(PRODUCT, "StopInstances", rw="Write", request=BatchRequest)
def stop_instances(ctx: CallContext, req: BatchRequest) -> dict[str, Any]:
    """Stop several Running instances at once."""
    return _batch(ctx, req, lambda row: _stop(ctx, row, req.StoppedMode))


@action(PRODUCT, "RebootInstances", rw="Write", request=BatchRequest)
def reboot_instances(ctx: CallContext, req: BatchRequest) -> dict[str, Any]:
    """Restart several Running instances at once."""
    return _batch(ctx, req, lambda row: _reboot(ctx, row))


# --- modify --------------------------------------------------------------------------------


class ModifyInstanceAttributeRequest(InstanceIdRequest):
    InstanceName: str | None = Field(None, max_length=128)
    Description: str | None = Field(None, max_length=256)
    HostName: str | None = Field(None, max_length=64)
    Password: str | None = None
    DeletionProtection: bool | None = None


@action(PRODUCT, "ModifyInstanceAttribute", rw="Write", request=ModifyInstanceAttributeRequest)
def modify_instance_attribute(ctx: CallContext, req: ModifyInstanceAttributeRequest) -> dict[str, Any]:
    """Rename an instance, change its description, host name (when Stopped), password or deletion protection."""
    row = ctx.get(Instance, req.InstanceId)
    if req.InstanceName is not None:
        row.name = check_name("InstanceName", req.InstanceName) or row.id
    if req.Description is not None:
        row.description = check_description(req.Description)
    if req.HostName is not None and req.HostName != row.host_name:
        require_status(row, "Stopped")
        row.host_name = check_host_name(req.HostName, row.os_type)
    if req.Password is not None:
        check_password(req.Password)
        row.password_set = True  # the password itself is never stored; it applies at the next start
    if req.DeletionProtection is not None:
        if req.DeletionProtection and row.charge_type == "PrePaid":
            raise invalid_parameter("DeletionProtection", "Deletion protection applies to pay-as-you-go instances only.")
        row.deletion_protection = req.DeletionProtection
    return {}


class ModifyInstanceSpecRequest(InstanceIdRequest):
    InstanceType: str = Field(min_length=1)


@action(PRODUCT, "ModifyInstanceSpec", rw="Write", request=ModifyInstanceSpecRequest)
def modify_instance_spec(ctx: CallContext, req: ModifyInstanceSpecRequest) -> dict[str, Any]:
    """Change the instance type of a Stopped instance to another type sold in its zone."""
    row = ctx.get(Instance, req.InstanceId)
    require_status(row, "Stopped")
    if req.InstanceType == row.instance_type:
        raise invalid_parameter("InstanceType", f"The instance {row.id} already has the instance type {row.instance_type}.")
    check_instance_type(req.InstanceType, row.zone_id)
    row.instance_type = req.InstanceType
    return {}


class DeleteInstanceRequest(InstanceIdRequest):
    Force: bool = False
    DryRun: bool = False


@action(PRODUCT, "DeleteInstance", rw="Write", request=DeleteInstanceRequest)
def delete_instance(ctx: CallContext, req: DeleteInstanceRequest) -> dict[str, Any]:
    """Release a Stopped instance (or a Running one with Force); its disks go as DeleteWithInstance says."""
    row = ctx.get(Instance, req.InstanceId)
    if row.deletion_protection:
        raise forbidden(f"The instance {row.id} has deletion protection enabled; disable it "
                        "(ModifyInstanceAttribute DeletionProtection=false) before releasing the instance.")
    if row.charge_type == "PrePaid" and (row.expired_at is None or row.expired_at > ctx.now):
        raise incorrect_status("instance", row.id, "a subscription (PrePaid) instance",
                               "a pay-as-you-go instance: subscription instances are released at expiry")
    require_status(row, "Stopped", "Running") if req.Force else require_status(row, "Stopped")
    ensure_no_dependents(ctx, INSTANCE_TYPE.type_name, row.id, INSTANCE_TYPE.label)
    if req.DryRun:
        raise dry_run_operation()
    release_instance_disks(ctx, row.id)
    for link in ctx.db.execute(ctx.scoped(InstanceSecurityGroup, regional=False)
                               .where(InstanceSecurityGroup.instance_id == row.id)).scalars():
        ctx.db.delete(link)
    ctx.db.flush()
    ctx.db.delete(row)
    return {}
