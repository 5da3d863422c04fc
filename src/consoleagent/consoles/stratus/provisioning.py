"""How the stratus templates reach stratus: the provisioner's SDK client, the waiters and the inventory.

This is the stratus half of the generic template engine (``consoleagent.provisioning``): the
:data:`BINDING` attached to the stratus library gives the engine its client (an SDK ``Client`` on
the account's provisioner key, so every set-up call is audited with actor ``provisioner``), its
default waiter (the SDK's own polling), the error that means "already gone" (``NotFoundError``)
and the inventory that template validation compares before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stratus.sdk import Client, NotFoundError, WaitTimeout

from consoleagent.provisioning.templates import ConsoleBinding, Waiter, wait_failed
from consoleagent.provisioning.types import PooledAccount, ProvisioningError

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


def provisioner_client(account: PooledAccount) -> Client:
    """An SDK client on the account's provisioner key (the console's URL serves the API too)."""
    if not account.provisioner_key:
        raise ProvisioningError(f"account {account.account_id} has no provisioner key", phase="lease")
    key_id, secret = account.provisioner_key
    return Client(account.console, key_id, secret, region=account.extra.get("region", "cn-hangzhou"))


def sdk_waiter(client: Client, resource_id: str, statuses: set[str], timeout: float) -> dict[str, Any]:
    """The real-time waiter: the SDK's own polling (a live server's states pass on its clock)."""
    try:
        return client.wait_for(resource_id, statuses, timeout)
    except WaitTimeout as err:
        raise wait_failed(resource_id, statuses, err.message) from err


def clock_waiter(advance: Callable[[float], Any], step_s: float = 1.0) -> Waiter:
    """A waiter for a server on a manual (virtual) clock: instead of sleeping it advances the clock
    by ``step_s`` between polls, so asynchronous states pass at once; ``timeout`` is virtual seconds."""

    def wait(client: Client, resource_id: str, statuses: set[str], timeout: float) -> dict[str, Any]:
        waited, last = 0.0, None
        while True:
            try:
                resource = client.get_resource(resource_id)
                last = resource.get("Status")
                if last in statuses:
                    return resource
            except NotFoundError:
                if "Deleted" in statuses:
                    return {"ResourceId": resource_id, "Status": "Deleted"}
                raise
            if waited >= timeout:
                raise wait_failed(resource_id, statuses, f"{resource_id} is {last}, not {sorted(statuses)}, after {timeout}s")
            advance(step_s)
            waited += step_s

    return wait


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


BINDING = ConsoleBinding(client_factory=provisioner_client, waiter=sdk_waiter, gone=(NotFoundError,),
                         inventory=inventory)
