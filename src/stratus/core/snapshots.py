"""Snapshot and restore of one account's resources; the account's state export.

This is the reset every training rollout uses, so it works on table rows directly: one SELECT per
table to snapshot; one DELETE and one bulk INSERT per table to restore, in foreign-key order.

What a snapshot holds is decided per table, by declaration on the mapped class:

- restorable (the default): every account-owned table (one with ``account_id``), plus the account
  row's ``ACCOUNT_STATE_COLUMNS`` (display name, balance, release, quotas);
- ``__credentials__ = True``: identity and authorisation (RAM users, access keys, permission
  policies, login lockout): who may sign in, with which secret, allowed to do what. Never captured
  and never touched by a restore, because rolling a credential back would resurrect a disabled
  key or an old password. A table with a foreign key to such a table counts as one too;
- ``__snapshot__ = False``: not account state at all (audit trail, console sessions, id counters,
  the snapshots themselves): history is not rewritten and nobody is signed out.

The state export shows restorable and credential tables (secrets masked), so a comparison sees a
changed key status while a restore leaves it alone.
"""

from __future__ import annotations

import json
import pickle
import zlib
from datetime import datetime
from typing import Any

from sqlalchemy import LargeBinary, String, Table, delete, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import Base
from stratus.core.errors import not_found
from stratus.core.identity import Account


class AccountSnapshot(Base):
    __tablename__ = "account_snapshots"
    __snapshot__ = False

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(32), index=True)
    name: Mapped[str] = mapped_column(String(128), default="")
    created_at: Mapped[datetime]
    payload: Mapped[bytes] = mapped_column(LargeBinary)


ACCOUNT_STATE_COLUMNS = ("display_name", "balance_cents", "release", "quotas")
"""The account row's restorable part; its id, alias, root password and any later column stay as they are."""

State = dict[str, list[dict[str, Any]]]


def _account_tables() -> dict[str, tuple[type, Table]]:
    """Every mapped class with an ``account_id`` column and ``__snapshot__`` left on, by table name."""
    found = {}
    for mapper in Base.registry.mappers:
        cls, table = mapper.class_, mapper.local_table
        if getattr(cls, "__snapshot__", True) and "account_id" in table.c:
            found[table.name] = (cls, table)
    return found


def _in_fk_order(tables: list[Table]) -> list[Table]:
    order = {table.name: i for i, table in enumerate(Base.metadata.sorted_tables)}
    return sorted(tables, key=lambda t: order[t.name])


def credential_tables() -> list[Table]:
    """Identity and authorisation tables: declared ``__credentials__``, or referring to one that is."""
    tables = _account_tables()
    names = {name for name, (cls, _) in tables.items() if getattr(cls, "__credentials__", False)}
    grew = True
    while grew:  # a policy attachment that points at a RAM user is authorisation state as well
        referring = {name for name, (_, table) in tables.items()
                     if any(fk.column.table.name in names for fk in table.foreign_keys)}
        grew = not referring <= names
        names |= referring
    return _in_fk_order([tables[name][1] for name in names])


def owned_tables() -> list[Table]:
    """Restorable tables holding account state, parents before children (accounts and credentials excluded)."""
    credentials = {table.name for table in credential_tables()}
    return _in_fk_order([table for name, (_, table) in _account_tables().items() if name not in credentials])


def _rows(db: Session, table: Table, account_id: str) -> list[dict[str, Any]]:
    rows = db.execute(select(table).where(table.c.account_id == account_id).order_by(*table.primary_key.columns))
    return [dict(row) for row in rows.mappings()]


def _account_row(db: Session, account_id: str) -> dict[str, Any]:
    if db.get(Account, account_id) is None:
        raise not_found("account", account_id)
    return dict(db.execute(select(Account.__table__).where(Account.id == account_id)).mappings().one())


def capture(db: Session, account_id: str) -> State:
    """The restorable state: the account row's ``ACCOUNT_STATE_COLUMNS`` and every restorable table."""
    account = _account_row(db, account_id)
    state: State = {"accounts": [{column: account[column] for column in ACCOUNT_STATE_COLUMNS}]}
    for table in owned_tables():
        state[table.name] = _rows(db, table, account_id)
    return state


def encode(state: State) -> bytes:
    return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode(payload: bytes) -> State:
    # Payloads are written only by this module through the admin API; never from tenant input.
    return pickle.loads(zlib.decompress(payload))  # noqa: S301


def apply(db: Session, account_id: str, state: State) -> None:
    """Make the account's restorable rows exactly ``state``: children deleted first, parents inserted first.

    Only restorable tables and columns are read from ``state``, so a payload stored before credentials
    were excluded (it holds ``access_keys`` and the root password hash) cannot roll them back either.
    """
    tables = owned_tables()
    for table in reversed(tables):
        db.execute(delete(table).where(table.c.account_id == account_id))
    saved = state["accounts"][0]
    values = {column: saved[column] for column in ACCOUNT_STATE_COLUMNS if column in saved}
    db.execute(Account.__table__.update().where(Account.__table__.c.id == account_id).values(**values))
    for table in tables:
        rows = state.get(table.name) or []
        if rows:
            db.execute(insert(table), rows)


def clear_resources(db: Session, account_id: str, keep: set[str]) -> None:
    """Delete every restorable row of the account except the tables named in ``keep``; credentials stay anyway."""
    for table in reversed(owned_tables()):
        if table.name not in keep:
            db.execute(delete(table).where(table.c.account_id == account_id))


CREDENTIAL_COLUMNS = {"root_password_hash", "password_hash", "secret"}


def export_state(db: Session, account_id: str) -> str:
    """Canonical JSON of an account's state, for byte-for-byte comparisons in tests and tooling.

    It shows more than a snapshot holds: the whole account row and the credential tables too, so a
    comparison notices a changed key status. Credential material (password hashes with random
    salts, key secrets) is masked: it is random by design, and not something a comparison of two
    runs should see.
    """
    state = capture(db, account_id)
    state["accounts"] = [_account_row(db, account_id)]
    for table in credential_tables():
        state[table.name] = _rows(db, table, account_id)
    for rows in state.values():
        for row in rows:
            for column in CREDENTIAL_COLUMNS & row.keys():
                row[column] = "<credential>"
    return json.dumps(state, sort_keys=True, default=str, separators=(",", ":"))
