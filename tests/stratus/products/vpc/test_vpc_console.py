"""The VPC console in Chromium: create a VPC and a vSwitch through the forms, EIPs, and release drift."""

from __future__ import annotations

import re

import pytest

from tests.conftest import sdk_for, sign_in

pytestmark = pytest.mark.browser


def test_create_vpc_and_vswitch_through_the_console(live_server, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live_server, "vpcui")
    page.goto(f"{live_server.url}/vpc/vpcs")
    expect(page.locator("#vpcs-table [data-batch-action='delete']")).to_be_disabled()
    page.get_by_role("link", name="Create VPC").first.click()
    page.wait_for_url("**/vpc/vpcs/create")
    page.get_by_label("Name", exact=True).fill("web-vpc")
    expect(page.locator("#CidrBlock")).to_have_value("192.168.0.0/16")
    page.get_by_role("button", name="OK").click()
    page.wait_for_url(re.compile(r".*/vpc/vpcs/vpc-[a-z0-9]+$"))
    vpc_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("h1 .badge")).to_have_attribute("data-status", "Available", timeout=10_000)
    expect(page.locator("#vpc-basic")).to_contain_text("192.168.0.0/16")

    page.goto(f"{live_server.url}/vpc/vswitches?create=1")  # the overview's "2. Create vSwitches" link
    modal = page.locator("#create-vswitch-modal")
    expect(modal).to_be_visible()
    modal.locator("#vsw-VpcId").select_option(vpc_id)
    expect(modal.locator("#vsw-CidrBlock-help")).to_contain_text("192.168.0.0/16")
    modal.locator("#vsw-ZoneId").select_option("cn-hangzhou-h")
    modal.get_by_label("vSwitch name").fill("web-a")
    modal.get_by_label("IPv4 CIDR block").fill("192.168.1.0/24")
    modal.get_by_role("button", name="OK").click()
    row = page.locator("#vswitches-table tbody tr", has_text="web-a")
    expect(row.locator(".badge")).to_have_attribute("data-status", "Available", timeout=10_000)
    expect(row).to_contain_text("192.168.1.0/24")
    expect(row).to_contain_text("252")  # a /24 minus the 4 reserved addresses
    expect(modal).to_be_hidden()  # the dialog the address opened does not open again over the new row
    assert "create=1" not in page.url

    # an overlapping block is refused with the API's message, inside the still-open modal
    page.get_by_role("button", name="Create vSwitch").click()
    modal.locator("#vsw-VpcId").select_option(vpc_id)
    modal.locator("#vsw-ZoneId").select_option("cn-hangzhou-i")
    modal.get_by_label("IPv4 CIDR block").fill("192.168.1.128/25")
    modal.get_by_role("button", name="OK").click()
    expect(modal.locator(".modal-alert")).to_contain_text("overlaps with the CIDR block 192.168.1.0/24")
    modal.get_by_role("button", name="Cancel").click()

    page.goto(f"{live_server.url}/vpc/vpcs")
    vpc_row = page.locator("#vpcs-table tbody tr", has_text=vpc_id)
    expect(vpc_row.locator(".badge")).to_have_attribute("data-status", "Available")
    expect(vpc_row.get_by_role("button", name="Delete")).to_be_disabled()
    assert page.js_errors == []


def test_vswitch_delete_confirm_and_eip_association_with_a_nat_gateway(live_server, page) -> None:
    from playwright.sync_api import expect

    creds = sign_in(page, live_server, "vpceip")
    sdk = sdk_for(live_server, creds)
    vpc = sdk.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/16", VpcName="edge")["VpcId"]
    sdk.wait_for(vpc, "Available")
    vsw = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="10.0.1.0/24", VSwitchName="nat-a")["VSwitchId"]
    spare = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-i", CidrBlock="10.0.2.0/24", VSwitchName="spare")["VSwitchId"]
    sdk.wait_for(vsw, "Available")
    sdk.wait_for(spare, "Available")
    nat = sdk.call("vpc", "CreateNatGateway", VpcId=vpc, VSwitchId=vsw, Name="egress")["NatGatewayId"]
    sdk.wait_for(nat, "Available")

    page.goto(f"{live_server.url}/vpc/vswitches")
    busy = page.locator("#vswitches-table tbody tr", has_text="nat-a").get_by_role("button", name="Delete")
    expect(busy).to_be_disabled()
    expect(busy).to_have_attribute("title", "Delete the instances in this vSwitch first")
    page.locator("#vswitches-table tbody tr", has_text="spare").get_by_role("button", name="Delete").click()
    confirm = page.locator("#delete-vswitch")
    expect(confirm).to_contain_text(spare)
    confirm.get_by_role("button", name="Delete").click()
    expect(page.locator("#vswitches-table tbody tr", has_text="spare")).to_have_count(0)

    page.goto(f"{live_server.url}/vpc/eips")
    page.get_by_role("button", name="Apply for EIP").click()
    allocate = page.locator("#allocate-eip-modal")
    expect(allocate.locator("#eip-Bandwidth")).to_have_value("5")
    allocate.get_by_label("Name").fill("egress-ip")
    allocate.get_by_role("button", name="OK").click()
    row = page.locator("#eips-table tbody tr", has_text="egress-ip")
    expect(row.locator(".badge")).to_have_attribute("data-status", "Available")
    row.get_by_role("button", name="Associate", exact=True).click()
    associate = page.locator("#associate-eip-modal")
    associate.locator("#assoc-InstanceType").select_option("Nat")
    associate.locator("#assoc-nat").select_option(nat)
    associate.get_by_role("button", name="OK").click()
    row = page.locator("#eips-table tbody tr", has_text="egress-ip")
    expect(row.locator(".badge")).to_have_attribute("data-status", "InUse", timeout=10_000)
    expect(row).to_contain_text(nat)
    assert sdk.call("vpc", "DescribeEipAddresses", AssociatedInstanceId=nat)["TotalCount"] == 1
    events = sdk.call("actiontrail", "LookupEvents", EventName="AssociateEipAddress")["Events"]
    assert [e["actor"] for e in events] == ["console"]


def test_release_2026_09_changes_the_vpc_console(live_server, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live_server, "vpcdrift", release="2026.09")
    page.goto(f"{live_server.url}/vpc/vpcs")
    # label_changed + element_removed
    expect(page.get_by_role("link", name="Create a VPC").first).to_be_visible()
    expect(page.get_by_role("link", name="Create VPC", exact=True)).to_have_count(0)
    expect(page.locator("#vpcs-table [data-batch-action]")).to_have_count(0)
    expect(page.locator("#vpcs-table [data-select-all]")).to_have_count(0)
    # label_changed + navigation_changed: Route tables now sit under a "Routing" group
    nav = page.get_by_role("navigation", name=re.compile("navigation", re.I))
    expect(nav.get_by_role("link", name="Subnets (vSwitches)")).to_be_visible()
    routing = nav.locator(".nav-group", has_text="Routing")
    expect(routing.get_by_role("link", name="Route tables")).to_be_visible()
    expect(nav.locator(".nav-group", has_text="VPCs").get_by_role("link", name="Route tables")).to_have_count(0)
    # feature_removed: no vSwitch section on the create VPC page
    page.goto(f"{live_server.url}/vpc/vpcs/create")
    expect(page.get_by_label("Name", exact=True)).to_be_visible()
    expect(page.get_by_text("Create a vSwitch at the same time")).to_have_count(0)
    # default_changed: EIP bandwidth defaults to 1 Mbps
    page.goto(f"{live_server.url}/vpc/eips")
    page.get_by_role("button", name="Create EIP").click()
    expect(page.locator("#allocate-eip-modal #eip-Bandwidth")).to_have_value("1")
    # field_added_required: the create vSwitch form requires a description
    page.goto(f"{live_server.url}/vpc/vswitches")
    expect(page.locator("#vsw-Description")).to_have_attribute("required", "")
    assert page.js_errors == []


def test_base_release_has_the_old_console(live_server, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live_server, "vpcbase")
    page.goto(f"{live_server.url}/vpc/vpcs/create")
    expect(page.get_by_text("Create a vSwitch at the same time")).to_be_visible()
    nav = page.get_by_role("navigation", name=re.compile("navigation", re.I))
    expect(nav.get_by_role("link", name="vSwitches", exact=True)).to_be_visible()
    expect(nav.locator(".nav-group", has_text="Routing")).to_have_count(0)
    page.goto(f"{live_server.url}/vpc/vswitches")
    expect(page.locator("#vsw-Description")).to_have_count(0)


def test_vswitch_quick_view_drawer(live_server, page) -> None:
    from playwright.sync_api import expect

    creds = sign_in(page, live_server, "vpcdrawer")
    sdk = sdk_for(live_server, creds)
    vpc = sdk.call("vpc", "CreateVpc", VpcName="drawer-vpc", CidrBlock="10.0.0.0/8")["VpcId"]
    sdk.wait_for(vpc, "Available", timeout=10)
    vsw = sdk.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="10.1.0.0/24",
                   VSwitchName="drawer-a", Description="for the drawer")["VSwitchId"]
    page.goto(f"{live_server.url}/vpc/vswitches")
    row = page.locator("#vswitches-table tbody tr", has_text="drawer-a")
    row.get_by_role("button", name="View details").click()
    drawer = page.get_by_role("dialog", name="drawer-a")  # the drawer is titled with the row it shows
    expect(drawer).to_be_visible()
    expect(drawer).to_contain_text(vsw)
    expect(drawer).to_contain_text("10.1.0.0/24")
    expect(drawer).to_contain_text("for the drawer")
    page.keyboard.press("Escape")
    expect(drawer).to_be_hidden()
    assert page.js_errors == []
