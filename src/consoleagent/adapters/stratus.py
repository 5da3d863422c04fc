"""The stratus adapter: start the embedded cloud (or reach a running one), make a fresh account
per episode through the admin API, and sign in through the login form."""

from __future__ import annotations

import itertools
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

from consoleagent.adapters.base import Credentials, FormLogin


class StratusAdapter:
    """stratus in this process (default) or at ``url`` (then ``admin_token`` is needed for accounts)."""

    name = "stratus"

    def __init__(self, url: str | None = None, *, admin_token: str | None = None, release: str | None = None,
                 time_scale: float = 10.0, database_url: str | None = None, seed: int = 0,
                 balance_cents: int = 100_000) -> None:
        self._url = url.rstrip("/") if url else None
        self._given_token = admin_token
        self._admin_token = admin_token  # for an in-process stratus without one: the token it generated
        self.release = release
        self.time_scale = time_scale
        self.database_url = database_url
        self.seed = seed
        self.balance_cents = balance_cents
        self.login_routine = FormLogin()
        self._handle: Any = None
        self._scratch: Path | None = None  # the temporary database's folder, when this adapter made one
        self._admin: Any = None
        self._aliases = itertools.count(1)

    @property
    def base_url(self) -> str:
        if self._url is None:
            raise RuntimeError("the stratus adapter is not started")
        return self._url

    @property
    def admin_token(self) -> str | None:
        """The admin token (for an in-process stratus, read from its runtime once started); the account
        pool creates accounts with it."""
        return self._admin_token

    @property
    def runtime(self) -> Any:
        """The in-process server's runtime (None when reaching a remote stratus)."""
        return self._handle.runtime if self._handle else None

    def start(self) -> None:
        if self._url is None:
            from stratus.config import Settings
            from stratus.server import start_in_thread

            database = self.database_url
            if database is None:  # a throw-away database, removed again by stop()
                self._scratch = Path(tempfile.mkdtemp(prefix="consoleagent-stratus-"))
                database = f"sqlite:///{self._scratch / 'stratus.db'}"
            settings = Settings(database_url=database, admin_token=self._given_token, time_scale=self.time_scale,
                                seed=self.seed, **({"release": self.release} if self.release else {}))
            self._handle = start_in_thread(settings)
            self._url = self._handle.url
            self._admin_token = self._handle.runtime.admin_token  # generated (and stored) when none was given
        if self._admin is None and self._admin_token:
            from stratus.sdk import AdminClient

            self._admin = AdminClient(self._url, self._admin_token)

    def stop(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None
        if self._handle is not None:
            self._handle.stop()
            self._handle = None
            self._url = None
            self._admin_token = self._given_token
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    @property
    def admin(self) -> Any:
        if self._admin is None:
            raise RuntimeError("no admin token: pass admin_token to create accounts on a running stratus")
        return self._admin

    def credentials(self) -> Credentials:
        """A fresh, empty account for an episode, on the adapter's release."""
        alias = f"agent-{secrets.token_hex(3)}-{next(self._aliases)}"
        password = "Ca-" + secrets.token_urlsafe(12)
        creds = self.admin.create_account(alias, password=password, balance_cents=self.balance_cents,
                                          release=self.release)
        return Credentials(creds["login_name"], password, extra=creds)

    def login(self, page: Any, credentials: Credentials) -> None:
        """Sign in, then note the console session's id: the audit records of this episode are exactly
        those of this session (the judge must not mistake an earlier episode's session for it)."""
        self.login_routine(page, self.base_url, credentials)
        session = page.locator('meta[name="console-session"]')
        if session.count():
            credentials.extra["session_id"] = session.get_attribute("content")

    def is_signed_out(self, url: str) -> bool:
        return "/login" in url.split("?", 1)[0]
