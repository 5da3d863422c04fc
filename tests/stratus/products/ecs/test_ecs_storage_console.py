"""Console pages of ECS security groups, disks and snapshots: rendering per release, and a real browser run."""

from __future__ import annotations

import re
from typing import Any

import pytest

from stratus.sdk import Client, console_sign_in
from tests.stratus.products.ecs.test_ecs_security_groups import IMAGE, make_instance, make_vpc, settle

PASSWORD = "Passw0rd!2026"


def _login(cloud: Any, tenant: Any) -> Any:
    http = cloud.http
    response = console_sign_in(http, tenant.creds["login_name"], PASSWORD)
    assert response.status_code == 303
    return http


def _get(http: Any, path: str) -> str:
    response = http.get(path)
    assert response.status_code == 200, response.text[:500]
    return response.text


@pytest.fixture
def estate(cloud: Any, tenant: Any) -> dict[str, str]:
    client = tenant.sdk
    net = make_vpc(cloud, tenant)
    sg = client.call("ecs", "CreateSecurityGroup", VpcId=net["vpc"], SecurityGroupName="web-sg")["SecurityGroupId"]
    client.call("ecs", "AuthorizeSecurityGroup", SecurityGroupId=sg, IpProtocol="TCP", PortRange="8080/8080",
                SourceCidrIp="10.0.0.0/8", Description="app port")
    instance = make_instance(cloud, tenant, net, [sg])
    disk = client.call("ecs", "CreateDisk", ZoneId=net["zone"], Size=30, DiskName="scratch")["DiskId"]
    settle(cloud, client, 3)
    snap = client.call("ecs", "CreateSnapshot", DiskId=disk, SnapshotName="nightly")["SnapshotId"]
    return {**net, "sg": sg, "instance": instance, "disk": disk, "snapshot": snap}


def _row(html: str, row_id: str) -> str:
    match = re.search(rf'<tr data-row-id="{re.escape(row_id)}".*?</tr>', html, re.S)
    assert match, f"no row {row_id}"
    return match.group(0)


def test_security_group_pages_in_the_base_release(cloud: Any, tenant: Any, estate: dict[str, str]) -> None:
    http = _login(cloud, tenant)
    listing = _get(http, "/ecs/security-groups")
    row = _row(listing, estate["sg"])
    assert "web-sg" in row and "Basic Security Group" in row
    assert "Remove the instances from this security group before you delete it." in row  # Delete is disabled: in use
    assert "Create Security Group" in listing

    detail = _get(http, f"/ecs/security-groups/{estate['sg']}")
    assert ">Inbound<" in detail and ">Outbound<" in detail and "Add Rule" in detail
    assert 'id="quick-ingress-ssh"' in detail and "RDP (3389)" in detail
    assert re.search(r'id="rule-ingress-add-priority"[^>]*value="1"', detail)
    assert not re.search(r'id="rule-ingress-add-description"[^>]*required', detail)
    assert "8080/8080" in detail and "10.0.0.0/8" in detail and "app port" in detail
    assert estate["instance"] in detail  # the Instances tab


def test_storage_pages_in_the_base_release(cloud: Any, tenant: Any, estate: dict[str, str]) -> None:
    http = _login(cloud, tenant)
    disks = _get(http, "/ecs/disks")
    data_row = _row(disks, estate["disk"])
    assert "scratch" in data_row and ">Release<" in data_row and "Resize" in data_row
    system = tenant.sdk.call("ecs", "DescribeDisks", InstanceId=estate["instance"], DiskType="system")["Disks"][0]["DiskId"]
    system_row = _row(disks, system)
    assert "System disks cannot be detached." in system_row
    assert "Only available (detached) disks can be released." in system_row
    assert re.search(r'value="cloud_efficiency"[^>]*checked', disks)
    filtered = _get(http, "/ecs/disks?type=system")
    assert system in filtered and estate["disk"] not in filtered

    detail = _get(http, f"/ecs/disks/{estate['disk']}")
    assert 'id="disk-resize"' in detail and "nightly" in detail
    snapshots = _get(http, "/ecs/snapshots")
    assert "nightly" in _row(snapshots, estate["snapshot"]) and "In Progress" in snapshots
    cloud.advance(10)
    assert "Completed" in _row(_get(http, "/ecs/snapshots"), estate["snapshot"])


def test_release_2026_09_changes_the_pages(cloud: Any, tenant: Any, estate: dict[str, str]) -> None:
    cloud.admin.set_release(tenant.account_id, "2026.09")
    http = _login(cloud, tenant)
    detail = _get(http, f"/ecs/security-groups/{estate['sg']}")
    assert "Inbound Rules" in detail and "Outbound Rules" in detail and "Add Security Group Rule" in detail
    assert "quick-ingress-ssh" not in detail and "Quick Add" not in detail
    assert re.search(r'id="rule-ingress-add-priority"[^>]*value="100"', detail)
    assert re.search(r'id="rule-ingress-add-description"[^>]*required', detail)
    disks = _get(http, "/ecs/disks")
    row = _row(disks, estate["disk"])
    assert ">Delete<" in row and ">Release<" not in row and "Resize" not in row
    assert re.search(r'value="cloud_essd"[^>]*checked', disks)
    assert 'id="disk-resize"' in _get(http, f"/ecs/disks/{estate['disk']}")  # resizing moved to the detail page


# --- the real console in Chromium -------------------------------------------------------------


def _wait_available(client: Client, resource_id: str, status: str = "Available") -> None:
    client.wait_for(resource_id, status, timeout=20, interval=0.1)


@pytest.mark.browser
def test_rules_and_disks_through_the_console(live_server: Any, page: Any) -> None:
    from tests.conftest import console_login

    creds = live_server.admin.create_account("storage-ui", password=PASSWORD, balance_cents=100_000)
    client = Client(live_server.url, creds["access_key_id"], creds["access_key_secret"])
    vpc = client.call("vpc", "CreateVpc", CidrBlock="192.168.0.0/16", VpcName="ui-vpc")["VpcId"]
    _wait_available(client, vpc)
    vsw = client.call("vpc", "CreateVSwitch", VpcId=vpc, ZoneId="cn-hangzhou-h", CidrBlock="192.168.1.0/24")["VSwitchId"]
    sg = client.call("ecs", "CreateSecurityGroup", VpcId=vpc, SecurityGroupName="ui-sg")["SecurityGroupId"]
    _wait_available(client, vsw)
    run = client.call("ecs", "RunInstances", ZoneId="cn-hangzhou-h", InstanceType="ecs.g7.large", ImageId=IMAGE,
                      SecurityGroupId=sg, VSwitchId=vsw, InstanceName="ui-vm", SystemDisk={"Category": "cloud_essd", "Size": 40})
    instance = run["InstanceIdSets"]["InstanceIdSet"][0]

    console_login(page, live_server.url, creds["login_name"], PASSWORD)
    page.goto(f"{live_server.url}/ecs/security-groups")
    page.get_by_role("link", name="ui-sg").click()
    page.wait_for_url(f"**/ecs/security-groups/{sg}")

    # add an inbound rule through the form modal
    page.get_by_role("button", name="Add Rule").first.click()
    dialog = page.get_by_role("dialog", name="Add Inbound Rule")
    dialog.get_by_label("Protocol").select_option("TCP")
    dialog.get_by_label("Port Range").fill("22/22")
    dialog.get_by_label("Source CIDR block").fill("0.0.0.0/0")
    dialog.get_by_label("Description").fill("ssh from anywhere")
    dialog.get_by_role("button", name="OK").click()
    rules = page.get_by_role("table", name="Inbound rules")
    row = rules.get_by_role("row").filter(has_text="ssh from anywhere")
    row.wait_for()
    assert "22/22" in row.inner_text() and "0.0.0.0/0" in row.inner_text()
    assert client.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=sg)["Permissions"][0]["PortRange"] == "22/22"

    # quick add, then delete that rule from its row with a confirmation
    page.get_by_role("button", name="HTTP (80)").first.click()
    http_row = rules.get_by_role("row").filter(has_text="80/80")
    http_row.wait_for()
    http_row.get_by_role("button", name="Delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Confirm").click()
    http_row.wait_for(state="detached")
    assert [p["PortRange"] for p in client.call("ecs", "DescribeSecurityGroupAttribute", SecurityGroupId=sg)["Permissions"]] == ["22/22"]

    # create a disk through the form and watch its badge settle
    page.goto(f"{live_server.url}/ecs/disks")
    page.get_by_role("button", name="Create Disk").click()
    dialog = page.get_by_role("dialog", name="Create Disk")
    dialog.get_by_label("Disk name").fill("ui-data")
    dialog.get_by_label("Capacity").fill("50")
    dialog.get_by_role("button", name="Create").click()
    disk_row = page.get_by_role("table", name="Disks").get_by_role("row").filter(has_text="ui-data")
    disk_row.locator(".badge", has_text="Available").wait_for(timeout=15_000)
    disk = client.call("ecs", "DescribeDisks", DiskName="ui-data")["Disks"][0]
    assert (disk["Status"], disk["Size"], disk["Category"]) == ("Available", 50, "cloud_efficiency")

    # attach it: the instance select cascades from ecs/DescribeInstances in the disk's zone
    _wait_available(client, instance, "Running")
    disk_row.get_by_role("button", name="Attach").click()
    dialog = page.get_by_role("dialog", name="Attach Disk")
    dialog.locator(f'option[value="{instance}"]').wait_for(state="attached")
    dialog.get_by_role("combobox", name="Instance").select_option(instance)
    dialog.get_by_role("button", name="Attach").click()
    disk_row.locator(".badge", has_text="In Use").wait_for(timeout=15_000)
    assert client.call("ecs", "DescribeDisks", DiskName="ui-data")["Disks"][0]["InstanceId"] == instance

    # release 2026.09: no quick add, renamed labels
    live_server.admin.set_release(creds["account_id"], "2026.09")
    page.goto(f"{live_server.url}/ecs/security-groups/{sg}")
    assert page.get_by_role("tab", name=re.compile("^Inbound Rules")).is_visible()
    assert page.get_by_role("button", name="Add Security Group Rule").first.is_visible()
    assert page.get_by_role("button", name="SSH (22)").count() == 0
    assert page.get_by_text("Quick Add").count() == 0
    page.goto(f"{live_server.url}/ecs/disks")
    data_row = page.get_by_role("table", name="Disks").get_by_role("row").filter(has_text="ui-data")
    data_row.get_by_role("button", name="More actions for ui-data").click()
    assert data_row.get_by_role("menuitem", name="Delete").is_disabled()  # in use: the reason is shown instead
    assert data_row.get_by_role("menuitem", name="Create Snapshot").is_visible()
    assert data_row.get_by_role("menuitem", name="Resize").count() == 0
    assert page.js_errors == []
    client.close()
