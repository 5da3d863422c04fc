"""Subscription (PrePaid) instances: renewal and auto-renewal, and the price of an order.

Renewal charges the balance at once and moves the expiry date; auto-renewal is an attribute the
console shows and changes. ``DescribePrice`` prices an order with the same numbers RunInstances
charges, so the purchase page's estimate is never a guess.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import incorrect_status, invalid_parameter
from stratus.core.regions import check_zone
from stratus.products.ecs import catalogs
from stratus.products.ecs.instances import (
    DataDiskSpec, SystemDiskSpec, add_months, check_instance_type, check_period,
)
from stratus.products.ecs.models import Instance
from stratus.products.ecs.params import fold_dotted, id_list

PRODUCT = "ecs"
AUTO_RENEW_DURATIONS = (1, 2, 3, 6, 12, 24, 36, 48, 60)


def _subscription(ctx: CallContext, instance_id: str) -> Instance:
    row = ctx.get(Instance, instance_id)
    if row.charge_type != "PrePaid":
        raise incorrect_status("instance", row.id, "pay-as-you-go (PostPaid)", "a subscription (PrePaid) instance")
    return row


def _renewal_status(row: Instance) -> str:
    return "AutoRenewal" if row.auto_renew else "Normal"


class RenewInstanceRequest(ApiRequest):
    InstanceId: str = Field(min_length=1)
    Period: int | None = None
    PeriodUnit: Literal["Month", "Year"] = "Month"


@action(PRODUCT, "RenewInstance", rw="Write", request=RenewInstanceRequest)
def renew_instance(ctx: CallContext, req: RenewInstanceRequest) -> dict[str, Any]:
    """Extend a subscription instance by a period, charged to the balance now."""
    row = _subscription(ctx, req.InstanceId)
    period = check_period(req.Period, req.PeriodUnit)
    spec = catalogs.TYPE_BY_ID[row.instance_type]
    cents = spec.monthly_cents * catalogs.charged_months(period, req.PeriodUnit)
    ctx.charge(cents, f"renewing {row.id} for {period} {req.PeriodUnit.lower()}(s)")
    start = max(row.expired_at or ctx.now, ctx.now)
    row.expired_at = add_months(start, catalogs.period_months(period, req.PeriodUnit))
    return {"OrderId": ctx.runtime.ids.numeric_id(ctx.db, 15), "ExpiredTime": format_time(row.expired_at)}


class ModifyInstanceAutoRenewAttributeRequest(ApiRequest):
    InstanceId: str = Field(min_length=1, description="One id, or several separated by commas")
    AutoRenew: bool | None = None
    RenewalStatus: Literal["AutoRenewal", "Normal", "NotRenewal"] | None = None
    Duration: int | None = None
    PeriodUnit: Literal["Month", "Year"] = "Month"


@action(PRODUCT, "ModifyInstanceAutoRenewAttribute", rw="Write", request=ModifyInstanceAutoRenewAttributeRequest)
def modify_instance_auto_renew_attribute(ctx: CallContext, req: ModifyInstanceAutoRenewAttributeRequest) -> dict[str, Any]:
    """Turn auto-renewal of subscription instances on (with a renewal duration) or off."""
    enable = req.AutoRenew if req.AutoRenew is not None else (req.RenewalStatus == "AutoRenewal" if req.RenewalStatus else None)
    if enable is None:
        raise invalid_parameter("AutoRenew", "Specify AutoRenew (true or false) or RenewalStatus.")
    months = None
    if enable:
        duration = req.Duration or 1
        months = catalogs.period_months(duration, req.PeriodUnit)
        if months not in AUTO_RENEW_DURATIONS:
            raise invalid_parameter("Duration", f"The auto-renewal duration must be one of {', '.join(map(str, AUTO_RENEW_DURATIONS))} months.")
    for instance_id in id_list("InstanceId", req.InstanceId) or []:
        row = _subscription(ctx, instance_id)
        row.auto_renew, row.auto_renew_period = enable, months
    return {}


class DescribeInstanceAutoRenewAttributeRequest(ListRequest):
    InstanceId: str | None = Field(None, description="One id, or several separated by commas")
    RenewalStatus: Literal["AutoRenewal", "Normal", "NotRenewal"] | None = None


@action(PRODUCT, "DescribeInstanceAutoRenewAttribute", rw="Read", request=DescribeInstanceAutoRenewAttributeRequest)
def describe_instance_auto_renew_attribute(ctx: CallContext, req: DescribeInstanceAutoRenewAttributeRequest) -> dict[str, Any]:
    """Auto-renewal settings of subscription instances."""
    ids = id_list("InstanceId", req.InstanceId)
    if ids:
        rows = [_subscription(ctx, instance_id) for instance_id in ids]
    else:
        rows = list(ctx.db.execute(ctx.scoped(Instance).where(Instance.charge_type == "PrePaid").order_by(Instance.id)).scalars())
    items = [{"InstanceId": row.id, "AutoRenewEnabled": row.auto_renew, "Duration": row.auto_renew_period or 0,
              "PeriodUnit": "Month", "RenewalStatus": _renewal_status(row),
              "ExpiredTime": format_time(row.expired_at) if row.expired_at else None}
             for row in rows if req.RenewalStatus is None or _renewal_status(row) == req.RenewalStatus]
    return page(items, req, "InstanceRenewAttributes")


class DescribePriceRequest(ApiRequest):
    ResourceType: Literal["instance"] = "instance"
    ZoneId: str | None = None
    InstanceType: str = Field(min_length=1)
    InstanceChargeType: Literal["PostPaid", "PrePaid"] = "PostPaid"
    Period: int | None = None
    PeriodUnit: Literal["Month", "Year", "Hour"] = "Hour"
    Amount: int = Field(1, ge=1, le=100)
    SystemDisk: SystemDiskSpec = Field(default_factory=SystemDiskSpec)
    DataDisk: list[DataDiskSpec] = Field(default_factory=list, max_length=16)
    InternetMaxBandwidthOut: int = Field(0, ge=0, le=100)

    @model_validator(mode="before")
    @classmethod
    def accept_dotted_names(cls, data: Any) -> Any:
        return fold_dotted(data)


@action(PRODUCT, "DescribePrice", rw="Read", request=DescribePriceRequest)
def describe_price(ctx: CallContext, req: DescribePriceRequest) -> dict[str, Any]:
    """The price of an instance order: per hour for pay-as-you-go, for the whole period for subscriptions."""
    if req.ZoneId:
        check_instance_type(req.InstanceType, check_zone(ctx.region, req.ZoneId))
    elif req.InstanceType not in catalogs.TYPE_BY_ID:
        raise invalid_parameter("InstanceType", f"The specified InstanceType {req.InstanceType!r} does not exist.")
    prepaid = req.InstanceChargeType == "PrePaid"
    unit = req.PeriodUnit if prepaid else "Hour"
    period = check_period(req.Period or 1, unit) if prepaid else 1
    system = (req.SystemDisk.Category, req.SystemDisk.Size or 40,
              req.SystemDisk.PerformanceLevel or ("PL1" if req.SystemDisk.Category == "cloud_essd" else None))
    data = [(d.Category, d.Size, d.PerformanceLevel or ("PL1" if d.Category == "cloud_essd" else None)) for d in req.DataDisk]
    if system[0] not in catalogs.DISK_CATEGORIES:
        raise invalid_parameter("SystemDisk.Category", f"The disk category {system[0]!r} is not supported.")
    quote = catalogs.quote(req.InstanceType, system, data, req.InternetMaxBandwidthOut, req.InstanceChargeType,
                           period, unit if prepaid else "Month", req.Amount)
    total = quote.trade_cents / 100 if prepaid else quote.hourly_millicents * req.Amount / 100_000
    return {"PriceInfo": {"Price": {"Currency": "USD", "OriginalPrice": round(total, 3), "DiscountPrice": 0.0,
                                    "TradePrice": round(total, 3), "MonthlyPrice": round(quote.monthly_cents * req.Amount / 100, 2)},
                          "Period": period, "PeriodUnit": unit}}
