"""VPC tables: VPCs, vSwitches, route tables and entries, EIPs, NAT gateways."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from stratus.core.db import Base, RegionalResource
from stratus.core.lifecycle import Lifecycle, register_lifecycle
from stratus.core.resources import ResourceType, register_resource_type


class Vpc(RegionalResource, Base):
    __tablename__ = "vpc_vpcs"

    cidr_block: Mapped[str] = mapped_column(String(43))
    status: Mapped[str] = mapped_column(String(16))
    transition_at: Mapped[datetime | None] = mapped_column(default=None)
    is_default: Mapped[bool] = mapped_column(default=False)
    vrouter_id: Mapped[str] = mapped_column(String(64))


class RouteTable(RegionalResource, Base):
    __tablename__ = "vpc_route_tables"

    vpc_id: Mapped[str] = mapped_column(ForeignKey("vpc_vpcs.id"), index=True)
    table_type: Mapped[str] = mapped_column(String(16))  # System | Custom
    status: Mapped[str] = mapped_column(String(16), default="Available")


class VSwitch(RegionalResource, Base):
    __tablename__ = "vpc_vswitches"

    vpc_id: Mapped[str] = mapped_column(ForeignKey("vpc_vpcs.id"), index=True)
    zone_id: Mapped[str] = mapped_column(String(32))
    cidr_block: Mapped[str] = mapped_column(String(43))
    status: Mapped[str] = mapped_column(String(16))
    transition_at: Mapped[datetime | None] = mapped_column(default=None)
    route_table_id: Mapped[str | None] = mapped_column(ForeignKey("vpc_route_tables.id"), default=None)


class RouteEntry(RegionalResource, Base):
    __tablename__ = "vpc_route_entries"

    route_table_id: Mapped[str] = mapped_column(ForeignKey("vpc_route_tables.id"), index=True)
    destination_cidr: Mapped[str] = mapped_column(String(43))
    next_hop_type: Mapped[str] = mapped_column(String(32))  # Instance | NatGateway | ...
    next_hop_id: Mapped[str] = mapped_column(String(64))
    entry_type: Mapped[str] = mapped_column(String(16), default="Custom")  # System | Custom
    status: Mapped[str] = mapped_column(String(16))
    transition_at: Mapped[datetime | None] = mapped_column(default=None)


class Eip(RegionalResource, Base):
    __tablename__ = "vpc_eips"

    ip_address: Mapped[str] = mapped_column(String(45))
    bandwidth_mbps: Mapped[int] = mapped_column(Integer, default=5)
    internet_charge_type: Mapped[str] = mapped_column(String(32), default="PayByTraffic")
    status: Mapped[str] = mapped_column(String(16))  # Available | Associating | InUse | Unassociating
    transition_at: Mapped[datetime | None] = mapped_column(default=None)
    instance_id: Mapped[str | None] = mapped_column(String(64), default=None)  # any product's resource: no FK
    instance_type: Mapped[str | None] = mapped_column(String(32), default=None)  # EcsInstance | Nat


class NatGateway(RegionalResource, Base):
    __tablename__ = "vpc_nat_gateways"

    vpc_id: Mapped[str] = mapped_column(ForeignKey("vpc_vpcs.id"), index=True)
    vswitch_id: Mapped[str] = mapped_column(ForeignKey("vpc_vswitches.id"), index=True)
    spec: Mapped[str] = mapped_column(String(16), default="Small")
    nat_type: Mapped[str] = mapped_column(String(16), default="Enhanced")
    status: Mapped[str] = mapped_column(String(16))  # Creating | Available | Deleting
    transition_at: Mapped[datetime | None] = mapped_column(default=None)


VPC_TYPE = register_resource_type(ResourceType("ACS::VPC::VPC", "vpc", Vpc, "vpc", "VPC"))
VSWITCH_TYPE = register_resource_type(ResourceType("ACS::VPC::VSwitch", "vsw", VSwitch, "vpc", "vSwitch"))
ROUTE_TABLE_TYPE = register_resource_type(ResourceType("ACS::VPC::RouteTable", "vtb", RouteTable, "vpc", "route table"))
ROUTE_ENTRY_TYPE = register_resource_type(ResourceType("ACS::VPC::RouteEntry", "rte", RouteEntry, "vpc", "route entry"))
EIP_TYPE = register_resource_type(ResourceType("ACS::VPC::EIP", "eip", Eip, "vpc", "EIP"))
NAT_TYPE = register_resource_type(ResourceType("ACS::VPC::NatGateway", "ngw", NatGateway, "vpc", "NAT gateway"))

# Virtual seconds each transitional state lasts. Kept short: a time scale speeds them up further.
VPC_LIFECYCLE = register_lifecycle(Lifecycle(Vpc, VPC_TYPE.type_name, "vpc", "Vpc:StateChange", {"Pending": ("Available", 2)}))
VSWITCH_LIFECYCLE = register_lifecycle(
    Lifecycle(VSwitch, VSWITCH_TYPE.type_name, "vpc", "VSwitch:StateChange", {"Pending": ("Available", 2)})
)
ROUTE_ENTRY_LIFECYCLE = register_lifecycle(
    Lifecycle(RouteEntry, ROUTE_ENTRY_TYPE.type_name, "vpc", "RouteEntry:StateChange", {"Pending": ("Available", 2)})
)
EIP_LIFECYCLE = register_lifecycle(Lifecycle(
    Eip, EIP_TYPE.type_name, "vpc", "Eip:StateChange",
    {"Associating": ("InUse", 2), "Unassociating": ("Available", 2)},
))
NAT_LIFECYCLE = register_lifecycle(Lifecycle(
    NatGateway, NAT_TYPE.type_name, "vpc", "NatGateway:StateChange",
    {"Creating": ("Available", 5), "Deleting": ("Deleted", 3)},
))
