"""Template validation: create, verify and destroy each template in a scratch account.

A template that provisions fine but leaves something behind would leak into the next episode of
the account, so validation also compares the account's inventory before and after. Wired into
the CLI as ``consoleagent templates validate``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from stratus.sdk import Client

from consoleagent.provisioning.engine import ClientFactory, ProvisioningEngine
from consoleagent.provisioning.templates import TemplateLibrary, Waiter
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement

# (product, list action, list field, id field, page size limit, extra filters)
INVENTORY: tuple[tuple[str, str, str, str, int, dict[str, Any]], ...] = (
    ("vpc", "DescribeVpcs", "Vpcs", "VpcId", 50, {}),
    ("vpc", "DescribeVSwitches", "VSwitches", "VSwitchId", 50, {}),
    ("vpc", "DescribeRouteTables", "RouteTables", "RouteTableId", 50, {"RouteTableType": "Custom"}),
    ("vpc", "DescribeNatGateways", "NatGateways", "NatGatewayId", 50, {}),
    ("vpc", "DescribeEipAddresses", "EipAddresses", "AllocationId", 50, {}),
    ("ecs", "DescribeSecurityGroups", "SecurityGroups", "SecurityGroupId", 50, {}),
    ("ecs", "DescribeInstances", "Instances", "InstanceId", 50, {}),
    ("ecs", "DescribeDisks", "Disks", "DiskId", 50, {}),
    ("ecs", "DescribeSnapshots", "Snapshots", "SnapshotId", 50, {}),
    ("ecs", "DescribeImages", "Images", "ImageId", 50, {"ImageOwnerAlias": "self"}),
    ("ecs", "DescribeKeyPairs", "KeyPairs", "KeyPairName", 50, {}),
)


@dataclass
class ValidationResult:
    name: str
    ok: bool
    seconds: float
    error: str = ""


def inventory(client: Client) -> set[str]:
    """Every resource id (key pair: name) of the client's region, through the public list actions."""
    found: set[str] = set()
    for product, action, list_field, id_field, size, filters in INVENTORY:
        number = 1
        while True:
            data = client.call(product, action, PageNumber=number, PageSize=size, **filters)
            found.update(f"{list_field}:{item[id_field]}" for item in data[list_field])
            if number * data["PageSize"] >= data["TotalCount"]:
                break
            number += 1
    return found


def validate_template(engine: ProvisioningEngine, account: PooledAccount, name: str) -> ValidationResult:
    """One template with its implicit dependencies: provision, destroy, then nothing new may remain."""
    started = time.monotonic()
    try:
        with engine.client(account) as client:
            before = inventory(client)
        provisioned = engine.provision(account, [Requirement(name="subject", template=name)])
        engine.destroy(provisioned)
        with engine.client(account) as client:
            left = sorted(inventory(client) - before)
        if left:
            raise ProvisioningError(f"left behind after destroy: {', '.join(left)}", template=name, phase="destroy")
    except Exception as err:  # a report, not a crash: the next template is still validated
        return ValidationResult(name, False, round(time.monotonic() - started, 3), f"{type(err).__name__}: {err}")
    return ValidationResult(name, True, round(time.monotonic() - started, 3))


def validate_library(library: TemplateLibrary, account: PooledAccount, *, names: list[str] | None = None,
                     client_factory: ClientFactory | None = None, waiter: Waiter | None = None,
                     wait_timeout_s: float = 120.0) -> list[ValidationResult]:
    """Create, verify and destroy each template (all, or ``names``) in a scratch account, one at a time."""
    engine = ProvisioningEngine(library, client_factory, waiter=waiter, wait_timeout_s=wait_timeout_s)
    chosen = names if names is not None else library.names()
    for name in chosen:
        library.get(name)  # unknown names fail before anything is created
    return [validate_template(engine, account, name) for name in chosen]
