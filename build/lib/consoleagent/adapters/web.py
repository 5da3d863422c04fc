"""Any web console with a login form and one set of credentials: the adapter for consoles that
cannot create accounts on demand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from consoleagent.adapters.base import Credentials, FormLogin


@dataclass
class WebConsoleAdapter:
    url: str
    login_name: str | None = None
    password: str | None = None
    login_routine: FormLogin | None = field(default_factory=FormLogin)  # None: the console needs no sign-in
    name: str = "web"

    @property
    def base_url(self) -> str:
        return self.url.rstrip("/")

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def credentials(self) -> Credentials:
        return Credentials(self.login_name or "", self.password or "")

    def login(self, page: Any, credentials: Credentials) -> None:
        if self.login_routine is not None and credentials.login_name:
            self.login_routine(page, self.base_url, credentials)

    def is_signed_out(self, url: str) -> bool:
        if self.login_routine is None or not self.login_name:
            return False
        return self.login_routine.path in url.split("?", 1)[0]
