"""One example request per API action, for the isolation test.

Placeholders ``{name}`` are replaced by account A's resources (``estate`` from
``tests.estate.build_estate`` plus ``EXTRAS``). A new action needs an entry here, or
``test_every_action_has_an_example`` fails: no action can skip the isolation check.
"""

from __future__ import annotations

from typing import Any

NOT_OWNER_IDS = {"zone"}  # placeholders that are not account A's resources
# ends with a newline so that resolve() does not take the JSON object for a {placeholder}
ISO_POLICY = '{"Version": "1", "Statement": [{"Effect": "Allow", "Action": "vpc:Describe*", "Resource": "*"}]}\n'

EXAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    # --- audit and resource center -----------------------------------------------------
    ("actiontrail", "LookupEvents"): {"ResourceId": "{vpc}"},
    ("resourcecenter", "GetResource"): {"ResourceId": "{instance}"},
    ("resourcecenter", "SearchResources"): {"Keyword": "app"},
    # --- VPC ---------------------------------------------------------------------------
    ("vpc", "CreateVpc"): {"CidrBlock": "10.0.0.0/8", "VpcName": "new-vpc"},
    ("vpc", "DescribeVpcs"): {"VpcId": "{vpc}"},
    ("vpc", "DescribeVpcAttribute"): {"VpcId": "{vpc}"},
    ("vpc", "ModifyVpcAttribute"): {"VpcId": "{vpc}", "Description": "changed"},
    ("vpc", "DeleteVpc"): {"VpcId": "{vpc}"},
    ("vpc", "CreateVSwitch"): {"VpcId": "{vpc}", "ZoneId": "{zone}", "CidrBlock": "192.168.9.0/24"},
    ("vpc", "DescribeVSwitches"): {"VpcId": "{vpc}"},
    ("vpc", "DescribeVSwitchAttributes"): {"VSwitchId": "{vswitch}"},
    ("vpc", "ModifyVSwitchAttribute"): {"VSwitchId": "{vswitch}", "VSwitchName": "renamed"},
    ("vpc", "DeleteVSwitch"): {"VSwitchId": "{vswitch2}"},
    ("vpc", "CreateRouteTable"): {"VpcId": "{vpc}", "RouteTableName": "custom-2"},
    ("vpc", "DescribeRouteTables"): {"VpcId": "{vpc}"},
    ("vpc", "ModifyRouteTableAttribute"): {"RouteTableId": "{route_table}", "RouteTableName": "renamed"},
    ("vpc", "AssociateRouteTable"): {"RouteTableId": "{route_table}", "VSwitchId": "{vswitch}"},
    ("vpc", "UnassociateRouteTable"): {"RouteTableId": "{route_table}", "VSwitchId": "{vswitch2}"},
    ("vpc", "DeleteRouteTable"): {"RouteTableId": "{route_table}"},
    ("vpc", "CreateRouteEntry"): {"RouteTableId": "{route_table}", "DestinationCidrBlock": "10.9.0.0/16",
                                  "NextHopType": "Instance", "NextHopId": "{instance}"},
    ("vpc", "DescribeRouteEntryList"): {"RouteTableId": "{route_table}"},
    ("vpc", "DeleteRouteEntry"): {"RouteEntryId": "{route_entry}"},
    ("vpc", "AllocateEipAddress"): {"Bandwidth": 5},
    ("vpc", "DescribeEipAddresses"): {"AllocationId": "{eip}"},
    ("vpc", "AssociateEipAddress"): {"AllocationId": "{eip}", "InstanceId": "{instance}", "InstanceType": "EcsInstance"},
    ("vpc", "UnassociateEipAddress"): {"AllocationId": "{eip}", "InstanceId": "{instance}"},
    ("vpc", "ModifyEipAddressAttribute"): {"AllocationId": "{eip}", "Bandwidth": 10},
    ("vpc", "ReleaseEipAddress"): {"AllocationId": "{eip}"},
    ("vpc", "CreateNatGateway"): {"VpcId": "{vpc}", "VSwitchId": "{vswitch}", "Name": "nat-2"},
    ("vpc", "DescribeNatGateways"): {"VpcId": "{vpc}"},
    ("vpc", "ModifyNatGatewayAttribute"): {"NatGatewayId": "{nat}", "Name": "renamed"},
    ("vpc", "ModifyNatGatewaySpec"): {"NatGatewayId": "{nat}", "Spec": "Middle"},
    ("vpc", "DeleteNatGateway"): {"NatGatewayId": "{nat}"},
    # --- ECS: regions, types, images, prices -------------------------------------------
    ("ecs", "DescribeRegions"): {},
    ("ecs", "DescribeZones"): {},
    ("ecs", "DescribeInstanceTypes"): {},
    ("ecs", "DescribeAvailableResource"): {"ZoneId": "{zone}"},
    ("ecs", "DescribePrice"): {"InstanceType": "ecs.g7.large"},
    ("ecs", "DescribeImages"): {"ImageId": "{image}"},
    ("ecs", "CreateImage"): {"InstanceId": "{instance}", "ImageName": "img-2"},
    ("ecs", "ModifyImageAttribute"): {"ImageId": "{image}", "ImageName": "renamed"},
    ("ecs", "DeleteImage"): {"ImageId": "{image}"},
    # --- ECS: instances ----------------------------------------------------------------
    ("ecs", "RunInstances"): {"ZoneId": "{zone}", "InstanceType": "ecs.g7.large",
                              "ImageId": "aliyun_3_x64_20G_alibase_20250629.vhd", "VSwitchId": "{vswitch}",
                              "SecurityGroupId": "{security_group}"},
    ("ecs", "DescribeInstances"): {"VpcId": "{vpc}"},
    ("ecs", "DescribeInstanceAttribute"): {"InstanceId": "{instance}"},
    ("ecs", "DescribeInstanceStatus"): {"InstanceIds": ["{instance}"]},
    ("ecs", "StartInstance"): {"InstanceId": "{instance}"},
    ("ecs", "StopInstance"): {"InstanceId": "{instance}"},
    ("ecs", "RebootInstance"): {"InstanceId": "{instance}"},
    ("ecs", "StartInstances"): {"InstanceIds": ["{instance}"]},
    ("ecs", "StopInstances"): {"InstanceIds": ["{instance}"]},
    ("ecs", "RebootInstances"): {"InstanceIds": ["{instance}"]},
    ("ecs", "DeleteInstance"): {"InstanceId": "{instance}", "Force": True},
    ("ecs", "ModifyInstanceAttribute"): {"InstanceId": "{instance}", "InstanceName": "renamed"},
    ("ecs", "ModifyInstanceSpec"): {"InstanceId": "{instance}", "InstanceType": "ecs.g7.xlarge"},
    ("ecs", "DescribeInstanceAutoRenewAttribute"): {"InstanceId": "{instance}"},
    ("ecs", "ModifyInstanceAutoRenewAttribute"): {"InstanceId": "{instance}", "AutoRenew": True},
    ("ecs", "RenewInstance"): {"InstanceId": "{instance}", "Period": 1},
    # --- ECS: key pairs ----------------------------------------------------------------
    ("ecs", "CreateKeyPair"): {"KeyPairName": "another-key"},
    ("ecs", "ImportKeyPair"): {"KeyPairName": "imported",
                               "PublicKeyBody": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test"},
    ("ecs", "DescribeKeyPairs"): {"KeyPairName": "{key_pair}"},
    ("ecs", "AttachKeyPair"): {"KeyPairName": "{key_pair}", "InstanceIds": ["{instance}"]},
    ("ecs", "DetachKeyPair"): {"KeyPairName": "{key_pair}", "InstanceIds": ["{instance}"]},
    ("ecs", "DeleteKeyPairs"): {"KeyPairNames": ["{key_pair}"]},
    # --- ECS: security groups ----------------------------------------------------------
    ("ecs", "CreateSecurityGroup"): {"VpcId": "{vpc}", "SecurityGroupName": "sg-2"},
    ("ecs", "DescribeSecurityGroups"): {"VpcId": "{vpc}"},
    ("ecs", "DescribeSecurityGroupAttribute"): {"SecurityGroupId": "{security_group}"},
    ("ecs", "ModifySecurityGroupAttribute"): {"SecurityGroupId": "{security_group}", "Description": "changed"},
    ("ecs", "DeleteSecurityGroup"): {"SecurityGroupId": "{security_group}"},
    ("ecs", "AuthorizeSecurityGroup"): {"SecurityGroupId": "{security_group}", "IpProtocol": "TCP", "PortRange": "443/443",
                                        "SourceCidrIp": "10.0.0.0/8"},
    ("ecs", "AuthorizeSecurityGroupEgress"): {"SecurityGroupId": "{security_group}", "IpProtocol": "TCP",
                                              "PortRange": "443/443", "DestCidrIp": "10.0.0.0/8"},
    ("ecs", "RevokeSecurityGroup"): {"SecurityGroupId": "{security_group}", "SecurityGroupRuleId": "{rule}"},
    ("ecs", "RevokeSecurityGroupEgress"): {"SecurityGroupId": "{security_group}", "IpProtocol": "TCP",
                                           "PortRange": "8080/8080", "DestCidrIp": "10.0.0.0/8"},
    ("ecs", "ModifySecurityGroupRule"): {"SecurityGroupId": "{security_group}", "SecurityGroupRuleId": "{rule}",
                                         "Description": "ssh"},
    ("ecs", "ModifySecurityGroupEgressRule"): {"SecurityGroupId": "{security_group}", "SecurityGroupRuleId": "{egress_rule}",
                                               "Description": "out"},
    ("ecs", "JoinSecurityGroup"): {"InstanceId": "{instance}", "SecurityGroupId": "{security_group3}"},
    ("ecs", "LeaveSecurityGroup"): {"InstanceId": "{instance}", "SecurityGroupId": "{security_group2}"},
    # --- ECS: disks and snapshots ------------------------------------------------------
    ("ecs", "CreateDisk"): {"ZoneId": "{zone}", "DiskCategory": "cloud_essd", "Size": 20},
    ("ecs", "DescribeDisks"): {"InstanceId": "{instance}"},
    ("ecs", "AttachDisk"): {"DiskId": "{disk}", "InstanceId": "{instance}"},
    ("ecs", "DetachDisk"): {"DiskId": "{attached_disk}", "InstanceId": "{instance}"},
    ("ecs", "ResizeDisk"): {"DiskId": "{disk}", "NewSize": 80},
    ("ecs", "ModifyDiskAttribute"): {"DiskId": "{disk}", "DiskName": "renamed"},
    ("ecs", "DeleteDisk"): {"DiskId": "{disk}"},
    ("ecs", "ResetDisk"): {"DiskId": "{disk}", "SnapshotId": "{snapshot}"},
    ("ecs", "CreateSnapshot"): {"DiskId": "{disk}", "SnapshotName": "snap-2"},
    ("ecs", "DescribeSnapshots"): {"DiskId": "{disk}"},
    ("ecs", "ModifySnapshotAttribute"): {"SnapshotId": "{snapshot}", "SnapshotName": "renamed"},
    ("ecs", "DeleteSnapshot"): {"SnapshotId": "{snapshot}"},
    # --- RAM: A's user "ops" and custom policies come from EXTRAS (names, not resource ids) ----
    ("ram", "CreatePolicy"): {"PolicyName": "iso-new", "PolicyDocument": ISO_POLICY},
    ("ram", "GetPolicy"): {"PolicyName": "iso-policy", "PolicyType": "Custom"},
    ("ram", "DeletePolicy"): {"PolicyName": "iso-unattached"},
    ("ram", "ListPolicies"): {"PolicyType": "Custom"},
    ("ram", "AttachPolicyToUser"): {"PolicyType": "Custom", "PolicyName": "iso-policy", "UserName": "ops"},
    ("ram", "DetachPolicyFromUser"): {"PolicyType": "System", "PolicyName": "ReadOnlyAccess", "UserName": "ops"},
    ("ram", "ListPoliciesForUser"): {"UserName": "ops"},
}


def EXTRAS(cloud: Any, client: Any, estate: dict[str, str]) -> dict[str, str]:  # noqa: N802  (a table of builders)
    """Build A's resources that the base estate lacks; returns their placeholders."""
    extra: dict[str, str] = {}
    extra["route_table"] = client.call("vpc", "CreateRouteTable", VpcId=estate["vpc"], RouteTableName="custom")["RouteTableId"]
    client.call("vpc", "AssociateRouteTable", RouteTableId=extra["route_table"], VSwitchId=estate["vswitch2"])
    extra["route_entry"] = client.call("vpc", "CreateRouteEntry", RouteTableId=extra["route_table"],
                                       DestinationCidrBlock="10.8.0.0/16", NextHopType="Instance",
                                       NextHopId=estate["instance"])["RouteEntryId"]
    extra["nat"] = client.call("vpc", "CreateNatGateway", VpcId=estate["vpc"], VSwitchId=estate["vswitch"], Name="nat")["NatGatewayId"]
    extra["snapshot"] = client.call("ecs", "CreateSnapshot", DiskId=estate["disk"], SnapshotName="snap")["SnapshotId"]
    extra["image"] = client.call("ecs", "CreateImage", InstanceId=estate["instance"], ImageName="img")["ImageId"]
    extra["security_group2"] = client.call("ecs", "CreateSecurityGroup", VpcId=estate["vpc"],
                                           SecurityGroupName="sg-b")["SecurityGroupId"]
    client.call("ecs", "JoinSecurityGroup", InstanceId=estate["instance"], SecurityGroupId=extra["security_group2"])
    extra["security_group3"] = client.call("ecs", "CreateSecurityGroup", VpcId=estate["vpc"],
                                           SecurityGroupName="sg-c")["SecurityGroupId"]
    extra["attached_disk"] = client.call("ecs", "CreateDisk", ZoneId=estate["zone"], DiskCategory="cloud_essd", Size=30)["DiskId"]
    cloud.advance(5)  # Creating -> Available
    client.call("ecs", "AttachDisk", DiskId=extra["attached_disk"], InstanceId=estate["instance"])
    extra["egress_rule"] = client.call("ecs", "AuthorizeSecurityGroupEgress", SecurityGroupId=estate["security_group"],
                                       IpProtocol="TCP", PortRange="8080/8080", DestCidrIp="10.0.0.0/8")["SecurityGroupRuleId"]
    rules = client.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=estate["security_group"], Direction="ingress")
    extra["rule"] = rules["Permissions"][0]["SecurityGroupRuleId"]
    account_id = client.call("actiontrail", "LookupEvents", PageSize=1)["Events"][0]["userIdentity"]["accountId"]
    cloud.admin.create_user(account_id, "ops", password="0ps-Passw0rd!")
    for name in ("iso-policy", "iso-unattached"):
        client.call("ram", "CreatePolicy", PolicyName=name, PolicyDocument=ISO_POLICY)
    client.call("ram", "AttachPolicyToUser", PolicyType="System", PolicyName="ReadOnlyAccess", UserName="ops")
    return extra


def resolve(example: dict[str, Any], estate: dict[str, str]) -> tuple[dict[str, Any], bool]:
    """Fill placeholders; also say whether any of A's resources are referenced."""
    uses_owner = False

    def fill(value: Any) -> Any:
        nonlocal uses_owner
        if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
            name = value[1:-1]
            if name not in NOT_OWNER_IDS:
                uses_owner = True
            return estate[name]
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    return fill(example), uses_owner
