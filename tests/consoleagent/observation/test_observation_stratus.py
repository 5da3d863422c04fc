"""Set-of-Mark observation on a real stratus console page (live Uvicorn server, real Chromium)."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

import pytest

from consoleagent.observation.marking import install, locate, snapshot
from tests.conftest import console_login

pytestmark = pytest.mark.browser

PASSWORD = "Obs-Passw0rd!"


@pytest.fixture
def console(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    install(context)
    page = context.new_page()
    live_server.admin.create_account("observer", password=PASSWORD)
    console_login(page, live_server.url, "root@observer", PASSWORD)
    yield page
    context.close()


def test_vpc_list_page(console: Any, live_server: Any) -> None:
    console.goto(f"{live_server.url}/vpc/vpcs")
    snap = snapshot(console)
    create = [m for m in snap.marks if m.name == "Create VPC"]
    # The toolbar's, and the empty table's call to action (a new account has no VPC).
    assert len(create) == 2 and all(m.role in ("link", "button") and m.in_viewport for m in create)
    assert create[0].context == "" and create[1].context.startswith("row: No VPCs in this region yet")
    region = [m for m in snap.marks if m.role == "combobox" and m.name == "Region"]
    assert len(region) == 1 and region[0].value  # the selected region's label
    assert region[0].value == locate(console, region[0]).evaluate("s => s.selectedOptions[0].label")
    text = snap.text()
    assert f'[{create[0].id}] {create[0].role} "Create VPC"' in text and "# VPCs" in text
    times = [snapshot(console).elapsed_ms for _ in range(10)]
    median = statistics.median(times)
    print(f"stratus /vpc/vpcs: {len(snap.marks)} marks, snapshot median {median:.1f} ms over 10 runs")
    assert median < 500  # loose: the machine may be loaded; the benchmark reports the real figure
