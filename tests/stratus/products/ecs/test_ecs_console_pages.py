"""ECS console pages rendered in-process (fast): every page answers, and each release shows its own console."""

from __future__ import annotations

from typing import Any

import pytest

from stratus.sdk import console_sign_in
from tests.stratus.products.ecs.test_ecs_instances import LINUX, ZONE


def signed_in(cloud: Any, tenant: Any) -> Any:
    response = console_sign_in(cloud.http, tenant.creds["login_name"], tenant.creds["password"])
    assert response.status_code == 303
    return cloud.http


@pytest.fixture
def instance(cloud: Any, tenant: Any) -> str:
    sdk = tenant.sdk
    vpc = sdk.call("vpc", "CreateVpc", CidrBlock="192.168.0.0/16", VpcName="prod")["VpcId"]
    cloud.advance(5)
    vsw = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId=ZONE, CidrBlock="192.168.1.0/24")["VSwitchId"]
    cloud.advance(5)
    sg = sdk.call("ecs", "CreateSecurityGroup", VpcId=vpc, SecurityGroupName="web")["SecurityGroupId"]
    out = sdk.call("ecs", "RunInstances", InstanceType="ecs.g7.large", ImageId=LINUX, VSwitchId=vsw, SecurityGroupId=sg,
                   InstanceName="web-1", InstanceChargeType="PrePaid", Period=1, AutoRenew=True)
    cloud.advance(10)
    return out["InstanceIdSets"]["InstanceIdSet"][0]


def test_every_page_renders(cloud: Any, tenant: Any, instance: str) -> None:
    http = signed_in(cloud, tenant)
    tenant.sdk.call("ecs", "CreateKeyPair", KeyPairName="deploy")
    for path in ("/ecs", "/ecs/instances", f"/ecs/instances/{instance}", "/ecs/instances/create", "/ecs/images",
                 "/ecs/images?owner=system", "/ecs/key-pairs", "/ecs/instances?q=web&field=name&status=Running&sort=name&order=asc",
                 "/ecs/instances?q=192.168&field=ip", f"/ecs/instances?q={instance}&field=id"):
        response = http.get(path)
        assert response.status_code == 200, path
        assert "web-1" in response.text or path.startswith(("/ecs/images", "/ecs/key-pairs", "/ecs/instances/create"))
    detail = http.get(f"/ecs/instances/{instance}").text
    assert "Subscription" in detail and "Enabled (1 month(s) each time)" in detail
    assert "No monitoring data yet" in detail and "RunInstances" in detail
    assert "Subscription instances are released automatically" in detail  # Release is disabled with its reason
    assert "deploy" in http.get("/ecs/key-pairs").text
    assert "Windows Server 2022 Datacenter" in http.get("/ecs/images?owner=system").text
    assert http.get("/ecs/instances/i-doesnotexist").status_code == 404


def test_release_switches_change_the_pages(cloud: Any, tenant: Any) -> None:
    http = signed_in(cloud, tenant)
    base_list, base_wizard = http.get("/ecs/instances").text, http.get("/ecs/instances/create").text
    assert "Batch Modify" in base_list and "Instances &amp; Images" in base_list
    assert base_wizard.index("create-instance-step-networking") < base_wizard.index("create-instance-step-system")
    assert 'value="later"' in base_wizard and "Create Order" in base_wizard
    cloud.admin.set_release(tenant.account_id, "2026.09")
    new_list, new_wizard = http.get("/ecs/instances").text, http.get("/ecs/instances/create").text
    assert "Batch Modify" not in new_list and "Create ECS Instance" in new_list and "Instances &amp; Images" not in new_list
    assert new_wizard.index("create-instance-step-system") < new_wizard.index("create-instance-step-networking")
    assert 'value="later"' not in new_wizard and "Create Instance</span>" in new_wizard
    assert '<option value="cloud_essd" selected>' in new_wizard
