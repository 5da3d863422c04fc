"""Where pooled accounts come from, and how each kind is checked, repaired and rotated.

The pool (``pool.py``) only knows the ``AccountSource`` protocol, so a console without an admin
API (a real cloud) drops in as a credentials file, while a console backend may bring its own
managed source (stratus's lives in ``consoleagent.consoles.stratus.accounts``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import yaml

from consoleagent.provisioning.types import PooledAccount, ProvisioningError

LoginCheck = Callable[[PooledAccount], list[str]]


@runtime_checkable
class AccountSource(Protocol):
    """Creates accounts and knows what "healthy" means for them."""

    def create(self) -> PooledAccount:
        """A new usable account (raise ProvisioningError when none can be made)."""

    def check(self, account: PooledAccount) -> list[str]:
        """Problems that make the account unfit for an episode; empty means healthy."""

    def repair(self, account: PooledAccount) -> None:
        """Fix what ``check`` can find (clean up, recharge); the pool re-checks afterwards."""

    def rotate(self, account: PooledAccount) -> PooledAccount:
        """The account with fresh credentials; the old ones stop working."""


class FileAccountSource:
    """Accounts listed in a YAML or JSON file, for consoles whose accounts we cannot create.

    The file is a list (or ``{accounts: [...]}``) of ``{login_name, password, console,
    account_id?, extra?}``. ``create()`` hands out the entries in order; the pool skips ones it
    already holds (by ``account_id``, which defaults to ``login_name@console``), so a restarted
    pool never gets an entry twice. ``login_check`` is the console adapter's sign-in probe, if any.
    """

    def __init__(self, path: str | Path, *, login_check: LoginCheck | None = None) -> None:
        self.path = Path(path)
        self.login_check = login_check
        self._entries = [self._account(entry, i) for i, entry in enumerate(self._load())]
        self._next = 0

    def _load(self) -> list[Any]:
        text = self.path.read_text()
        data = json.loads(text) if self.path.suffix == ".json" else yaml.safe_load(text)
        if isinstance(data, dict):
            data = data.get("accounts")
        if not isinstance(data, list):
            raise ProvisioningError(f"{self.path}: expected a list of accounts (or {{accounts: [...]}})", phase="create")
        return data

    def _account(self, entry: Any, index: int) -> PooledAccount:
        missing = [key for key in ("login_name", "password", "console") if not (isinstance(entry, dict) and entry.get(key))]
        if missing:
            raise ProvisioningError(f"{self.path}: entry {index} lacks {', '.join(missing)}", phase="create")
        account_id = str(entry.get("account_id") or f"{entry['login_name']}@{entry['console']}")
        return PooledAccount(account_id=account_id, login_name=entry["login_name"], password=str(entry["password"]),
                             console=entry["console"], extra=dict(entry.get("extra") or {}))

    def create(self) -> PooledAccount:
        if self._next >= len(self._entries):
            raise ProvisioningError(f"{self.path}: all {len(self._entries)} accounts are in use; add more to the file",
                                    phase="create")
        self._next += 1
        return self._entries[self._next - 1]

    def check(self, account: PooledAccount) -> list[str]:
        return self.login_check(account) if self.login_check else []

    def repair(self, account: PooledAccount) -> None:
        """Nothing to repair without an admin API; an account that stays unhealthy is retired."""

    def rotate(self, account: PooledAccount) -> PooledAccount:
        raise ProvisioningError(f"{account.login_name}: rotate credentials in the file {self.path}", phase="lease")
