"""Snapshot and restore of one account's complete state.

This is the reset every training rollout uses, so it works on table rows directly: one SELECT per
table to snapshot; one DELETE and one bulk INSERT per table to restore, in foreign-key order.
Tables that opt out (``__snapshot__ = False``: audit trail, sessions, counters) are never touched:
history is not rewritten and nobody is signed out.
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


def owned_tables() -> list[Table]:
    """Tables holding account state, parents before children (the accounts table excluded)."""
    tables = []
    for mapper in Base.registry.mappers:
        cls = mapper.class_
        if getattr(cls, "__snapshot__", True) and "account_id" in mapper.local_table.c:
            tables.append(mapper.local_table)
    order = {table.name: i for i, table in enumerate(Base.metadata.sorted_tables)}
    return sorted(tables, key=lambda t: order[t.name])


def capture(db: Session, account_id: str) -> dict[str, list[dict[str, Any]]]:
    account = db.get(Account, account_id)
    if account is None:
        raise not_found("account", account_id)
    state: dict[str, list[dict[str, Any]]] = {
        "accounts": [dict(db.execute(select(Account.__table__).where(Account.id == account_id)).mappings().one())]
    }
    for table in owned_tables():
        rows = db.execute(select(table).where(table.c.account_id == account_id).order_by(*table.primary_key.columns))
        state[table.name] = [dict(row) for row in rows.mappings()]
    return state


def encode(state: dict[str, list[dict[str, Any]]]) -> bytes:
    return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)


def decode(payload: bytes) -> dict[str, list[dict[str, Any]]]:
    # Payloads are written only by this module through the admin API; never from tenant input.
    return pickle.loads(zlib.decompress(payload))  # noqa: S301


def apply(db: Session, account_id: str, state: dict[str, list[dict[str, Any]]]) -> None:
    """Make the account's rows exactly ``state``: children deleted first, parents inserted first."""
    tables = owned_tables()
    for table in reversed(tables):
        db.execute(delete(table).where(table.c.account_id == account_id))
    account_row = dict(state["accounts"][0])
    db.execute(Account.__table__.update().where(Account.__table__.c.id == account_id).values(**account_row))
    for table in tables:
        rows = state.get(table.name) or []
        if rows:
            db.execute(insert(table), rows)


def clear_resources(db: Session, account_id: str, keep: set[str]) -> None:
    """Delete every owned row of the account except the tables named in ``keep`` (identity)."""
    for table in reversed(owned_tables()):
        if table.name not in keep:
            db.execute(delete(table).where(table.c.account_id == account_id))


CREDENTIAL_COLUMNS = {"root_password_hash", "password_hash", "secret"}


def export_state(db: Session, account_id: str) -> str:
    """Canonical JSON of an account's state, for byte-for-byte comparisons in tests and tooling.

    Credential material (password hashes with random salts, key secrets) is masked: it is random
    by design, and it is not something a comparison of two runs should see.
    """
    state = capture(db, account_id)
    for rows in state.values():
        for row in rows:
            for column in CREDENTIAL_COLUMNS & row.keys():
                row[column] = "<credential>"
    return json.dumps(state, sort_keys=True, default=str, separators=(",", ":"))
