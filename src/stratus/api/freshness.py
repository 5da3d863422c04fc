"""Replay protection for signed API requests: a date inside a 15-minute window and a one-time nonce.

A signature proves who wrote a request, not when; without these checks a captured request could
be sent again forever. The date (``x-stratus-date``) must lie within ``SIGNATURE_WINDOW`` of the
server's wall clock (see ``stratus.core.wallclock`` for why not the virtual clock), as AWS SigV4
does. The nonce (``x-stratus-nonce``), like Alibaba Cloud's ``SignatureNonce``, may be used once
per access key: it is remembered in the database until its date leaves the window, after which the
date check alone refuses a replay. Keeping nonces in the database (a primary key on key + nonce)
makes the once-only rule hold across several server processes sharing one database.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlalchemy import String, delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.clock import format_time, parse_time
from stratus.core.db import Base
from stratus.core.errors import ApiError

SIGNATURE_WINDOW = timedelta(minutes=15)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
_NONCE = re.compile(r"^[A-Za-z0-9_.\-]{16,64}$")


class RequestNonce(Base):
    """A nonce seen with a valid signature, kept until its request's date leaves the window."""

    __tablename__ = "request_nonces"
    __snapshot__ = False

    access_key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(index=True)


def auth_error(code: str, message: str) -> ApiError:
    return ApiError(code, message, 401)


def check_date_header(value: str) -> datetime:
    """The request's signing time, or ``MissingTimestamp`` / ``InvalidTimeStamp.Format``."""
    if not value:
        raise auth_error("MissingTimestamp", "A signed request needs an x-stratus-date header (UTC, e.g. 2026-01-05T08:00:00Z).")
    if not _DATE.match(value):
        raise auth_error("InvalidTimeStamp.Format",
                         "The x-stratus-date header must be a UTC time like 2026-01-05T08:00:00Z.")
    try:
        return parse_time(value)
    except ValueError:
        raise auth_error("InvalidTimeStamp.Format", "The x-stratus-date header is not a valid date.") from None


def check_nonce_header(value: str) -> str:
    if not value:
        raise auth_error("MissingSignatureNonce", "A signed request needs an x-stratus-nonce header (a fresh random value).")
    if not _NONCE.match(value):
        raise auth_error("InvalidSignatureNonce",
                         "The x-stratus-nonce header must be 16-64 letters, digits, '.', '_' or '-'.")
    return value


def check_window(signed_at: datetime, now: datetime) -> None:
    """Refuse a date more than ``SIGNATURE_WINDOW`` before or after the server's time."""
    if abs(now - signed_at) > SIGNATURE_WINDOW:
        minutes = int(SIGNATURE_WINDOW.total_seconds() // 60)
        raise auth_error("InvalidTimeStamp.Expired",
                         f"The request was signed at {format_time(signed_at)}; the server's time is {format_time(now)} "
                         f"and a signature is valid for {minutes} minutes either side. Check the client's clock.")


def use_nonce(db: Session, access_key_id: str, nonce: str, signed_at: datetime, now: datetime) -> None:
    """Record the nonce in its own committed transaction, or raise ``SignatureNonceUsed``.

    ``db`` must be a fresh session (its first statement writes, so SQLite takes the write lock at
    once instead of failing to upgrade a read transaction). Expired nonces are pruned in the same
    transaction, so the table holds at most one window of traffic."""
    db.execute(delete(RequestNonce).where(RequestNonce.expires_at < now))
    db.add(RequestNonce(access_key_id=access_key_id, nonce=nonce, expires_at=signed_at + SIGNATURE_WINDOW))
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise auth_error("SignatureNonceUsed", "This x-stratus-nonce was already used with this access key; "
                                               "every request needs a fresh one.") from None
