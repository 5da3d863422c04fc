"""ECS tables: instances, security groups and rules, disks, snapshots, custom images, key pairs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stratus.core.db import AccountOwned, Base, RegionalResource
from stratus.core.lifecycle import Lifecycle, register_lifecycle
from stratus.core.resources import ResourceType, register_resource_type


class SecurityGroup(RegionalResource, Base):
    __tablename__ = "ecs_security_groups"

    vpc_id: Mapped[str] = mapped_column(ForeignKey("vpc_vpcs.id"), index=True)
    group_type: Mapped[str] = mapped_column(String(16), default="normal")  # normal | enterprise


class SecurityGroupRule(RegionalResource, Base):
    __tablename__ = "ecs_security_group_rules"

    security_group_id: Mapped[str] = mapped_column(ForeignKey("ecs_security_groups.id"), index=True)
    direction: Mapped[str] = mapped_column(String(8))  # ingress | egress
    ip_protocol: Mapped[str] = mapped_column(String(8))  # TCP | UDP | ICMP | ALL
    port_range: Mapped[str] = mapped_column(String(16))  # "22/22", "-1/-1"
    cidr_ip: Mapped[str | None] = mapped_column(String(43), default=None)  # source (ingress) or destination (egress)
    peer_group_id: Mapped[str | None] = mapped_column(String(64), default=None)
    policy: Mapped[str] = mapped_column(String(8), default="accept")  # accept | drop
    priority: Mapped[int] = mapped_column(Integer, default=1)


class KeyPair(RegionalResource, Base):
    __tablename__ = "ecs_key_pairs"

    fingerprint: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(Text)


class Image(RegionalResource, Base):
    """A custom image; public images are a fixed catalogue in code, not rows."""

    __tablename__ = "ecs_images"

    source_instance_id: Mapped[str | None] = mapped_column(String(64), default=None)
    source_snapshot_id: Mapped[str | None] = mapped_column(String(64), default=None)
    os_name: Mapped[str] = mapped_column(String(64))
    os_type: Mapped[str] = mapped_column(String(16))  # linux | windows
    size_gb: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # Creating | Available
    transition_at: Mapped[datetime | None] = mapped_column(default=None)


class Instance(RegionalResource, Base):
    __tablename__ = "ecs_instances"

    zone_id: Mapped[str] = mapped_column(String(32))
    instance_type: Mapped[str] = mapped_column(String(32))
    image_id: Mapped[str] = mapped_column(String(64))
    vpc_id: Mapped[str] = mapped_column(ForeignKey("vpc_vpcs.id"), index=True)
    vswitch_id: Mapped[str] = mapped_column(ForeignKey("vpc_vswitches.id"), index=True)
    private_ip: Mapped[str] = mapped_column(String(45))
    host_name: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[str] = mapped_column(String(16))  # Pending | Starting | Running | Stopping | Stopped | Rebooting
    transition_at: Mapped[datetime | None] = mapped_column(default=None)
    charge_type: Mapped[str] = mapped_column(String(16), default="PostPaid")  # PostPaid | PrePaid
    period: Mapped[int | None] = mapped_column(Integer, default=None)
    period_unit: Mapped[str | None] = mapped_column(String(8), default=None)  # Month | Year
    auto_renew: Mapped[bool] = mapped_column(default=False)
    expired_at: Mapped[datetime | None] = mapped_column(default=None)
    key_pair_name: Mapped[str | None] = mapped_column(String(128), default=None)
    password_set: Mapped[bool] = mapped_column(default=False)
    internet_max_bandwidth_out: Mapped[int] = mapped_column(Integer, default=0)
    deletion_protection: Mapped[bool] = mapped_column(default=False)
    stopped_mode: Mapped[str | None] = mapped_column(String(24), default=None)  # KeepCharging | StopCharging
    # Added by the instances module: what the console and DescribeInstances show without joins.
    os_name: Mapped[str] = mapped_column(String(128), default="")
    os_type: Mapped[str] = mapped_column(String(16), default="linux")  # linux | windows
    public_ip: Mapped[str | None] = mapped_column(String(45), default=None)
    internet_charge_type: Mapped[str] = mapped_column(String(24), default="PayByTraffic")
    auto_renew_period: Mapped[int | None] = mapped_column(Integer, default=None)  # months


class InstanceSecurityGroup(AccountOwned, Base):
    __tablename__ = "ecs_instance_security_groups"

    instance_id: Mapped[str] = mapped_column(ForeignKey("ecs_instances.id"), primary_key=True)
    security_group_id: Mapped[str] = mapped_column(ForeignKey("ecs_security_groups.id"), primary_key=True)


class Disk(RegionalResource, Base):
    __tablename__ = "ecs_disks"

    zone_id: Mapped[str] = mapped_column(String(32))
    category: Mapped[str] = mapped_column(String(32))  # cloud_essd | cloud_ssd | cloud_efficiency
    performance_level: Mapped[str | None] = mapped_column(String(8), default=None)  # PL0..PL3 for ESSD
    size_gb: Mapped[int] = mapped_column(Integer)
    disk_type: Mapped[str] = mapped_column(String(8))  # system | data
    instance_id: Mapped[str | None] = mapped_column(ForeignKey("ecs_instances.id"), default=None, index=True)
    device: Mapped[str | None] = mapped_column(String(32), default=None)
    status: Mapped[str] = mapped_column(String(16))  # Creating | Available | Attaching | In_use | Detaching
    transition_at: Mapped[datetime | None] = mapped_column(default=None)
    delete_with_instance: Mapped[bool] = mapped_column(default=True)
    charge_type: Mapped[str] = mapped_column(String(16), default="PostPaid")
    source_image_id: Mapped[str | None] = mapped_column(String(64), default=None)
    source_snapshot_id: Mapped[str | None] = mapped_column(String(64), default=None)
    encrypted: Mapped[bool] = mapped_column(default=False)


class Snapshot(RegionalResource, Base):
    __tablename__ = "ecs_snapshots"

    source_disk_id: Mapped[str] = mapped_column(String(64), index=True)  # no FK: a snapshot outlives its disk
    source_disk_type: Mapped[str] = mapped_column(String(8))
    source_disk_size_gb: Mapped[int] = mapped_column(Integer)
    retention_days: Mapped[int | None] = mapped_column(Integer, default=None)
    progress: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16))  # Progressing | Accomplished
    transition_at: Mapped[datetime | None] = mapped_column(default=None)


SECURITY_GROUP_TYPE = register_resource_type(
    ResourceType("ACS::ECS::SecurityGroup", "sg", SecurityGroup, "ecs", "security group", status_attr=None)
)
SECURITY_GROUP_RULE_TYPE = register_resource_type(
    ResourceType("ACS::ECS::SecurityGroupRule", "sgr", SecurityGroupRule, "ecs", "security group rule", status_attr=None)
)
KEY_PAIR_TYPE = register_resource_type(ResourceType("ACS::ECS::KeyPair", "kp", KeyPair, "ecs", "key pair", status_attr=None))
IMAGE_TYPE = register_resource_type(ResourceType("ACS::ECS::Image", "m", Image, "ecs", "image"))
INSTANCE_TYPE = register_resource_type(ResourceType("ACS::ECS::Instance", "i", Instance, "ecs", "instance"))
DISK_TYPE = register_resource_type(ResourceType("ACS::ECS::Disk", "d", Disk, "ecs", "disk"))
SNAPSHOT_TYPE = register_resource_type(ResourceType("ACS::ECS::Snapshot", "s", Snapshot, "ecs", "snapshot"))

# Virtual seconds per transitional state (a time scale > 1 makes them pass faster).
INSTANCE_STEPS = {
    "Pending": ("Starting", 3.0),
    "Starting": ("Running", 5.0),
    "Stopping": ("Stopped", 5.0),
    "Rebooting": ("Starting", 3.0),  # RebootInstance: Running -> Rebooting -> Starting -> Running
}
INSTANCE_LIFECYCLE = register_lifecycle(
    Lifecycle(Instance, INSTANCE_TYPE.type_name, "ecs", "Instance:StateChange", dict(INSTANCE_STEPS))
)
DISK_LIFECYCLE = register_lifecycle(Lifecycle(
    Disk, DISK_TYPE.type_name, "ecs", "Disk:StateChange",
    {"Creating": ("Available", 2.0), "Attaching": ("In_use", 2.0), "Detaching": ("Available", 2.0)},
))
SNAPSHOT_LIFECYCLE = register_lifecycle(
    Lifecycle(Snapshot, SNAPSHOT_TYPE.type_name, "ecs", "Snapshot:StateChange", {"Progressing": ("Accomplished", 6.0)})
)
IMAGE_LIFECYCLE = register_lifecycle(
    Lifecycle(Image, IMAGE_TYPE.type_name, "ecs", "Image:StateChange", {"Creating": ("Available", 8.0)})
)
