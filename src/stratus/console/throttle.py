"""Console sign-in throttling: a login name or a source address with too many recent failures is
locked out for a while.

Two counters, both a sliding window of ``WINDOW`` over failed attempts stored in the database (so
several server processes share them): per login name (``user@alias``, so one account's user is
protected wherever the guesses come from) and per source IP (so one address cannot spray guesses
over many names). A locked attempt is refused before any password is checked, and is not itself
counted: an attacker can keep a name locked only by guessing, not extend the lock forever, and
the lock lifts by itself once old failures leave the window. A successful sign-in clears the
name's failures, never the address's (signing in to one's own account must not reset a spray).

Times come from the wall clock (``stratus.core.wallclock``): guessing happens in real time.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import String, delete, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import Base

WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_LOGIN = 5
MAX_FAILURES_PER_IP = 20


class LoginFailure(Base):
    """One failed sign-in, under a hashed scope (``login:...`` or ``ip:...``): nothing readable kept."""

    __tablename__ = "login_failures"
    __snapshot__ = False

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    scope: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(index=True)


def _scope(kind: str, value: str) -> str:
    return f"{kind}:" + hashlib.sha256(value.strip().lower().encode("utf-8", "surrogatepass")).hexdigest()[:48]


def scopes(login_name: str, source_ip: str) -> tuple[str, str]:
    return _scope("login", login_name), _scope("ip", source_ip)


@dataclass(frozen=True)
class Lockout:
    until: datetime
    by_address: bool

    def minutes_left(self, now: datetime) -> int:
        return max(1, math.ceil((self.until - now).total_seconds() / 60))


def _lockout(db: Session, scope: str, limit: int, now: datetime) -> datetime | None:
    """When the lock on ``scope`` lifts, or None if it is not locked."""
    recent = select(LoginFailure.at).where(LoginFailure.scope == scope, LoginFailure.at > now - WINDOW)
    count = db.execute(select(func.count()).select_from(recent.subquery())).scalar_one()
    if count < limit:
        return None
    # It lifts when fewer than `limit` failures remain in the window: when the limit-th newest ages out.
    pivot = db.execute(recent.order_by(LoginFailure.at.desc()).offset(limit - 1).limit(1)).scalar_one()
    return pivot + WINDOW


def check(db: Session, login_name: str, source_ip: str, now: datetime) -> Lockout | None:
    login_scope, ip_scope = scopes(login_name, source_ip)
    until = _lockout(db, login_scope, MAX_FAILURES_PER_LOGIN, now)
    if until is not None:
        return Lockout(until, False)
    until = _lockout(db, ip_scope, MAX_FAILURES_PER_IP, now)
    return Lockout(until, True) if until is not None else None


def record_failure(db: Session, login_name: str, source_ip: str, now: datetime) -> None:
    """Count a failure under both scopes and forget failures that left the window."""
    db.execute(delete(LoginFailure).where(LoginFailure.at <= now - WINDOW))
    for scope in scopes(login_name, source_ip):
        db.add(LoginFailure(scope=scope, at=now))
    db.flush()


def clear_login(db: Session, login_name: str) -> None:
    login_scope, _ = scopes(login_name, "")
    db.execute(delete(LoginFailure).where(LoginFailure.scope == login_scope))
