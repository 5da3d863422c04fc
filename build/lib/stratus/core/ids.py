"""Seeded, collision-free id generation.

An id is derived from (seed, a persistent counter), so the same seed and the same sequence of
calls give the same ids, and a restarted server never reuses one (the counter lives in the
database, not in memory).
"""

from __future__ import annotations

import hashlib
import uuid

from sqlalchemy import Integer, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import Base

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


class IdCounter(Base):
    __tablename__ = "id_counters"
    __snapshot__ = False

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(Integer, default=0)


class IdGenerator:
    """Hands out ids inside the caller's transaction, so a rolled-back call consumes none."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _reserve(self, db: Session, count: int = 1) -> int:
        """Advance the counter by ``count`` in one locked update; returns the first number reserved."""
        counter = db.execute(select(IdCounter).where(IdCounter.name == "global").with_for_update()).scalar_one_or_none()
        if counter is None:
            counter = IdCounter(name="global", value=0)
            db.add(counter)
        first = counter.value + 1
        counter.value += count
        db.flush()
        return first

    def _hash(self, number: int) -> bytes:
        return hashlib.sha256(f"stratus:{self.seed}:{number}".encode()).digest()

    def _digest(self, db: Session) -> bytes:
        return self._hash(self._reserve(db))

    def resource_id(self, db: Session, prefix: str, length: int = 17) -> str:
        """A cloud-style id such as ``vpc-8k3j2h...``: the prefix, a dash, base-36 characters."""
        value = int.from_bytes(self._digest(db), "big")
        chars = []
        for _ in range(length):
            value, index = divmod(value, 36)
            chars.append(_ALPHABET[index])
        return f"{prefix}-{''.join(chars)}"

    def numeric_id(self, db: Session, length: int = 16) -> str:
        """A numeric id such as an account id (``1482930475839201``)."""
        return str(int.from_bytes(self._digest(db), "big"))[:length]

    def uuid(self, db: Session) -> str:
        """A UUID-shaped id (request ids, event ids), upper-case like real cloud request ids."""
        return self.uuids(db, 1)[0]

    def uuids(self, db: Session, count: int) -> list[str]:
        """Several UUID-shaped ids for one counter update (an audit record needs two)."""
        first = self._reserve(db, count)
        return [str(uuid.UUID(bytes=self._hash(n)[:16], version=4)).upper() for n in range(first, first + count)]
