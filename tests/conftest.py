"""Shared fixtures: an in-process server with a manual clock, tenant and admin clients, and a
live Uvicorn server with headless Chromium for console tests.

Everything here is real: a real FastAPI app on a real SQLite database, real HTTP through httpx
(in-process transport for API tests, TCP for the browser), real Chromium through Playwright.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from stratus.app import create_app
from stratus.config import Settings
from stratus.core.clock import ManualClock
from stratus.runtime import Runtime
from stratus.sdk import AdminClient, Client
from stratus.server import start_in_thread

ADMIN_TOKEN = "test-admin-token"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


@dataclass
class Tenant:
    """One account with its console login and two SDK clients (sdk and provisioner actors)."""

    creds: dict[str, Any]
    sdk: Client
    provisioner: Client

    @property
    def account_id(self) -> str:
        return self.creds["account_id"]


@dataclass
class Cloud:
    """An in-process stratus server: its runtime, clock, admin client and a factory of tenants."""

    runtime: Runtime
    clock: ManualClock
    http: TestClient
    admin: AdminClient

    def tenant(self, alias: str, balance_cents: int = 100_000, region: str = "cn-hangzhou", **fields: Any) -> Tenant:
        creds = self.admin.create_account(alias, password="Passw0rd!2026", balance_cents=balance_cents, **fields)
        transport = self.http._transport  # the in-process ASGI transport
        sdk = Client("http://testserver", creds["access_key_id"], creds["access_key_secret"], region=region, transport=transport)
        prov = Client("http://testserver", creds["provisioner_key_id"], creds["provisioner_key_secret"], region=region,
                      transport=transport)
        return Tenant(creds, sdk, prov)

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)


def make_cloud(**settings: Any) -> Cloud:
    clock = ManualClock("2026-01-05T08:00:00Z")
    values = {"database_url": "sqlite://", "clock": "manual", "admin_token": ADMIN_TOKEN, "seed": 7, **settings}
    app = create_app(Settings(**values), clock=clock)
    http = TestClient(app)
    admin = AdminClient("http://testserver", ADMIN_TOKEN, transport=http._transport)
    return Cloud(app.state.runtime, clock, http, admin)


@pytest.fixture
def cloud() -> Iterator[Cloud]:
    c = make_cloud()
    yield c
    c.runtime.close()


@pytest.fixture
def tenant(cloud: Cloud) -> Tenant:
    return cloud.tenant("alpha")


@pytest.fixture
def other_tenant(cloud: Cloud) -> Tenant:
    return cloud.tenant("bravo")


# --- live server + browser ------------------------------------------------------------------


@dataclass
class LiveServer:
    url: str
    runtime: Runtime
    admin: AdminClient


def start_live_server(tmp_path: Any, **settings: Any) -> tuple[LiveServer, Any]:
    """A real Uvicorn server on a SQLite file; returns the server and a handle whose stop() ends it."""
    values = {"database_url": f"sqlite:///{tmp_path}/live.db", "admin_token": ADMIN_TOKEN, "seed": 11,
              "time_scale": 20.0, **settings}
    handle = start_in_thread(Settings(**values))
    return LiveServer(handle.url, handle.runtime, AdminClient(handle.url, ADMIN_TOKEN)), handle


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live, handle = start_live_server(tmp_path_factory.mktemp("live"))
    yield live
    handle.stop()


@pytest.fixture(scope="module")
def stratus_console() -> Iterator[Any]:
    """stratus in this process behind the consoleagent adapter (time x50), shared by a module's episodes."""
    from consoleagent.adapters.stratus import StratusAdapter

    adapter = StratusAdapter(time_scale=50.0)
    adapter.start()
    yield adapter
    adapter.stop()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Any]:
    """One Playwright per test process (the sync API allows one per thread); browsers come from it."""
    if not os.path.exists(CHROMIUM) and not shutil.which("chromium"):
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing in CI: .ci/run must install Debian's chromium")
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_instance: Any) -> Iterator[Any]:
    instance = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield instance
    instance.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()


def console_login(page: Any, base_url: str, login_name: str, password: str) -> None:
    """Sign in through the real login form, as a person would."""
    page.goto(f"{base_url}/login")
    page.get_by_label("Login name").fill(login_name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)


CONSOLE_PASSWORD = "Passw0rd!2026"


def sign_in(page: Any, live_server: LiveServer, alias: str, release: str | None = None) -> dict[str, Any]:
    """A new account (on ``release``, if given), signed in on ``page``; returns its credentials."""
    creds = live_server.admin.create_account(alias, password=CONSOLE_PASSWORD)
    if release:
        live_server.admin.set_release(creds["account_id"], release)
    console_login(page, live_server.url, f"root@{alias}", CONSOLE_PASSWORD)
    return creds


def sdk_for(live_server: LiveServer, creds: dict[str, Any]) -> Client:
    return Client(live_server.url, creds["access_key_id"], creds["access_key_secret"])
