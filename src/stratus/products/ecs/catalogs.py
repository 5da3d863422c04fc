"""What ECS sells: instance types (with the zones that stock them and their prices) and public images.

These are fixed catalogues in code, like a real cloud's price list: the API validates against
them, the Describe* actions list them, and the console's purchase page prices an order with the
same numbers the order is charged with.
"""

from __future__ import annotations

from dataclasses import dataclass

from stratus.core.regions import REGIONS

HOURS_PER_MONTH = 730
YEAR_MONTHS_CHARGED = 10  # a year of subscription costs ten months, like the real price list's annual discount


@dataclass(frozen=True)
class InstanceFamily:
    id: str  # "ecs.g7"
    label: str  # catalog key suffix: "general_purpose"
    level: str  # EnterpriseLevel | CreditEntryLevel
    processor: str
    generation: str
    zone_rule: str  # "all" | "not_last" (older stock) | "first_two"


@dataclass(frozen=True)
class InstanceTypeSpec:
    id: str  # "ecs.g7.large"
    family: str  # "ecs.g7"
    vcpu: int
    memory_gib: float
    hourly_millicents: int  # pay-as-you-go price per hour in 1/1000 of a cent
    baseline_credit: int | None = None  # burstable types: baseline performance per vCPU, percent

    @property
    def monthly_cents(self) -> int:
        """Subscription price of one month, a little under 730 pay-as-you-go hours."""
        return round(self.hourly_millicents * HOURS_PER_MONTH * 0.85 / 1000)

    @property
    def hourly_price(self) -> str:
        return f"{self.hourly_millicents / 100_000:.3f}"


FAMILIES: tuple[InstanceFamily, ...] = (
    InstanceFamily("ecs.g7", "general_purpose", "EnterpriseLevel", "Intel Xeon Platinum 8369B (Ice Lake)", "ecs-5", "all"),
    InstanceFamily("ecs.c7", "compute_optimized", "EnterpriseLevel", "Intel Xeon Platinum 8369B (Ice Lake)", "ecs-5", "all"),
    InstanceFamily("ecs.r7", "memory_optimized", "EnterpriseLevel", "Intel Xeon Platinum 8369B (Ice Lake)", "ecs-5", "first_two"),
    InstanceFamily("ecs.g6", "general_purpose", "EnterpriseLevel", "Intel Xeon Platinum 8269CY (Cascade Lake)", "ecs-4", "not_last"),
    InstanceFamily("ecs.t6", "burstable", "CreditEntryLevel", "Intel Xeon (Skylake) Platinum 8163", "ecs-4", "all"),
)
FAMILY_BY_ID = {f.id: f for f in FAMILIES}

INSTANCE_TYPES: tuple[InstanceTypeSpec, ...] = (
    InstanceTypeSpec("ecs.g7.large", "ecs.g7", 2, 8, 12_300),
    InstanceTypeSpec("ecs.g7.xlarge", "ecs.g7", 4, 16, 24_600),
    InstanceTypeSpec("ecs.g7.2xlarge", "ecs.g7", 8, 32, 49_200),
    InstanceTypeSpec("ecs.g7.4xlarge", "ecs.g7", 16, 64, 98_400),
    InstanceTypeSpec("ecs.c7.large", "ecs.c7", 2, 4, 9_700),
    InstanceTypeSpec("ecs.c7.xlarge", "ecs.c7", 4, 8, 19_400),
    InstanceTypeSpec("ecs.c7.2xlarge", "ecs.c7", 8, 16, 38_800),
    InstanceTypeSpec("ecs.c7.4xlarge", "ecs.c7", 16, 32, 77_600),
    InstanceTypeSpec("ecs.r7.large", "ecs.r7", 2, 16, 16_100),
    InstanceTypeSpec("ecs.r7.xlarge", "ecs.r7", 4, 32, 32_200),
    InstanceTypeSpec("ecs.r7.2xlarge", "ecs.r7", 8, 64, 64_400),
    InstanceTypeSpec("ecs.g6.large", "ecs.g6", 2, 8, 11_000),
    InstanceTypeSpec("ecs.g6.xlarge", "ecs.g6", 4, 16, 22_000),
    InstanceTypeSpec("ecs.g6.2xlarge", "ecs.g6", 8, 32, 44_000),
    InstanceTypeSpec("ecs.t6-c1m1.large", "ecs.t6", 2, 2, 2_600, baseline_credit=10),
    InstanceTypeSpec("ecs.t6-c1m2.large", "ecs.t6", 2, 4, 4_300, baseline_credit=10),
    InstanceTypeSpec("ecs.t6-c1m4.large", "ecs.t6", 2, 8, 7_200, baseline_credit=20),
)
TYPE_BY_ID = {t.id: t for t in INSTANCE_TYPES}

DISK_CATEGORIES: tuple[str, ...] = ("cloud_essd", "cloud_auto", "cloud_ssd", "cloud_efficiency")
PERFORMANCE_LEVELS: tuple[str, ...] = ("PL0", "PL1", "PL2", "PL3")
# Price per GiB-month in 1/1000 of a cent; ESSD by performance level.
DISK_GIB_MONTH_MILLICENTS: dict[str, int] = {
    "cloud_efficiency": 5_000, "cloud_ssd": 14_000, "cloud_auto": 10_000,
    "cloud_essd:PL0": 7_500, "cloud_essd:PL1": 15_000, "cloud_essd:PL2": 30_000, "cloud_essd:PL3": 60_000,
}
BANDWIDTH_MBPS_MONTH_CENTS = 320  # fixed public bandwidth, per Mbps-month
SYSTEM_DISK_MAX_GIB = 2048


def zones_selling(family: InstanceFamily) -> tuple[str, ...]:
    """Every zone, in every region, that stocks ``family``: newer families everywhere, older ones less."""
    zones: list[str] = []
    for region in REGIONS:
        if family.zone_rule == "all":
            zones.extend(region.zones)
        elif family.zone_rule == "not_last":
            zones.extend(region.zones[:-1])
        elif family.zone_rule == "first_two":
            zones.extend(region.zones[:2])
    return tuple(zones)


_ZONES_BY_FAMILY = {f.id: frozenset(zones_selling(f)) for f in FAMILIES}


def is_sold_in(instance_type: str, zone_id: str) -> bool:
    spec = TYPE_BY_ID.get(instance_type)
    return spec is not None and zone_id in _ZONES_BY_FAMILY[spec.family]


def types_in_zone(zone_id: str) -> list[InstanceTypeSpec]:
    return [t for t in INSTANCE_TYPES if zone_id in _ZONES_BY_FAMILY[t.family]]


@dataclass(frozen=True)
class PublicImage:
    id: str
    platform: str  # OS select in the purchase page: "Alibaba Cloud Linux", "Ubuntu", ...
    version: str  # version select: "22.04 64-bit"
    os_name: str
    os_type: str  # linux | windows
    min_disk_gib: int
    architecture: str = "x86_64"

    @property
    def name(self) -> str:
        return self.id.removesuffix(".vhd")


PUBLIC_IMAGES: tuple[PublicImage, ...] = (
    PublicImage("aliyun_3_x64_20G_alibase_20250629.vhd", "Alibaba Cloud Linux", "3.2104 LTS 64-bit",
                "Alibaba Cloud Linux 3.2104 LTS 64-bit", "linux", 20),
    PublicImage("aliyun_3_x64_20G_uefi_alibase_20250629.vhd", "Alibaba Cloud Linux", "3.2104 LTS 64-bit UEFI",
                "Alibaba Cloud Linux 3.2104 LTS 64-bit UEFI", "linux", 20),
    PublicImage("ubuntu_24_04_x64_20G_alibase_20250617.vhd", "Ubuntu", "24.04 64-bit", "Ubuntu 24.04 64-bit", "linux", 20),
    PublicImage("ubuntu_22_04_x64_20G_alibase_20250617.vhd", "Ubuntu", "22.04 64-bit", "Ubuntu 22.04 64-bit", "linux", 20),
    PublicImage("centos_stream_9_x64_20G_alibase_20250610.vhd", "CentOS Stream", "9 64-bit", "CentOS Stream 9 64-bit", "linux", 20),
    PublicImage("debian_12_10_x64_20G_alibase_20250521.vhd", "Debian", "12.10 64-bit", "Debian 12.10 64-bit", "linux", 20),
    PublicImage("win2022_21H2_x64_dtc_en-us_40G_alibase_20250610.vhd", "Windows Server", "2022 Datacenter 64-bit (English)",
                "Windows Server 2022 Datacenter 64-bit (English)", "windows", 40),
)
PUBLIC_IMAGE_BY_ID = {i.id: i for i in PUBLIC_IMAGES}
DEFAULT_IMAGE_ID = PUBLIC_IMAGES[0].id


def disk_gib_month_millicents(category: str, performance_level: str | None) -> int:
    if category == "cloud_essd":
        return DISK_GIB_MONTH_MILLICENTS[f"cloud_essd:{performance_level or 'PL1'}"]
    return DISK_GIB_MONTH_MILLICENTS[category]


def period_months(period: int, unit: str) -> int:
    return period * 12 if unit == "Year" else period


def charged_months(period: int, unit: str) -> int:
    """Months actually billed for a subscription period (a year bills ten)."""
    return period * YEAR_MONTHS_CHARGED if unit == "Year" else period


@dataclass(frozen=True)
class Quote:
    """The price of one instance order: what the purchase page shows and what RunInstances charges."""

    monthly_cents: int  # one instance, one month, everything included
    hourly_millicents: int  # one instance, pay-as-you-go
    amount: int
    charge_type: str
    months: int  # billed months for PrePaid, 0 for PostPaid

    @property
    def trade_cents(self) -> int:
        """Charged at once for a subscription; nothing up front for pay-as-you-go."""
        return self.monthly_cents * self.months * self.amount if self.charge_type == "PrePaid" else 0


def quote(instance_type: str, system_disk: tuple[str, int, str | None], data_disks: list[tuple[str, int, str | None]],
          bandwidth_mbps: int, charge_type: str, period: int = 1, unit: str = "Month", amount: int = 1) -> Quote:
    spec = TYPE_BY_ID[instance_type]
    disks = [system_disk, *data_disks]
    disk_month = sum(disk_gib_month_millicents(c, pl) * size for c, size, pl in disks)  # millicents
    monthly = spec.monthly_cents + round(disk_month / 1000) + bandwidth_mbps * BANDWIDTH_MBPS_MONTH_CENTS
    hourly = spec.hourly_millicents + round(disk_month / HOURS_PER_MONTH) + round(
        bandwidth_mbps * BANDWIDTH_MBPS_MONTH_CENTS * 1000 / HOURS_PER_MONTH)
    months = charged_months(period, unit) if charge_type == "PrePaid" else 0
    return Quote(monthly, hourly, amount, charge_type, months)
