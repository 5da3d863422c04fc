"""ClientToken idempotency: a retried create returns the first response instead of a second resource."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from sqlalchemy import String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import AccountOwned, Base
from stratus.core.errors import idempotency_conflict


class IdempotencyToken(AccountOwned, Base):
    __tablename__ = "idempotency_tokens"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    action: Mapped[str] = mapped_column(String(96))
    token: Mapped[str] = mapped_column(String(64))
    params_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


def params_hash(params: dict[str, Any]) -> str:
    body = {k: v for k, v in params.items() if k != "ClientToken"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def replay(db: Session, account_id: str, action: str, token: str, digest: str) -> dict[str, Any] | None:
    """The stored response of an earlier call with this token, or None; a conflict if parameters differ."""
    row = db.execute(
        select(IdempotencyToken).where(
            IdempotencyToken.account_id == account_id,
            IdempotencyToken.action == action,
            IdempotencyToken.token == token,
        )
    ).scalar_one_or_none()
    if row is None:
        return None
    if row.params_hash != digest:
        raise idempotency_conflict(token)
    return json.loads(row.response)


def remember(db: Session, account_id: str, action: str, token: str, digest: str, response: dict[str, Any], now: datetime) -> None:
    db.add(
        IdempotencyToken(
            account_id=account_id, action=action, token=token, params_hash=digest,
            response=json.dumps(response, sort_keys=True, default=str), created_at=now,
        )
    )
