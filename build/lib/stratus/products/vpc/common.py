"""Shared VPC helpers: CIDR and name validation, sorting and filtering of Describe* lists.

Validation messages mirror the real VPC API's wording, because agents (and the procedures they
follow) read them to recover from mistakes.
"""

from __future__ import annotations

from datetime import datetime
from ipaddress import IPv4Network, ip_network
from typing import Any

from stratus.core.clock import format_time
from stratus.core.errors import invalid_parameter
from stratus.core.params import check_description, check_name, id_list, keyword_match  # noqa: F401  (re-exported)

PRIVATE_RANGES: tuple[IPv4Network, ...] = (
    ip_network("10.0.0.0/8"),
    ip_network("172.16.0.0/12"),
    ip_network("192.168.0.0/16"),
)
DEFAULT_VPC_CIDR = "172.16.0.0/12"
# The first address and the last three of every vSwitch CIDR block are reserved by the platform.
RESERVED_ADDRESSES_PER_VSWITCH = 4


def parse_cidr(field: str, value: str) -> IPv4Network:
    """An IPv4 network in canonical form, or ``InvalidParameter.<field>`` saying what is wrong."""
    try:
        network = ip_network(value.strip(), strict=True)
    except ValueError as exc:
        reason = "host bits are set; use the network address" if "host bits" in str(exc) else "it is not a valid IPv4 CIDR block"
        raise invalid_parameter(field, f"The specified {field} {value!r} is invalid: {reason}.") from None
    if network.version != 4:
        raise invalid_parameter(field, f"The specified {field} {value!r} is invalid: only IPv4 CIDR blocks are supported.")
    return network  # type: ignore[return-value]


def vpc_cidr(value: str, field: str = "CidrBlock") -> IPv4Network:
    """A VPC CIDR block: one of the private ranges or a subnet of one, with a mask from /8 to /24."""
    network = parse_cidr(field, value)
    if not any(network.subnet_of(private) for private in PRIVATE_RANGES):
        raise invalid_parameter(
            field,
            f"The specified {field} {value!r} is invalid: a VPC CIDR block must be 10.0.0.0/8, 172.16.0.0/12, "
            "192.168.0.0/16 or a subnet of one of them.",
        )
    if not 8 <= network.prefixlen <= 24:
        raise invalid_parameter(field, f"The specified {field} {value!r} is invalid: the mask must be between /8 and /24.")
    return network


def ids_param(value: str | list[str] | None, field: str = "Ids") -> list[str]:
    """``VpcIds``-style parameters: a JSON list, a comma-separated string or a list."""
    return id_list(field, value) or []


def sort_items(items: list[dict[str, Any]], sort_by: str, order: str, tiebreak: str) -> list[dict[str, Any]]:
    """Sort response items by one field, ties broken by id so pages never overlap."""
    items = sorted(items, key=lambda item: str(item.get(tiebreak) or ""))
    return sorted(items, key=lambda item: str(item.get(sort_by) or "").lower(), reverse=(order == "desc"))


def when(value: datetime | None) -> str | None:
    return format_time(value) if value else None

