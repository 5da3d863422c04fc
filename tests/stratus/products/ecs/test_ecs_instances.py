"""ECS instance API: RunInstances validation, the state machine on the clock, billing, quotas, filters."""

from __future__ import annotations

from typing import Any

import pytest

from stratus.core.identity import Account
from stratus.sdk import StratusError

LINUX = "aliyun_3_x64_20G_alibase_20250629.vhd"
WINDOWS = "win2022_21H2_x64_dtc_en-us_40G_alibase_20250610.vhd"
ZONE = "cn-hangzhou-h"


@pytest.fixture
def net(cloud: Any, tenant: Any) -> dict[str, str]:
    """A VPC with a vSwitch in each of two zones and a security group, made through the real API."""
    sdk = tenant.sdk
    vpc = sdk.call("vpc", "CreateVpc", CidrBlock="192.168.0.0/16", VpcName="prod")["VpcId"]
    cloud.advance(5)
    vsw = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId=ZONE, CidrBlock="192.168.1.0/24")["VSwitchId"]
    vsw_i = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-i", CidrBlock="192.168.2.0/29")["VSwitchId"]
    cloud.advance(5)
    sg = sdk.call("ecs", "CreateSecurityGroup", VpcId=vpc, SecurityGroupName="web")["SecurityGroupId"]
    return {"vpc": vpc, "vsw": vsw, "vsw_i": vsw_i, "sg": sg}


def run(tenant: Any, net: dict[str, str], **extra: Any) -> list[str]:
    params = {"ZoneId": ZONE, "InstanceType": "ecs.g7.large", "ImageId": LINUX, "VSwitchId": net["vsw"],
              "SecurityGroupId": net["sg"], "Password": "Stratus#2026", **extra}
    return tenant.sdk.call("ecs", "RunInstances", **params)["InstanceIdSets"]["InstanceIdSet"]


def status(tenant: Any, instance_id: str) -> str:
    return tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=instance_id)["Status"]


def balance_of(cloud: Any, tenant: Any) -> int:
    with cloud.runtime.session() as db:
        return db.get(Account, tenant.account_id).balance_cents


def code_of(call: Any) -> str:
    with pytest.raises(StratusError) as info:
        call()
    return info.value.code


def test_state_machine_runs_on_the_clock(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    assert status(tenant, iid) == "Pending"
    cloud.advance(3)
    assert status(tenant, iid) == "Starting"
    cloud.advance(5)
    assert status(tenant, iid) == "Running"

    tenant.sdk.call("ecs", "StopInstance", InstanceId=iid)
    assert status(tenant, iid) == "Stopping"
    cloud.advance(5)
    assert status(tenant, iid) == "Stopped"
    tenant.sdk.call("ecs", "StartInstance", InstanceId=iid)
    assert status(tenant, iid) == "Starting"
    cloud.advance(5)
    assert status(tenant, iid) == "Running"

    tenant.sdk.call("ecs", "RebootInstance", InstanceId=iid)
    assert status(tenant, iid) == "Rebooting"
    cloud.advance(3)
    assert status(tenant, iid) == "Starting"
    cloud.advance(5)
    assert status(tenant, iid) == "Running"

    assert code_of(lambda: tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid)) == "IncorrectStatus"
    tenant.sdk.call("ecs", "StopInstance", InstanceId=iid)
    cloud.advance(5)
    tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid)
    assert code_of(lambda: status(tenant, iid)) == "NotFound"
    assert tenant.sdk.call("ecs", "DescribeDisks", InstanceId=iid)["TotalCount"] == 0


def test_incorrect_status_transitions(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    sdk = tenant.sdk
    assert code_of(lambda: sdk.call("ecs", "StopInstance", InstanceId=iid)) == "IncorrectStatus"  # Pending
    cloud.advance(8)
    assert code_of(lambda: sdk.call("ecs", "StartInstance", InstanceId=iid)) == "IncorrectStatus"  # Running
    sdk.call("ecs", "StopInstance", InstanceId=iid)
    assert code_of(lambda: sdk.call("ecs", "RebootInstance", InstanceId=iid)) == "IncorrectStatus"  # Stopping
    assert code_of(lambda: sdk.call("ecs", "DeleteInstance", InstanceId=iid, Force=True)) == "IncorrectStatus"


def test_force_delete_of_a_running_instance_and_deletion_protection(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net, DeletionProtection=True)
    cloud.advance(8)
    assert code_of(lambda: tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid, Force=True)) == "Forbidden"
    tenant.sdk.call("ecs", "ModifyInstanceAttribute", InstanceId=iid, DeletionProtection=False)
    tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid, Force=True)
    assert tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 0


def test_delete_refused_while_an_eip_is_associated(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    cloud.advance(8)
    eip = tenant.sdk.call("vpc", "AllocateEipAddress")["AllocationId"]
    tenant.sdk.call("vpc", "AssociateEipAddress", AllocationId=eip, InstanceId=iid)
    cloud.advance(5)
    assert tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)["EipAddress"]["AllocationId"] == eip
    assert code_of(lambda: tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid, Force=True)) == "DependencyViolation"


def test_modify_spec_only_when_stopped_and_sold_in_zone(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    cloud.advance(8)
    sdk = tenant.sdk
    assert code_of(lambda: sdk.call("ecs", "ModifyInstanceSpec", InstanceId=iid, InstanceType="ecs.c7.xlarge")) == "IncorrectStatus"
    sdk.call("ecs", "StopInstance", InstanceId=iid)
    cloud.advance(5)
    # ecs.r7 is only stocked in the first two zones of a region; cn-hangzhou-h is the first
    assert code_of(lambda: sdk.call("ecs", "ModifyInstanceSpec", InstanceId=iid, InstanceType="ecs.x9.huge")) == "InvalidParameter.InstanceType"
    sdk.call("ecs", "ModifyInstanceSpec", InstanceId=iid, InstanceType="ecs.c7.xlarge")
    view = sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)
    assert (view["InstanceType"], view["Cpu"], view["Memory"]) == ("ecs.c7.xlarge", 4, 8192)


def test_instance_type_must_be_sold_in_the_zone(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    # cn-hangzhou-j (the last zone) does not stock the older ecs.g6
    vsw = tenant.sdk.call("vpc", "CreateVSwitch", VpcId=net["vpc"], ZoneId="cn-hangzhou-j", CidrBlock="192.168.3.0/24")["VSwitchId"]
    assert code_of(lambda: run(tenant, {**net, "vsw": vsw}, ZoneId="cn-hangzhou-j")) == "IncorrectStatus"  # vSwitch Pending
    cloud.advance(5)
    assert code_of(lambda: run(tenant, {**net, "vsw": vsw}, ZoneId="cn-hangzhou-j", InstanceType="ecs.g6.large")) \
        == "InvalidParameter.InstanceType"
    assert code_of(lambda: run(tenant, {**net, "vsw": vsw}, ZoneId="cn-hangzhou-j", InstanceType="ecs.g7.huge")) \
        == "InvalidParameter.InstanceType"
    assert run(tenant, {**net, "vsw": vsw}, ZoneId="cn-hangzhou-j", InstanceType="ecs.t6-c1m1.large")


def test_zone_and_vswitch_must_match(tenant: Any, net: dict[str, str]) -> None:
    assert code_of(lambda: run(tenant, net, ZoneId="cn-hangzhou-i")) == "InvalidParameter.VSwitchId"


def test_security_group_must_be_in_the_vswitch_vpc(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    other = tenant.sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16")["VpcId"]
    cloud.advance(5)
    sg = tenant.sdk.call("ecs", "CreateSecurityGroup", VpcId=other)["SecurityGroupId"]
    assert code_of(lambda: run(tenant, {**net, "sg": sg})) == "InvalidParameter.SecurityGroupId"
    assert code_of(lambda: run(tenant, {**net, "sg": ""}, SecurityGroupId=None)) == "MissingParameter"


def test_parameter_validation(tenant: Any, net: dict[str, str]) -> None:
    assert code_of(lambda: run(tenant, net, Password="short1A")) == "InvalidParameter.Password"
    assert code_of(lambda: run(tenant, net, Password="alllowercase123")) == "InvalidParameter.Password"
    assert code_of(lambda: run(tenant, net, ImageId="ubuntu_9_x64.vhd")) == "NotFound"
    assert code_of(lambda: run(tenant, net, SystemDisk={"Category": "cloud_essd", "Size": 10})) == "InvalidParameter.SystemDisk.Size"
    assert code_of(lambda: run(tenant, net, HostName="-bad-")) == "InvalidParameter.HostName"
    assert code_of(lambda: run(tenant, net, Password=None, ImageId=WINDOWS, KeyPairName="k")) == "InvalidParameter.KeyPairName"
    assert code_of(lambda: run(tenant, net, InstanceChargeType="PrePaid")) == "MissingParameter"
    assert code_of(lambda: run(tenant, net, Amount=101)) == "InvalidParameter.Amount"


def test_private_ips_are_allocated_in_order_without_duplicates(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    ids = run(tenant, net, Amount=3)
    first = tenant.sdk.call("ecs", "DescribeInstances", InstanceIds=ids, SortBy="InstanceId", SortOrder="asc")["Instances"]
    ips = sorted(i["VpcAttributes"]["PrivateIpAddress"][0] for i in first)
    assert ips == ["192.168.1.1", "192.168.1.2", "192.168.1.3"]
    (pinned,) = run(tenant, net, PrivateIpAddress="192.168.1.200")
    assert code_of(lambda: run(tenant, net, PrivateIpAddress="192.168.1.200")) == "InvalidParameter.PrivateIpAddress"
    assert code_of(lambda: run(tenant, net, PrivateIpAddress="192.168.1.255")) == "InvalidParameter.PrivateIpAddress"
    # a /29 has 8 addresses, 4 reserved: a fifth instance does not fit
    run(tenant, {**net, "vsw": net["vsw_i"]}, ZoneId="cn-hangzhou-i", Amount=4)
    assert code_of(lambda: run(tenant, {**net, "vsw": net["vsw_i"]}, ZoneId="cn-hangzhou-i")) == "InvalidParameter.VSwitchId"
    assert pinned


def test_amount_is_limited_by_the_instance_quota(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.instances": 3})
    run(tenant, net, Amount=2)
    assert code_of(lambda: run(tenant, net, Amount=2)) == "QuotaExceeded"
    run(tenant, net, Amount=1)
    assert tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 3


def test_subscription_is_charged_at_once(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    price = tenant.sdk.call("ecs", "DescribePrice", ZoneId=ZONE, InstanceType="ecs.g7.large", InstanceChargeType="PrePaid",
                            Period=3, PeriodUnit="Month", SystemDisk={"Category": "cloud_essd", "Size": 40})
    cents = round(price["PriceInfo"]["Price"]["TradePrice"] * 100)
    assert cents > 0
    cloud.admin.set_balance(tenant.account_id, cents - 1)
    params = {"InstanceChargeType": "PrePaid", "Period": 3, "PeriodUnit": "Month",
              "SystemDisk": {"Category": "cloud_essd", "Size": 40}}
    assert code_of(lambda: run(tenant, net, **params)) == "InsufficientBalance"
    assert tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 0
    cloud.admin.set_balance(tenant.account_id, cents + 500)
    (iid,) = run(tenant, net, AutoRenew=True, **params)
    assert balance_of(cloud, tenant) == 500  # exactly the quoted price was charged
    view = tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)
    assert view["InstanceChargeType"] == "PrePaid" and view["ExpiredTime"].startswith("2026-04-05")
    cloud.advance(8)
    tenant.sdk.call("ecs", "StopInstance", InstanceId=iid)
    cloud.advance(5)
    assert code_of(lambda: tenant.sdk.call("ecs", "DeleteInstance", InstanceId=iid)) == "IncorrectStatus"
    renew = tenant.sdk.call("ecs", "DescribeInstanceAutoRenewAttribute", InstanceId=iid)["InstanceRenewAttributes"][0]
    assert renew["AutoRenewEnabled"] is True and renew["RenewalStatus"] == "AutoRenewal"
    tenant.sdk.call("ecs", "ModifyInstanceAutoRenewAttribute", InstanceId=iid, AutoRenew=False)
    renew = tenant.sdk.call("ecs", "DescribeInstanceAutoRenewAttribute", InstanceId=iid)["InstanceRenewAttributes"][0]
    assert renew["RenewalStatus"] == "Normal"
    assert code_of(lambda: tenant.sdk.call("ecs", "RenewInstance", InstanceId=iid, Period=1)) == "InsufficientBalance"
    cloud.admin.set_balance(tenant.account_id, 1_000_000)
    out = tenant.sdk.call("ecs", "RenewInstance", InstanceId=iid, Period=1)
    assert out["ExpiredTime"].startswith("2026-05-05")


def test_pay_as_you_go_needs_a_positive_balance(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    cloud.admin.set_balance(tenant.account_id, 0)
    assert code_of(lambda: run(tenant, net)) == "InsufficientBalance"


def test_client_token_makes_run_instances_idempotent(tenant: Any, net: dict[str, str]) -> None:
    first = run(tenant, net, ClientToken="launch-1")
    again = run(tenant, net, ClientToken="launch-1")
    assert first == again
    assert tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 1
    assert code_of(lambda: run(tenant, net, ClientToken="launch-1", InstanceName="other")) == "Idempotency.Conflict"


def test_dry_run_validates_without_creating(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    assert code_of(lambda: run(tenant, net, DryRun=True)) == "DryRunOperation"
    assert code_of(lambda: run(tenant, net, DryRun=True, Password="weak")) == "InvalidParameter.Password"
    assert tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 0
    assert tenant.sdk.call("ecs", "DescribeDisks")["TotalCount"] == 0


def test_service_events_are_in_the_trail(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    cloud.advance(10)
    status(tenant, iid)  # applies the transitions
    cloud.advance(60)
    events = tenant.sdk.call("actiontrail", "LookupEvents", ResourceId=iid, Actor="system")["Events"]
    changes = [(e["responseElements"]["PreviousStatus"], e["responseElements"]["Status"]) for e in events
               if e["eventName"] == "Instance:StateChange"]
    assert sorted(changes) == [("Pending", "Starting"), ("Starting", "Running")]
    runs = tenant.sdk.call("actiontrail", "LookupEvents", EventName="RunInstances")["Events"]
    assert runs and runs[0]["requestParameters"]["Password"] == "******"


def test_describe_instances_filters_sorting_and_pages(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    sdk = tenant.sdk
    web = run(tenant, net, InstanceName="web-", UniqueSuffix=True, Amount=3, Tag=[{"Key": "env", "Value": "prod"}])
    (db,) = run(tenant, net, InstanceName="db-main", InstanceType="ecs.r7.large", InternetMaxBandwidthOut=5)
    (other,) = run(tenant, {**net, "vsw": net["vsw_i"]}, ZoneId="cn-hangzhou-i", InstanceName="batch")
    cloud.advance(8)
    sdk.call("ecs", "StopInstance", InstanceId=db)
    cloud.advance(5)

    def names(**filters: Any) -> list[str]:
        return [i["InstanceName"] for i in sdk.call("ecs", "DescribeInstances", PageSize=50, **filters)["Instances"]]

    assert sorted(names(InstanceName="web-*")) == ["web-001", "web-002", "web-003"]
    assert names(InstanceName="web") == []
    assert names(Status="Stopped") == ["db-main"]
    assert names(ZoneId="cn-hangzhou-i") == ["batch"]
    assert names(InstanceType="ecs.r7.large") == ["db-main"]
    assert names(VSwitchId=net["vsw_i"]) == ["batch"]
    assert len(names(VpcId=net["vpc"])) == 5
    assert len(names(SecurityGroupId=net["sg"])) == 5
    assert names(InstanceIds=f'["{db}", "{other}"]', SortBy="InstanceName", SortOrder="asc") == ["batch", "db-main"]
    assert sorted(names(Tag=[{"Key": "env", "Value": "prod"}])) == ["web-001", "web-002", "web-003"]
    assert names(ChargeType="PrePaid") == []
    public = sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=db)["PublicIpAddress"][0]
    assert names(Keyword=public) == ["db-main"]
    assert names(SortBy="InstanceName", SortOrder="asc") == ["batch", "db-main", "web-001", "web-002", "web-003"]
    pages = [sdk.call("ecs", "DescribeInstances", PageSize=2, PageNumber=n, SortBy="InstanceName", SortOrder="desc")
             for n in (1, 2, 3)]
    assert [len(p["Instances"]) for p in pages] == [2, 2, 1]
    assert pages[0]["TotalCount"] == 5 and pages[2]["Instances"][0]["InstanceName"] == "batch"
    statuses = sdk.call("ecs", "DescribeInstanceStatus", InstanceIds=[db, web[0]])["InstanceStatuses"]
    assert {s["InstanceId"]: s["Status"] for s in statuses} == {db: "Stopped", web[0]: "Running"}


def test_batch_start_stop_reboot(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    ids = run(tenant, net, Amount=2)
    cloud.advance(8)
    sdk = tenant.sdk
    out = sdk.call("ecs", "StopInstances", InstanceIds=ids)["InstanceResponses"]
    assert {r["CurrentStatus"] for r in out} == {"Stopping"}
    cloud.advance(5)
    sdk.call("ecs", "StartInstance", InstanceId=ids[0])
    # all together: one instance not Stopped fails the whole call and changes nothing
    assert code_of(lambda: sdk.call("ecs", "StartInstances", InstanceIds=ids)) == "IncorrectStatus"
    assert status(tenant, ids[1]) == "Stopped"
    out = sdk.call("ecs", "StartInstances", InstanceIds=ids, BatchOptimization="SuccessFirst")["InstanceResponses"]
    assert [r["Code"] for r in out] == ["IncorrectStatus", "200"]
    cloud.advance(5)
    sdk.call("ecs", "RebootInstances", InstanceIds=ids)
    assert {status(tenant, i) for i in ids} == {"Rebooting"}


def test_modify_instance_attribute(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    cloud.advance(8)
    sdk = tenant.sdk
    sdk.call("ecs", "ModifyInstanceAttribute", InstanceId=iid, InstanceName="renamed", Description="api server",
             Password="New#Passw0rd")
    assert code_of(lambda: sdk.call("ecs", "ModifyInstanceAttribute", InstanceId=iid, HostName="web01")) == "IncorrectStatus"
    assert code_of(lambda: sdk.call("ecs", "ModifyInstanceAttribute", InstanceId=iid, InstanceName="1bad")) == "InvalidParameter.InstanceName"
    sdk.call("ecs", "StopInstance", InstanceId=iid)
    cloud.advance(5)
    sdk.call("ecs", "ModifyInstanceAttribute", InstanceId=iid, HostName="web01")
    view = sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)
    assert (view["InstanceName"], view["Description"], view["HostName"], view["Credential"]) == \
        ("renamed", "api server", "web01", "Password")
    assert "Password" not in view


def test_other_tenants_cannot_see_or_touch_instances(cloud: Any, tenant: Any, other_tenant: Any, net: dict[str, str]) -> None:
    (iid,) = run(tenant, net)
    assert other_tenant.sdk.call("ecs", "DescribeInstances")["TotalCount"] == 0
    assert code_of(lambda: other_tenant.sdk.call("ecs", "StopInstance", InstanceId=iid)) == "NotFound"


def test_dependents_block_vswitch_and_vpc_deletion(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    run(tenant, net)
    assert code_of(lambda: tenant.sdk.call("vpc", "DeleteVSwitch", VSwitchId=net["vsw"])) == "DependencyViolation"


# --- key pairs and images ------------------------------------------------------------------

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGnH0aE2wJ4V3e2b1x0cV5r2m9Yl3e5x7oNq0b3W1k2c user@laptop"


def test_key_pair_lifecycle(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    sdk = tenant.sdk
    created = sdk.call("ecs", "CreateKeyPair", KeyPairName="deploy")
    assert created["PrivateKeyBody"].startswith("-----BEGIN RSA PRIVATE KEY-----\nMIIE")
    assert len(created["KeyPairFingerPrint"].split(":")) == 16
    imported = sdk.call("ecs", "ImportKeyPair", KeyPairName="laptop", PublicKeyBody=ED25519)
    assert imported["KeyPairFingerPrint"] != created["KeyPairFingerPrint"]
    assert code_of(lambda: sdk.call("ecs", "ImportKeyPair", KeyPairName="bad", PublicKeyBody="ssh-rsa notbase64!")) \
        == "InvalidParameter.PublicKeyBody"
    assert code_of(lambda: sdk.call("ecs", "CreateKeyPair", KeyPairName="deploy")) == "InvalidParameter.KeyPairName"
    listed = sdk.call("ecs", "DescribeKeyPairs", KeyPairName="de*")["KeyPairs"]
    assert [k["KeyPairName"] for k in listed] == ["deploy"] and "PrivateKeyBody" not in listed[0]

    (iid,) = run(tenant, net, Password=None, KeyPairName="deploy")
    assert sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)["KeyPairName"] == "deploy"
    assert code_of(lambda: sdk.call("ecs", "DeleteKeyPairs", KeyPairNames='["deploy"]')) == "DependencyViolation"
    cloud.advance(8)
    out = sdk.call("ecs", "DetachKeyPair", KeyPairName="deploy", InstanceIds=[iid])
    assert out["FailCount"] == 0
    sdk.call("ecs", "DeleteKeyPairs", KeyPairNames='["deploy", "laptop"]')
    assert sdk.call("ecs", "DescribeKeyPairs")["TotalCount"] == 0
    # the private key never reaches the audit trail
    cloud.advance(60)
    event = sdk.call("actiontrail", "LookupEvents", EventName="CreateKeyPair", ErrorCode="none")["Events"][0]
    assert event["responseElements"]["PrivateKeyBody"] == "******"


def test_key_pair_quota(cloud: Any, tenant: Any) -> None:
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.key_pairs": 1})
    tenant.sdk.call("ecs", "CreateKeyPair", KeyPairName="one")
    assert code_of(lambda: tenant.sdk.call("ecs", "CreateKeyPair", KeyPairName="two")) == "QuotaExceeded"


def test_custom_image_lifecycle(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    sdk = tenant.sdk
    (iid,) = run(tenant, net, SystemDisk={"Category": "cloud_essd", "Size": 60})
    assert code_of(lambda: sdk.call("ecs", "CreateImage", InstanceId=iid, ImageName="golden")) == "IncorrectStatus"
    cloud.advance(8)
    image = sdk.call("ecs", "CreateImage", InstanceId=iid, ImageName="golden")["ImageId"]
    view = sdk.call("ecs", "DescribeImages", ImageOwnerAlias="self")["Images"][0]
    assert (view["ImageId"], view["Status"], view["Size"], view["OSType"]) == (image, "Creating", 60, "linux")
    assert code_of(lambda: run(tenant, net, ImageId=image)) == "IncorrectStatus"
    cloud.advance(8)
    assert sdk.call("ecs", "DescribeImages", ImageId=image)["Images"][0]["Status"] == "Available"
    too_small = {"Category": "cloud_essd", "Size": 50}
    assert code_of(lambda: run(tenant, net, ImageId=image, SystemDisk=too_small)) == "InvalidParameter.SystemDisk.Size"
    (from_image,) = run(tenant, net, ImageId=image)  # the system disk defaults to the image's size
    assert sdk.call("ecs", "DescribeDisks", InstanceId=from_image, DiskType="system")["Disks"][0]["Size"] == 60
    assert sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=from_image)["OSName"].startswith("Alibaba Cloud Linux")
    public = sdk.call("ecs", "DescribeImages", ImageOwnerAlias="system", OSType="windows")["Images"]
    assert [i["ImageId"] for i in public] == [WINDOWS]
    assert code_of(lambda: sdk.call("ecs", "DeleteImage", ImageId=LINUX)) == "Forbidden"
    sdk.call("ecs", "DeleteImage", ImageId=image)
    assert sdk.call("ecs", "DescribeImages", ImageOwnerAlias="self")["TotalCount"] == 0
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.images": 0})
    assert code_of(lambda: sdk.call("ecs", "CreateImage", InstanceId=iid)) == "QuotaExceeded"


def test_catalog_actions(tenant: Any) -> None:
    sdk = tenant.sdk
    zones = {z["ZoneId"]: z for z in sdk.call("ecs", "DescribeZones")["Zones"]}
    assert set(zones) == {"cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j"}
    assert "ecs.g6.large" in zones["cn-hangzhou-h"]["AvailableInstanceTypes"]
    assert "ecs.g6.large" not in zones["cn-hangzhou-j"]["AvailableInstanceTypes"]
    types = sdk.call("ecs", "DescribeInstanceTypes", InstanceTypeFamily="ecs.t6")["InstanceTypes"]
    assert {t["InstanceTypeId"] for t in types} >= {"ecs.t6-c1m1.large"}
    assert all(t["InstanceFamilyLevel"] == "CreditEntryLevel" for t in types)
    available = sdk.call("ecs", "DescribeAvailableResource", ZoneId="cn-hangzhou-j", DestinationResource="InstanceType")
    values = [r["Value"] for r in available["AvailableZones"][0]["AvailableResources"][0]["SupportedResources"]]
    assert "ecs.g7.large" in values and "ecs.r7.large" not in values
    assert len(sdk.call("ecs", "DescribeRegions")["Regions"]) >= 5


def test_flat_dotted_parameters_and_economical_stop(cloud: Any, tenant: Any, net: dict[str, str]) -> None:
    """RPC-style names (SystemDisk.Size, Tag.1.Key) work like nested objects; StopCharging frees the public IP."""
    params = {"ZoneId": ZONE, "InstanceType": "ecs.g7.large", "ImageId": LINUX, "VSwitchId": net["vsw"],
              "SecurityGroupId": net["sg"], "SystemDisk.Category": "cloud_ssd", "SystemDisk.Size": 50,
              "Tag.1.Key": "team", "Tag.1.Value": "web", "InternetMaxBandwidthOut": 10}
    (iid,) = tenant.sdk.call("ecs", "RunInstances", **params)["InstanceIdSets"]["InstanceIdSet"]
    disk = tenant.sdk.call("ecs", "DescribeDisks", InstanceId=iid, DiskType="system")["Disks"][0]
    assert (disk["Category"], disk["Size"]) == ("cloud_ssd", 50)
    view = tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)
    assert view["Tags"] == [{"TagKey": "team", "TagValue": "web"}] and view["Credential"] == "None"
    public = view["PublicIpAddress"]
    assert public and public[0].startswith("47.")
    cloud.advance(8)
    tenant.sdk.call("ecs", "StopInstance", InstanceId=iid, StoppedMode="StopCharging")
    cloud.advance(5)
    view = tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)
    assert (view["StoppedMode"], view["PublicIpAddress"]) == ("StopCharging", [])
    tenant.sdk.call("ecs", "StartInstance", InstanceId=iid)
    assert tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=iid)["PublicIpAddress"] == public
