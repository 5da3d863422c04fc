"""The console adapter interface and a generic form login.

An adapter is what the environment needs of a console: its address, start/stop, the credentials
of an episode and a way to sign in. What the rollout needs besides (audit records, provisioning,
per-episode reset, releases) is the console backend's (``consoleagent.consoles.base.ConsoleBackend``,
itself an adapter), so the environment runs against any console that can be signed in to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Credentials:
    login_name: str
    password: str
    extra: dict[str, Any] = field(default_factory=dict)  # account id, access keys... (adapter-specific)


class ConsoleAdapter(Protocol):
    name: str

    @property
    def base_url(self) -> str: ...

    def start(self) -> None:
        """Start or reach the console (idempotent)."""

    def stop(self) -> None:
        """Stop what ``start`` started."""

    def credentials(self) -> Credentials:
        """Credentials for a new episode (a fresh account where the console can make one)."""

    def login(self, page: Any, credentials: Credentials) -> None:
        """Sign ``page`` in; raise an exception if the console refuses."""


@dataclass
class FormLogin:
    """Sign in through a login form found by its labels, as a person would. Works for any console
    whose login page labels its fields (most do); pass other labels for other consoles."""

    path: str = "/login"
    username_label: str = "Login name"
    password_label: str = "Password"
    submit_name: str = "Sign in"
    success_url_excludes: str = "/login"
    timeout_ms: float = 15_000

    def __call__(self, page: Any, base_url: str, credentials: Credentials) -> None:
        page.goto(base_url.rstrip("/") + self.path, timeout=self.timeout_ms)
        page.get_by_label(self.username_label, exact=True).fill(credentials.login_name)
        page.get_by_label(self.password_label, exact=True).fill(credentials.password)
        page.get_by_role("button", name=self.submit_name).click()
        page.wait_for_url(lambda url: self.success_url_excludes not in url, timeout=self.timeout_ms)
