"""The account pool: leases with a time-to-live, health checks before each lease, repair or retire.

State lives in one SQLite file (WAL mode) so that every worker process on a machine, and a
restarted owner, see the same accounts and leases. Every state change is one ``BEGIN IMMEDIATE``
transaction: SQLite's write lock makes claiming an account atomic, so two workers never hold
the same account. Slow work (health checks, repairs, rotation) happens outside the lock while
the account is claimed, so other workers keep leasing meanwhile.

A lease is a claim with an expiry: a worker that crashes simply stops renewing, and the account
comes back after the TTL (marked dirty, so it is cleaned before anyone gets it).
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from consoleagent.provisioning.sources import AccountSource
from consoleagent.provisioning.types import Lease, PooledAccount, ProvisioningError

# How long a claim may sit in health check / repair before another worker may take the account.
CHECK_BUDGET_S = 300.0
POLL_S = 0.05

SCHEMA = """
CREATE TABLE IF NOT EXISTS pool_accounts (
    account_id TEXT PRIMARY KEY,
    account    TEXT NOT NULL,                    -- PooledAccount as JSON
    status     TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'leased', 'retired')),
    lease_id   TEXT,
    worker     TEXT,
    expires_at REAL,                             -- epoch seconds (the pool's clock)
    dirty      INTEGER NOT NULL DEFAULT 0,       -- clean it before the next lease
    health     TEXT NOT NULL DEFAULT '',         -- the last check's notes
    episodes   INTEGER NOT NULL DEFAULT 0,
    repairs    INTEGER NOT NULL DEFAULT 0,
    rotations  INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
)
"""


class AccountPool:
    """Accounts shared by concurrent workers; construct one per process (or Ray actor) on the same file."""

    def __init__(self, state_path: str | Path, source: AccountSource, *, lease_ttl_s: float = 900.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.state_path = Path(state_path)
        self.source = source
        self.lease_ttl_s = lease_ttl_s
        self.clock = clock
        self._lock = threading.RLock()  # one connection, possibly used from several threads
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.state_path, timeout=60.0, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=60000")
        with self._write() as db:
            db.execute(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "AccountPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; ``BEGIN IMMEDIATE`` takes SQLite's write lock up front (no upgrade races)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # --- filling ---------------------------------------------------------------------------

    def fill(self, n: int) -> list[PooledAccount]:
        """Create accounts through the source until ``n`` usable (not retired) ones exist; returns the new ones.

        Meant for the pool's owner (one process). An account the pool already holds (a file
        source handing out an entry again after a restart) is skipped.
        """
        added: list[PooledAccount] = []
        usable = self._read("SELECT COUNT(*) FROM pool_accounts WHERE status != 'retired'")[0][0]
        while usable < n:
            account = self.source.create()
            now = self.clock()
            with self._write() as db:
                inserted = db.execute(
                    "INSERT OR IGNORE INTO pool_accounts (account_id, account, created_at, updated_at) VALUES (?, ?, ?, ?)",
                    (account.account_id, json.dumps(account.to_dict()), now, now),
                ).rowcount
            if inserted:
                added.append(account)
                usable += 1
        return added

    # --- leasing ---------------------------------------------------------------------------

    def lease(self, worker: str, *, ttl_s: float | None = None, wait_s: float = 30.0) -> Lease:
        """A healthy account for ``worker``, held until released or until the TTL lapses unrenewed.

        Claims an available account (or one whose lease expired), checks it, repairs it if needed
        and re-checks; an account still unhealthy after repair is retired and the next one tried.
        Raises ProvisioningError(phase="lease") when none is free within ``wait_s``.
        """
        ttl = self.lease_ttl_s if ttl_s is None else ttl_s
        deadline = time.monotonic() + wait_s
        while True:
            claim = self._claim(worker)
            if claim is not None:
                lease = self._prepare(claim, worker, ttl)
                if lease is not None:
                    return lease
                continue  # that one was retired; try the next at once
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProvisioningError(f"no healthy account free for {worker!r} within {wait_s:g}s "
                                        f"({self._summary()})", phase="lease")
            time.sleep(min(remaining, POLL_S * (1 + random.random())))  # noqa: S311 - jitter, not crypto

    def _claim(self, worker: str) -> tuple[str, str, PooledAccount, bool] | None:
        """Atomically mark the least recently used free account as ours; an expired lease counts as free."""
        now = self.clock()
        lease_id = uuid.uuid4().hex
        with self._write() as db:
            row = db.execute(
                "SELECT account_id, account, status, dirty FROM pool_accounts "
                "WHERE status = 'available' OR (status = 'leased' AND expires_at <= ?) "
                "ORDER BY updated_at, account_id LIMIT 1", (now,),
            ).fetchone()
            if row is None:
                return None
            crashed = row["status"] == "leased"  # its holder never released it: assume it left a mess
            db.execute("UPDATE pool_accounts SET status = 'leased', lease_id = ?, worker = ?, expires_at = ?, "
                       "updated_at = ? WHERE account_id = ?",
                       (lease_id, worker, now + CHECK_BUDGET_S, now, row["account_id"]))
        account = PooledAccount.from_dict(json.loads(row["account"]))
        return row["account_id"], lease_id, account, bool(row["dirty"]) or crashed

    def _prepare(self, claim: tuple[str, str, PooledAccount, bool], worker: str, ttl: float) -> Lease | None:
        """Clean (if dirty), check, repair and re-check a claimed account; the lease, or None if retired."""
        account_id, lease_id, account, dirty = claim
        notes: list[str] = []
        try:
            if dirty:
                self._repair(account_id, lease_id, account)
                notes.append("cleaned after a dirty release or an expired lease")
            problems = self.source.check(account)
            if problems:
                self._repair(account_id, lease_id, account)
                notes.append("repaired: " + "; ".join(problems))
                problems = self.source.check(account)
        except Exception as err:  # an outage is no proof the account is bad: give it back, dirty
            self._unclaim(account_id, lease_id, f"health check failed: {err}")
            raise ProvisioningError(f"health check of account {account_id} failed: {err}", phase="lease") from err
        if problems:
            self._retire_claimed(account_id, lease_id, "unhealthy after repair: " + "; ".join(problems))
            return None
        return self._hand_out(account_id, lease_id, account, worker, ttl, "; ".join(notes) or "ok")

    def _repair(self, account_id: str, lease_id: str, account: PooledAccount) -> None:
        self.source.repair(account)
        with self._write() as db:
            db.execute("UPDATE pool_accounts SET repairs = repairs + 1, dirty = 0, updated_at = ? "
                       "WHERE account_id = ? AND lease_id = ?", (self.clock(), account_id, lease_id))

    def _hand_out(self, account_id: str, lease_id: str, account: PooledAccount, worker: str, ttl: float,
                  health: str) -> Lease | None:
        now = self.clock()
        with self._write() as db:
            updated = db.execute(
                "UPDATE pool_accounts SET expires_at = ?, episodes = episodes + 1, health = ?, dirty = 0, updated_at = ? "
                "WHERE account_id = ? AND lease_id = ? AND status = 'leased'",
                (now + ttl, health, now, account_id, lease_id),
            ).rowcount
        if not updated:  # retired by an operator while we checked it
            return None
        return Lease(lease_id=lease_id, account=account, worker=worker, expires_at=now + ttl)

    def _unclaim(self, account_id: str, lease_id: str, health: str) -> None:
        with self._write() as db:
            db.execute("UPDATE pool_accounts SET status = 'available', lease_id = NULL, worker = NULL, expires_at = NULL, "
                       "dirty = 1, health = ?, updated_at = ? WHERE account_id = ? AND lease_id = ? AND status = 'leased'",
                       (health, self.clock(), account_id, lease_id))

    def _retire_claimed(self, account_id: str, lease_id: str, reason: str) -> None:
        with self._write() as db:
            db.execute("UPDATE pool_accounts SET status = 'retired', lease_id = NULL, worker = NULL, expires_at = NULL, "
                       "health = ?, updated_at = ? WHERE account_id = ? AND lease_id = ?",
                       (reason, self.clock(), account_id, lease_id))

    def renew(self, lease: Lease, ttl_s: float | None = None) -> Lease:
        """Extend a live lease (long episodes renew before the TTL lapses); an expired one cannot be revived."""
        now = self.clock()
        ttl = self.lease_ttl_s if ttl_s is None else ttl_s
        with self._write() as db:
            updated = db.execute(
                "UPDATE pool_accounts SET expires_at = ?, updated_at = ? "
                "WHERE account_id = ? AND lease_id = ? AND status = 'leased' AND expires_at > ?",
                (now + ttl, now, lease.account.account_id, lease.lease_id, now),
            ).rowcount
        if not updated:
            raise self._stale(lease, "renew")
        lease.expires_at = now + ttl
        return lease

    def release(self, lease: Lease, *, dirty: bool = False) -> None:
        """Give the account back; ``dirty`` (the episode left resources) makes the next lease clean it first.

        A lease that lapsed but that nobody took over is still accepted. A lease whose account was
        retired meanwhile is accepted and the account stays retired.
        """
        with self._write() as db:
            row = db.execute("SELECT status, lease_id FROM pool_accounts WHERE account_id = ?",
                             (lease.account.account_id,)).fetchone()
            if row is None or row["lease_id"] != lease.lease_id:
                raise self._stale(lease, "release")
            status = "retired" if row["status"] == "retired" else "available"
            db.execute("UPDATE pool_accounts SET status = ?, lease_id = NULL, worker = NULL, expires_at = NULL, "
                       "dirty = ?, updated_at = ? WHERE account_id = ?",
                       (status, int(dirty), self.clock(), lease.account.account_id))

    def _stale(self, lease: Lease, verb: str) -> ProvisioningError:
        rows = self._read("SELECT status, worker FROM pool_accounts WHERE account_id = ?", (lease.account.account_id,))
        if not rows:
            now = f"the pool has no account {lease.account.account_id}"
        elif rows[0]["status"] == "leased":
            now = f"the account is now leased to {rows[0]['worker']!r}"
        else:
            now = f"the account is now {rows[0]['status']}"
        return ProvisioningError(
            f"cannot {verb} stale lease {lease.lease_id} of {lease.worker!r} on account {lease.account.account_id}: "
            f"it was released already or expired and was taken over; {now}", phase="lease")

    # --- maintenance -----------------------------------------------------------------------

    def rotate(self, account_id: str) -> PooledAccount:
        """New credentials through the source, the old ones disabled. Only while nobody holds the account."""
        now = self.clock()
        lease_id = "rotate-" + uuid.uuid4().hex
        with self._write() as db:
            row = db.execute("SELECT * FROM pool_accounts WHERE account_id = ?", (account_id,)).fetchone()
            if row is None:
                raise ProvisioningError(f"the pool has no account {account_id}", phase="lease")
            if row["status"] == "retired" or (row["status"] == "leased" and row["expires_at"] > now):
                holder = f"leased to {row['worker']!r}" if row["status"] == "leased" else "retired"
                raise ProvisioningError(f"cannot rotate account {account_id}: it is {holder}", phase="lease")
            db.execute("UPDATE pool_accounts SET status = 'leased', lease_id = ?, worker = 'pool:rotate', "
                       "expires_at = ?, updated_at = ? WHERE account_id = ?",
                       (lease_id, now + CHECK_BUDGET_S, now, account_id))
        old = PooledAccount.from_dict(json.loads(row["account"]))
        try:
            new = self.source.rotate(old)
        except Exception:
            self._unclaim(account_id, lease_id, "rotation failed")
            raise
        with self._write() as db:
            db.execute("UPDATE pool_accounts SET account = ?, status = 'available', lease_id = NULL, worker = NULL, "
                       "expires_at = NULL, rotations = rotations + 1, updated_at = ? WHERE account_id = ? AND lease_id = ?",
                       (json.dumps(new.to_dict()), self.clock(), account_id, lease_id))
        return new

    def retire(self, account_id: str, reason: str) -> None:
        """Never lease this account again. A current holder may finish; its release keeps it retired."""
        with self._write() as db:
            updated = db.execute("UPDATE pool_accounts SET status = 'retired', health = ?, updated_at = ? "
                                 "WHERE account_id = ?", (f"retired: {reason}", self.clock(), account_id)).rowcount
        if not updated:
            raise ProvisioningError(f"the pool has no account {account_id}", phase="lease")

    # --- reporting -------------------------------------------------------------------------

    def account(self, account_id: str) -> PooledAccount:
        rows = self._read("SELECT account FROM pool_accounts WHERE account_id = ?", (account_id,))
        if not rows:
            raise ProvisioningError(f"the pool has no account {account_id}", phase="lease")
        return PooledAccount.from_dict(json.loads(rows[0]["account"]))

    def status(self) -> list[dict[str, Any]]:
        """One row per account, oldest first, for a CLI table (no secrets)."""
        now = self.clock()
        out = []
        for row in self._read("SELECT * FROM pool_accounts ORDER BY created_at, account_id"):
            account = json.loads(row["account"])
            leased = row["status"] == "leased"
            out.append({
                "account_id": row["account_id"], "login_name": account["login_name"], "console": account["console"],
                "status": row["status"], "worker": row["worker"], "lease_id": row["lease_id"],
                "expires_in_s": round(row["expires_at"] - now, 1) if leased else None,
                "expired": bool(leased and row["expires_at"] <= now), "dirty": bool(row["dirty"]),
                "episodes": row["episodes"], "repairs": row["repairs"], "rotations": row["rotations"],
                "health": row["health"], "created_at": row["created_at"], "updated_at": row["updated_at"],
            })
        return out

    def _summary(self) -> str:
        counts: dict[str, int] = {}
        for row in self.status():
            key = "expired" if row["expired"] else row["status"]
            counts[key] = counts.get(key, 0) + 1
        return ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "the pool is empty; call fill()"
