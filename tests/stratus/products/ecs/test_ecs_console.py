"""The ECS console in Chromium: buy an instance through the wizard, stop and release it; release drift."""

from __future__ import annotations

import re
from typing import Any

import pytest

from stratus.sdk import Client
from tests.conftest import sdk_for, sign_in

pytestmark = pytest.mark.browser


def make_network(page: Any, live_server: Any, sdk: Client) -> dict[str, str]:
    """A VPC and a vSwitch through the VPC console's forms, a security group through the API."""
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/vpc/vpcs/create")
    page.get_by_label("Name", exact=True).fill("shop-vpc")
    page.get_by_role("button", name="OK").click()
    page.wait_for_url(re.compile(r".*/vpc/vpcs/vpc-[a-z0-9]+$"))
    vpc_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("h1 .badge")).to_have_attribute("data-status", "Available", timeout=10_000)
    page.goto(f"{live_server.url}/vpc/vswitches")
    page.get_by_role("button", name="Create vSwitch").click()
    modal = page.locator("#create-vswitch-modal")
    modal.locator("#vsw-VpcId").select_option(vpc_id)
    modal.locator("#vsw-ZoneId").select_option("cn-hangzhou-i")
    modal.get_by_label("vSwitch name").fill("shop-i")
    modal.get_by_label("IPv4 CIDR block").fill("192.168.10.0/24")
    modal.get_by_role("button", name="OK").click()
    row = page.locator("#vswitches-table tbody tr", has_text="shop-i")
    expect(row.locator(".badge")).to_have_attribute("data-status", "Available", timeout=10_000)
    sg = sdk.call("ecs", "CreateSecurityGroup", VpcId=vpc_id, SecurityGroupName="shop-sg")["SecurityGroupId"]
    return {"vpc": vpc_id, "sg": sg}


def test_buy_an_instance_through_the_wizard_then_stop_and_release_it(live_server, page) -> None:
    from playwright.sync_api import expect

    creds = sign_in(page, live_server, "ecsui")
    sdk = sdk_for(live_server, creds)
    net = make_network(page, live_server, sdk)

    page.goto(f"{live_server.url}/ecs/instances")
    expect(page.locator("#instances [data-batch-action='batch_modify']")).to_have_text("Batch Modify")
    page.get_by_role("link", name="Create Instance").first.click()
    page.wait_for_url("**/ecs/instances/create")
    wizard = page.locator("#create-instance")
    steps = wizard.locator(".wizard-step-label")
    expect(steps).to_have_text(["Basic Configurations", "Networking", "System Configurations", "Grouping", "Summary"])
    next_button = wizard.locator("[data-wizard-next]")

    # Basic configurations: Next stays disabled until a zone and an instance type are chosen
    expect(next_button).to_be_disabled()
    expect(wizard.locator("#prepaid-options")).to_be_hidden()
    wizard.get_by_text("Subscription", exact=True).click()
    expect(wizard.locator("#prepaid-options")).to_be_visible()
    wizard.get_by_text("Pay-as-you-go", exact=True).click()
    expect(wizard.locator("#prepaid-options")).to_be_hidden()
    wizard.get_by_label("Zone").select_option("cn-hangzhou-i")
    wizard.get_by_label("Instance Family").select_option("ecs.c7")
    expect(wizard.locator("label.radio", has_text="ecs.g7.large")).to_be_hidden()
    wizard.locator("label.radio", has_text="ecs.c7.large").click()
    wizard.get_by_label("Operating System").select_option("Ubuntu")
    wizard.get_by_label("Version").select_option(label="22.04 64-bit")
    expect(wizard.locator("#SystemDisk-Category")).to_have_value("cloud_efficiency")
    expect(next_button).to_be_enabled()
    next_button.click()

    # Networking: the vSwitch list follows the zone and the VPC, the security groups follow the VPC
    expect(wizard.locator("#create-instance-step-networking")).to_be_visible()
    expect(next_button).to_be_disabled()
    wizard.get_by_label("Network (VPC)").select_option(net["vpc"])
    expect(wizard.locator("#VSwitchId option", has_text="shop-i")).to_have_count(1, timeout=5_000)
    expect(wizard.locator("#SecurityGroupId")).to_have_value(net["sg"], timeout=5_000)
    next_button.click()

    # System configurations: mismatched passwords keep Next disabled
    expect(wizard.locator("#create-instance-step-system")).to_be_visible()
    wizard.locator("#wizard-password").fill("Shop#Passw0rd")
    wizard.locator("#wizard-password-confirm").fill("Shop#Passw0rX")
    expect(next_button).to_be_disabled()
    wizard.locator("#wizard-password-confirm").fill("Shop#Passw0rd")
    wizard.get_by_label("Instance Name").fill("shop-web")
    expect(next_button).to_be_enabled()
    next_button.click()
    expect(wizard.locator("#create-instance-step-grouping")).to_be_visible()
    wizard.get_by_label("Tag Key").fill("env")
    wizard.get_by_label("Tag Value").fill("prod")
    next_button.click()

    # Summary: every choice and the price, then the order
    summary = wizard.locator("#create-instance-step-summary")
    expect(summary).to_contain_text("ecs.c7.large")
    expect(summary).to_contain_text("shop-web")
    expect(summary).to_contain_text("Pay-as-you-go")
    expect(summary.locator("#wizard-price-value")).to_contain_text("USD/hour", timeout=5_000)
    wizard.get_by_role("button", name="Create Order").click()
    page.wait_for_url(re.compile(r".*/ecs/instances/i-[a-z0-9]+$"))
    instance_id = page.url.rsplit("/", 1)[1]
    expect(page.locator(".toast-success")).to_be_visible()
    badge = page.locator("#instance-status")
    expect(badge).to_have_attribute("data-status", "Running", timeout=15_000)
    expect(page.locator("#instance-attributes")).to_contain_text("ecs.c7.large")
    expect(page.locator("#instance-network-attributes")).to_contain_text("192.168.10.1")

    view = sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=instance_id)
    assert (view["InstanceName"], view["ZoneId"], view["Tags"]) == ("shop-web", "cn-hangzhou-i", [{"TagKey": "env", "TagValue": "prod"}])
    assert view["SecurityGroupIds"] == [net["sg"]] and view["Credential"] == "Password"

    # stop from the detail page, then release from the list
    page.locator("#action-stop").click()
    page.get_by_role("dialog").get_by_role("button", name="Stop").click()
    expect(page.locator("#instance-status")).to_have_attribute("data-status", "Stopped", timeout=15_000)
    page.goto(f"{live_server.url}/ecs/instances")
    row = page.locator("#instances tbody tr", has_text=instance_id)
    expect(row.locator(".badge")).to_have_attribute("data-status", "Stopped")
    row.get_by_role("button", name=re.compile("More actions")).click()
    row.get_by_role("menuitem", name="Release").click()
    page.get_by_role("dialog").get_by_role("button", name="Confirm").click()
    expect(page.locator("#instances tbody tr", has_text=instance_id)).to_have_count(0, timeout=10_000)

    events = {}
    for name in ("RunInstances", "StopInstance", "DeleteInstance"):
        found = sdk.call("actiontrail", "LookupEvents", EventName=name, ErrorCode="none")["Events"]
        events[name] = [e["actor"] for e in found if instance_id in str(e["responseElements"]) + str(e["requestParameters"])]
    assert events == {"RunInstances": ["console"], "StopInstance": ["console"], "DeleteInstance": ["console"]}
    assert page.js_errors == []


def test_release_2026_09_changes_the_instance_pages(live_server, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live_server, "ecsnew", release="2026.09")
    page.goto(f"{live_server.url}/ecs/instances")
    # label_changed: the create button; element_removed: no "Batch Modify"
    expect(page.get_by_role("link", name="Create ECS Instance").first).to_be_visible()
    expect(page.locator("[data-batch-action='batch_modify']")).to_have_count(0)
    expect(page.get_by_role("button", name="Batch Modify")).to_have_count(0)
    # navigation_changed: Images now sits in the "Storage & Snapshots" group; the group label changed
    nav = page.get_by_role("navigation", name="Product navigation")
    storage_group = nav.locator(".nav-group", has_text="Storage & Snapshots")
    expect(storage_group.get_by_role("link", name="Images")).to_have_count(1)
    expect(nav.get_by_text("Instances & Images")).to_have_count(0)

    page.goto(f"{live_server.url}/ecs/instances/create")
    wizard = page.locator("#create-instance")
    # step_order_changed
    expect(wizard.locator(".wizard-step-label")).to_have_text(
        ["Basic Configurations", "System Configurations", "Networking", "Grouping", "Summary"])
    # default_changed: ESSD system disk
    expect(wizard.locator("#SystemDisk-Category")).to_have_value("cloud_essd")
    # field_added_required and feature_removed on the System Configurations step
    expect(wizard.locator("#wizard-instance-name")).to_have_attribute("required", "")
    expect(wizard.locator("#Credential-later")).to_have_count(0)
    expect(wizard.locator("[data-wizard-submit]")).to_have_text("Create Instance")
    expect(page.locator("h1")).to_have_text("Create ECS Instance")
    assert page.js_errors == []
