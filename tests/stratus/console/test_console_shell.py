"""The console shell in headless Chromium: sign-in, home, region switch, search, widgets, pop-ups."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import console_login, start_live_server

pytestmark = pytest.mark.browser
PASSWORD = "Shell-Passw0rd"


@pytest.fixture(scope="module")
def shell_account(live_server: Any) -> dict[str, Any]:
    return live_server.admin.create_account("shell", password=PASSWORD)


def test_sign_in_home_and_sign_out(page: Any, live_server: Any, shell_account: dict) -> None:
    page.goto(f"{live_server.url}/console")
    assert "/login" in page.url  # not signed in: redirected
    page.get_by_label("Login name").fill("root@shell")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    assert page.get_by_text("The login name or password is incorrect.").is_visible()
    console_login(page, live_server.url, "root@shell", PASSWORD)
    assert page.get_by_role("heading", name="Welcome, shell").is_visible()
    assert page.get_by_role("navigation", name="Breadcrumb").is_visible()
    page.get_by_role("button", name="shell", exact=True).click()  # the account menu shows the user
    page.get_by_role("menuitem", name="Sign out").click()
    page.wait_for_url("**/login")
    assert page.js_errors == []


def test_region_selector_switches_region(page: Any, live_server: Any, shell_account: dict) -> None:
    console_login(page, live_server.url, "root@shell", PASSWORD)
    region = page.get_by_label("Region")
    assert region.input_value() == "cn-hangzhou"
    region.select_option("cn-shanghai")
    page.wait_for_load_state("networkidle")
    assert page.get_by_label("Region").input_value() == "cn-shanghai"
    assert page.get_by_text("Region: China (Shanghai)").is_visible()  # the home page scopes to it


def test_global_search_goes_through_the_audited_api(page: Any, live_server: Any, shell_account: dict) -> None:
    console_login(page, live_server.url, "root@shell", PASSWORD)
    page.get_by_role("searchbox").fill("web")
    page.get_by_role("searchbox").press("Enter")
    page.wait_for_url("**/console/search?q=web")
    assert page.get_by_role("heading", name="Search results").is_visible()
    from stratus.sdk import Client

    client = Client(live_server.url, shell_account["access_key_id"], shell_account["access_key_secret"])
    events = client.call("actiontrail", "LookupEvents", EventName="SearchResources", Actor="console")["Events"]
    assert events and events[0]["requestParameters"]["Keyword"] == "web"


def test_widget_gallery_behaves(page: Any, live_server: Any, shell_account: dict) -> None:
    console_login(page, live_server.url, "root@shell", PASSWORD)
    page.goto(f"{live_server.url}/console/widgets")
    # tabs: keyboard navigation selects the next tab
    first_tab = page.get_by_role("tab").first
    first_tab.focus()
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tab").nth(1).get_attribute("aria-selected") == "true"
    # a modal opens as a dialog and closes with Escape
    page.get_by_role("button", name="Open modal").click()
    dialog = page.get_by_role("dialog", name="About modals")
    dialog.wait_for(state="visible")
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    # selecting rows enables batch actions
    batch = page.locator("[data-batch-action]").first
    assert batch.is_disabled()
    page.get_by_role("checkbox", name="Select all rows").first.check()
    assert batch.is_enabled()
    assert page.js_errors == []


def test_announcement_popup_at_full_rate(tmp_path: Any, page: Any) -> None:
    live, handle = start_live_server(tmp_path, popup_rate=1.0)
    try:
        live.admin.create_account("popup", password=PASSWORD)
        console_login(page, live.url, "root@popup", PASSWORD)
        dialog = page.get_by_role("dialog", name="Service announcement")
        dialog.wait_for(state="visible")
        page.get_by_label("Do not show again").check()
        dialog.get_by_role("button", name="Close").click()
        dialog.wait_for(state="hidden")
        page.reload()
        page.wait_for_load_state("networkidle")
        assert not page.get_by_role("dialog", name="Service announcement").is_visible()
    finally:
        handle.stop()


def test_missing_resource_page_is_an_error_page_in_the_shell(page: Any, live_server: Any, shell_account: dict) -> None:
    console_login(page, live_server.url, "root@shell", PASSWORD)
    response = page.goto(f"{live_server.url}/ecs/instances/i-doesnotexist0000")
    assert response.status == 404
    assert page.get_by_text("The resource does not exist").first.is_visible()
    assert page.get_by_text("Error code: NotFound").is_visible()
    assert page.get_by_role("navigation", name="Product navigation").is_visible()  # still inside the console
    page.get_by_role("link", name="Back to the console").click()
    page.wait_for_url("**/ecs")
