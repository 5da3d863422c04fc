"""What a person reading the console sees the same way everywhere: wizard step titles are never cut at
a common laptop width, and a time reads the same in a list, on a details page and in a drawer."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import LiveServer, sdk_for, sign_in

pytestmark = pytest.mark.browser


def test_wizard_step_titles_are_whole_at_1440_px(page: Any, live_server: LiveServer) -> None:
    sign_in(page, live_server, "wizard-width")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/ecs/instances/create")
    labels = page.evaluate("""() => [...document.querySelectorAll('.wizard-step-label')]
        .map(e => ({text: e.textContent.trim(), cut: e.scrollWidth > e.clientWidth}))""")
    assert len(labels) >= 4 and "Basic Configurations" in [label["text"] for label in labels]
    assert [label["text"] for label in labels if label["cut"]] == []


def test_a_time_reads_the_same_in_the_list_and_on_the_details_page(page: Any, live_server: LiveServer) -> None:
    creds = sign_in(page, live_server, "time-format")
    vpc = sdk_for(live_server, creds).call("vpc", "CreateVpc", VpcName="timed", CidrBlock="10.0.0.0/8")["VpcId"]
    page.goto(f"{live_server.url}/vpc/vpcs")
    listed = page.locator("time").first.inner_text().strip()
    page.goto(f"{live_server.url}/vpc/vpcs/{vpc}")
    details = page.locator("main").inner_text()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", listed), listed
    assert listed in details and "T" not in listed
