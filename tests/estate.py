"""Build a small but complete estate in an account through the public API (used by several tests)."""

from __future__ import annotations

from typing import Any

from stratus.sdk import Client

IMAGE = "aliyun_3_x64_20G_alibase_20250629.vhd"


def settle(cloud: Any, client: Client, seconds: float = 15) -> None:
    cloud.advance(seconds)
    client.call("resourcecenter", "SearchResources", Keyword="settle")  # any call applies due transitions


def build_estate(cloud: Any, client: Client, prefix: str = "app") -> dict[str, str]:
    """VPC, two vSwitches, a security group with a rule, a key pair, a running instance, a disk, an EIP."""
    vpc = client.call("vpc", "CreateVpc", VpcName=f"{prefix}-vpc", CidrBlock="192.168.0.0/16")["VpcId"]
    settle(cloud, client, 3)
    zone = "cn-hangzhou-h"
    vsw = client.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId=zone, CidrBlock="192.168.1.0/24", VSwitchName=f"{prefix}-a")["VSwitchId"]
    vsw2 = client.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-i", CidrBlock="192.168.2.0/24",
                       VSwitchName=f"{prefix}-b")["VSwitchId"]
    sg = client.call("ecs", "CreateSecurityGroup", VpcId=vpc, SecurityGroupName=f"{prefix}-sg")["SecurityGroupId"]
    client.call("ecs", "AuthorizeSecurityGroup", SecurityGroupId=sg, IpProtocol="TCP", PortRange="22/22", SourceCidrIp="0.0.0.0/0")
    client.call("ecs", "CreateKeyPair", KeyPairName=f"{prefix}-key")
    settle(cloud, client, 3)
    run = client.call("ecs", "RunInstances", ZoneId=zone, InstanceType="ecs.g7.large", ImageId=IMAGE, SecurityGroupId=sg,
                      VSwitchId=vsw, InstanceName=f"{prefix}-web", InstanceChargeType="PostPaid",
                      SystemDisk={"Category": "cloud_essd", "Size": 40})
    instance = run["InstanceIdSets"]["InstanceIdSet"][0]
    disk = client.call("ecs", "CreateDisk", ZoneId=zone, DiskCategory="cloud_essd", Size=50, DiskName=f"{prefix}-data")["DiskId"]
    eip = client.call("vpc", "AllocateEipAddress", Bandwidth=5)["AllocationId"]
    settle(cloud, client, 15)
    return {"vpc": vpc, "vswitch": vsw, "vswitch2": vsw2, "security_group": sg, "instance": instance, "disk": disk,
            "eip": eip, "zone": zone, "key_pair": f"{prefix}-key"}
