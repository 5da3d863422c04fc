"""Database engine, declarative base and the column types every product shares.

SQLite (a file or in memory) is the default; PostgreSQL works by URL. Times are stored as naive
UTC and handed back as aware UTC so that SQLite and PostgreSQL behave alike.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, DateTime, Engine, ForeignKey, String, TypeDecorator, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker
from sqlalchemy.pool import StaticPool


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that goes in and comes out as timezone-aware UTC on every backend."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of every stratus table.

    ``__snapshot__`` says whether a table's rows belong to an account's restorable state (see
    ``stratus.core.snapshots``); the audit trail, sessions and bookkeeping tables opt out. Identity
    and authorisation tables (users, keys, policies, lockouts) declare ``__credentials__ = True``:
    a snapshot never holds them and a restore never rolls them back.
    """

    __snapshot__: bool = True
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, list[Any]: JSON}


class AccountOwned:
    """Mixin for rows owned by one account. Every query on such a table is scoped by it."""

    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)


class RegionalResource(AccountOwned):
    """Mixin for a cloud resource: an id with a type prefix, a region, a name, tags, a creation time."""

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    region_id: Mapped[str] = mapped_column(String(32), index=True)
    name: Mapped[str] = mapped_column(String(128), default="")
    description: Mapped[str] = mapped_column(String(256), default="")
    tags: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL, foreign keys and a busy timeout, memory gets one shared connection."""
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False},
            poolclass=StaticPool if in_memory else None,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=10000")
            if not in_memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def make_session_factory(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
