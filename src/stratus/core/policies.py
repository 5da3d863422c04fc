"""Stored RAM policies: an account's custom policy documents and which user has which policy.

Neither table is part of an account snapshot (``__snapshot__ = False``), for the same reason
credentials are not: restoring state must never roll a permission back, so a policy detached or
tightened after a snapshot stays detached or tight after a restore. ``user_id`` carries no
foreign key, so restoring the users table (which deletes and re-inserts its rows) never trips
over an attachment.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import AccountOwned, Base

PolicyType = Literal["System", "Custom"]


class CustomPolicy(AccountOwned, Base):
    """A policy an account wrote itself: a name, a description and one JSON document."""

    __tablename__ = "ram_policies"
    __snapshot__ = False
    __table_args__ = (UniqueConstraint("account_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128))
    description: Mapped[str] = mapped_column(String(1024), default="")
    document: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class PolicyAttachment(AccountOwned, Base):
    """``policy_type/policy_name`` is attached to the RAM user ``user_id`` of this account."""

    __tablename__ = "ram_policy_attachments"
    __snapshot__ = False
    __table_args__ = (UniqueConstraint("account_id", "user_id", "policy_type", "policy_name"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(32), index=True)
    policy_type: Mapped[str] = mapped_column(String(8))
    policy_name: Mapped[str] = mapped_column(String(128))
    attached_at: Mapped[datetime]


def attachments_of(db: Session, account_id: str, user_id: str) -> list[PolicyAttachment]:
    stmt = select(PolicyAttachment).where(PolicyAttachment.account_id == account_id, PolicyAttachment.user_id == user_id)
    return list(db.execute(stmt.order_by(PolicyAttachment.id)).scalars())


def custom_policy(db: Session, account_id: str, name: str) -> CustomPolicy | None:
    stmt = select(CustomPolicy).where(CustomPolicy.account_id == account_id, CustomPolicy.name == name)
    return db.execute(stmt).scalar_one_or_none()


def attach(db: Session, account_id: str, user_id: str, policy_type: PolicyType, policy_name: str, now: datetime) -> bool:
    """Attach a policy; False if it was attached already (callers turn that into an error)."""
    exists = db.execute(select(PolicyAttachment.id).where(
        PolicyAttachment.account_id == account_id, PolicyAttachment.user_id == user_id,
        PolicyAttachment.policy_type == policy_type, PolicyAttachment.policy_name == policy_name,
    )).first()
    if exists:
        return False
    db.add(PolicyAttachment(account_id=account_id, user_id=user_id, policy_type=policy_type, policy_name=policy_name,
                            attached_at=now))
    db.flush()
    return True
