"""stratus accounts for the pool: created, checked, repaired and rotated through stratus's admin API.

The pool (``consoleagent.provisioning.pool``) knows only the ``AccountSource`` protocol; this is
the stratus backend's source, so nothing outside this package needs stratus's admin client.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from typing import Any

import httpx2

from consoleagent.provisioning.types import PooledAccount, ProvisioningError
from stratus.core.quotas import DEFAULT_QUOTAS
from stratus.sdk import AdminClient, StratusError, console_sign_in, console_sign_out

# Rows the admin state export always has for a clean account: identity, and idempotency tokens
# (bookkeeping of earlier requests, not resources an agent could see or trip over).
IDENTITY_TABLES = frozenset({"accounts", "access_keys", "ram_users", "idempotency_tokens"})


def stratus_login_check(account: PooledAccount, *, timeout: float = 10.0) -> list[str]:
    """Sign in through the console's login form over plain HTTP (no browser): a 303 means it works.

    The session it opens is signed out again at once. The sign-in is audited (actor ``console``)
    before any episode starts, so it never falls inside an episode's reward window.
    """
    with httpx2.Client(base_url=account.console.rstrip("/"), timeout=timeout, follow_redirects=False) as http:
        response = console_sign_in(http, account.login_name, account.password)
        if response.status_code != 303:
            return [f"console login as {account.login_name} answered {response.status_code}, not 303"]
        console_sign_out(http)
    return []


class StratusAccountSource:
    """Accounts on a stratus server, managed through its admin API (bearer token)."""

    def __init__(self, url: str, admin_token: str, *, balance_cents: int = 1_000_000, min_balance_cents: int = 100_000,
                 release: str | None = None, alias_prefix: str = "pool", check_login: bool = True,
                 timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.balance_cents = balance_cents
        self.min_balance_cents = min_balance_cents
        self.release = release
        self.alias_prefix = alias_prefix
        self.check_login = check_login
        self.admin = AdminClient(self.url, admin_token, timeout=timeout)

    def close(self) -> None:
        self.admin.close()

    def create(self) -> PooledAccount:
        alias = f"{self.alias_prefix}-{secrets.token_hex(5)}"
        password = secrets.token_urlsafe(12) + "A1!"
        try:
            creds = self.admin.create_account(alias, password=password, balance_cents=self.balance_cents,
                                              release=self.release)
        except StratusError as err:
            raise ProvisioningError(f"stratus refused to create account {alias}: {err}", phase="create") from err
        return PooledAccount(
            account_id=creds["account_id"], login_name=creds["login_name"], password=creds["password"],
            console=self.url, sdk_key=(creds["access_key_id"], creds["access_key_secret"]),
            provisioner_key=(creds["provisioner_key_id"], creds["provisioner_key_secret"]),
            extra={"alias": creds["alias"], "release": self.release},
        )

    def check(self, account: PooledAccount) -> list[str]:
        summary = self.admin.get_account(account.account_id)
        state = json.loads(self.admin.account_state(account.account_id))
        problems = self._balance_problems(summary) + self._quota_problems(summary)
        problems += self._leftover_problems(state) + self._key_problems(account, state)
        if self.check_login and not problems:  # a login is the costliest check; skip it when already unfit
            problems += stratus_login_check(account)
        return problems

    def _balance_problems(self, summary: dict[str, Any]) -> list[str]:
        balance = summary["balance_cents"]
        if balance < self.min_balance_cents:
            return [f"balance {balance} cents is below the floor of {self.min_balance_cents}"]
        return []

    @staticmethod
    def _quota_problems(summary: dict[str, Any]) -> list[str]:
        """Deliberately simple: only a quota overridden to zero (or below) counts as "no headroom".

        Counting usage against every limit would duplicate stratus's quota rules; a clean account
        (no leftovers, checked separately) uses none of its quota anyway.
        """
        overrides = summary.get("quotas") or {}
        return [f"quota {name} is overridden to {limit}" for name, limit in sorted(overrides.items()) if limit <= 0]

    @staticmethod
    def _leftover_problems(state: dict[str, list[dict[str, Any]]]) -> list[str]:
        leftovers = {table: len(rows) for table, rows in state.items() if rows and table not in IDENTITY_TABLES}
        if leftovers:
            listed = ", ".join(f"{table}={count}" for table, count in sorted(leftovers.items()))
            return [f"leftover resources from an earlier episode: {listed}"]
        return []

    @staticmethod
    def _key_problems(account: PooledAccount, state: dict[str, list[dict[str, Any]]]) -> list[str]:
        keys = {row["id"]: row.get("status") for row in state.get("access_keys", [])}
        problems = []
        for role, pair in (("sdk", account.sdk_key), ("provisioner", account.provisioner_key)):
            if pair is not None and keys.get(pair[0]) != "Active":
                problems.append(f"{role} access key {pair[0]} is {keys.get(pair[0], 'missing')}")
        return problems

    def repair(self, account: PooledAccount) -> None:
        """Delete every resource (users and keys stay), recharge, and put overridden quotas back to default."""
        summary = self.admin.reset_account(account.account_id, balance_cents=self.balance_cents)
        overrides = {name: DEFAULT_QUOTAS[name] for name in summary.get("quotas") or {} if name in DEFAULT_QUOTAS}
        if overrides:
            self.admin.set_quotas(account.account_id, **overrides)

    def rotate(self, account: PooledAccount) -> PooledAccount:
        """New sdk and provisioner keys first, then the old ones disabled (never a moment without keys)."""
        sdk = self.admin.create_access_key(account.account_id, actor="sdk")
        provisioner = self.admin.create_access_key(account.account_id, actor="provisioner")
        for pair in (account.sdk_key, account.provisioner_key):
            if pair is not None:
                self.admin.set_access_key_status(account.account_id, pair[0], "Inactive")
        return replace(account, sdk_key=(sdk["access_key_id"], sdk["access_key_secret"]),
                       provisioner_key=(provisioner["access_key_id"], provisioner["access_key_secret"]))
