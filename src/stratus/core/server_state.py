"""Server-wide state kept with the database: the generated admin token and the clock's high-water mark.

Both must outlive a restart (a restarted server keeps its admin token, and its virtual time never
runs backwards), and neither belongs to any account: the table has no ``account_id``, so no
tenant-facing query, snapshot or state export can reach it.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import String, Text, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import Base

ADMIN_TOKEN = "admin_token"
CLOCK_MARK = "clock_mark"


class ServerState(Base):
    """One named value per row: ``text`` for secrets, ``at`` for times (compared in SQL, never as text)."""

    __tablename__ = "server_state"
    __snapshot__ = False

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    text: Mapped[str | None] = mapped_column(Text, default=None)
    at: Mapped[datetime | None] = mapped_column(default=None)


def ensure_admin_token(db: Session) -> tuple[str, bool]:
    """The stored admin token, generated (256 random bits) on first use; ``(token, generated_now)``.

    Two servers starting on one fresh database race on the insert; the loser reads the winner's token.
    """
    stored = db.get(ServerState, ADMIN_TOKEN)
    if stored is not None and stored.text:
        return stored.text, False
    token = secrets.token_urlsafe(32)
    db.add(ServerState(name=ADMIN_TOKEN, text=token))
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        return db.execute(select(ServerState.text).where(ServerState.name == ADMIN_TOKEN)).scalar_one(), False
    return token, True


def clock_mark(db: Session) -> datetime | None:
    """The latest virtual time any committed transaction saw (None on a fresh database)."""
    return db.execute(select(ServerState.at).where(ServerState.name == CLOCK_MARK)).scalar_one_or_none()


def init_clock_mark(db: Session) -> None:
    """Create the mark's row once, so recording it is always a plain UPDATE (no upsert dialects)."""
    if db.get(ServerState, CLOCK_MARK) is None:
        db.add(ServerState(name=CLOCK_MARK, at=None))
        try:
            db.commit()
        except IntegrityError:
            db.rollback()


def record_clock_mark(db: Session, now: datetime) -> None:
    """Raise the mark to ``now`` inside the caller's transaction; it never moves back."""
    table = ServerState.__table__
    db.execute(update(table).where(table.c.name == CLOCK_MARK, table.c.at.is_(None) | (table.c.at < now)).values(at=now))
