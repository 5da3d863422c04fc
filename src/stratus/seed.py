"""Seed a demo account with a small, realistic estate, created through the API as the provisioner.

Going through the API (not raw inserts) means the demo's resources pass every validation a
tenant's would, and the audit trail shows how they came to be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stratus.api.dispatch import Caller, invoke
from stratus.core import accounts as account_ops
from stratus.core.identity import Principal
from stratus.runtime import Runtime

DEMO_ALIAS = "demo"
DEMO_PASSWORD = "Demo-Passw0rd"


class SeedError(RuntimeError):
    pass


@dataclass
class DemoAccount:
    credentials: account_ops.NewAccount
    resources: dict[str, str]


def _call(runtime: Runtime, principal: Principal, product: str, action: str, **params: Any) -> dict[str, Any]:
    result = invoke(runtime, Caller(principal, "127.0.0.1", "stratus-seed"), product, action, params)
    if not result.ok:
        raise SeedError(f"{product}/{action} failed: {result.body['Code']}: {result.body['Message']}")
    return result.body


def settle(runtime: Runtime, principal: Principal, seconds: float) -> None:
    """Let asynchronous states finish: advance a manual clock, or wait on a real one."""
    from stratus.core.clock import ManualClock

    if isinstance(runtime.clock, ManualClock):
        runtime.clock.advance(seconds)
    else:
        import time

        time.sleep(seconds / runtime.settings.time_scale)
    _call(runtime, principal, "actiontrail", "LookupEvents", PageSize=1)  # applies due transitions


def seed_demo(runtime: Runtime, alias: str = DEMO_ALIAS, password: str = DEMO_PASSWORD, region: str = "cn-hangzhou") -> DemoAccount:
    """Create (or re-create) the demo account and its estate: a VPC, two vSwitches, a security group
    with SSH/HTTP rules, a key pair, a running instance with a data disk, and an EIP."""
    with runtime.write_lock, runtime.session() as db:
        creds = account_ops.create_account(db, runtime.ids, runtime.clock.now(), alias=alias, password=password,
                                           balance_cents=500_000, display_name="Demo Company")
        db.commit()
    principal = Principal(creds.account_id, None, "root", "provisioner", access_key_id=creds.provisioner_key_id)
    r = dict(RegionId=region)
    vpc = _call(runtime, principal, "vpc", "CreateVpc", VpcName="prod-vpc", CidrBlock="172.16.0.0/12", Description="Production network", **r)
    settle(runtime, principal, 3)
    zones = [z for z in _zones(region)]
    web = _call(runtime, principal, "vpc", "CreateVSwitch", VpcId=vpc["VpcId"], ZoneId=zones[0], CidrBlock="172.16.1.0/24",
                VSwitchName="web-a", **r)
    _call(runtime, principal, "vpc", "CreateVSwitch", VpcId=vpc["VpcId"], ZoneId=zones[1], CidrBlock="172.16.2.0/24",
          VSwitchName="db-b", **r)
    sg = _call(runtime, principal, "ecs", "CreateSecurityGroup", VpcId=vpc["VpcId"], SecurityGroupName="web-sg",
               Description="Web servers", **r)
    for port in ("22/22", "80/80"):
        _call(runtime, principal, "ecs", "AuthorizeSecurityGroup", SecurityGroupId=sg["SecurityGroupId"], IpProtocol="TCP",
              PortRange=port, SourceCidrIp="0.0.0.0/0", **r)
    key = _call(runtime, principal, "ecs", "CreateKeyPair", KeyPairName="ops-key", **r)
    settle(runtime, principal, 3)
    run = _call(runtime, principal, "ecs", "RunInstances", ZoneId=zones[0], InstanceType="ecs.g7.large",
                ImageId="aliyun_3_x64_20G_alibase_20250629.vhd", SecurityGroupId=sg["SecurityGroupId"],
                VSwitchId=web["VSwitchId"], InstanceName="web-01", KeyPairName="ops-key",
                SystemDisk={"Category": "cloud_essd", "Size": 40},
                DataDisk=[{"Category": "cloud_essd", "Size": 100}], InstanceChargeType="PostPaid", **r)
    eip = _call(runtime, principal, "vpc", "AllocateEipAddress", Bandwidth=5, **r)
    settle(runtime, principal, 10)
    instance_id = run["InstanceIdSets"]["InstanceIdSet"][0]
    _call(runtime, principal, "vpc", "AssociateEipAddress", AllocationId=eip["AllocationId"], InstanceId=instance_id,
          InstanceType="EcsInstance", **r)
    settle(runtime, principal, 3)
    return DemoAccount(creds, {"vpc": vpc["VpcId"], "vswitch": web["VSwitchId"], "security_group": sg["SecurityGroupId"],
                               "key_pair": key.get("KeyPairName", "ops-key"), "instance": instance_id,
                               "eip": eip["AllocationId"]})


def _zones(region: str) -> tuple[str, ...]:
    from stratus.core.regions import check_region

    return check_region(region).zones
