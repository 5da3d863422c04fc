"""Asynchronous resource states that advance on the clock.

A resource in a transitional state (Pending, Starting, Stopping...) carries the time of its next
transition. Nothing runs in the background: before any request touches an account, ``advance``
applies every transition that is due, in time order, and records each as a ``ServiceEvent``
stamped with the moment it happened. Same clock, same calls, same history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from sqlalchemy import func, literal_column, select, union_all
from sqlalchemy.orm import Session

from stratus.core.clock import parse_time

# Called as emit(event_time, lifecycle, row, old_status, new_status)
Emit = Callable[[datetime, "Lifecycle", Any, str, str], None]


@dataclass
class Lifecycle:
    """The transitional states of one resource model: status -> (next status, virtual seconds)."""

    model: Any
    resource_type: str
    service: str
    event_name: str
    steps: dict[str, tuple[str, float]]
    on_enter: Callable[[Session, Any, str], None] | None = None

    def begin(self, row: Any, status: str, now: datetime) -> None:
        """Put ``row`` into ``status`` now, scheduling the next step if the status is transitional."""
        row.status = status
        step = self.steps.get(status)
        row.transition_at = now + timedelta(seconds=step[1]) if step else None


LIFECYCLES: list[Lifecycle] = []


def register_lifecycle(lifecycle: Lifecycle) -> Lifecycle:
    LIFECYCLES.append(lifecycle)
    return lifecycle


def _next_due(db: Session, account_id: str) -> datetime | None:
    """The account's earliest scheduled transition, in one query over every lifecycle table."""
    if not LIFECYCLES:
        return None
    parts = [
        select(lc.model.transition_at.label("at")).where(lc.model.account_id == account_id, lc.model.transition_at.is_not(None))
        for lc in LIFECYCLES
    ]
    pending = union_all(*parts).subquery()
    earliest = db.execute(select(func.min(literal_column("at"))).select_from(pending)).scalar_one_or_none()
    return None if earliest is None else _as_utc(earliest)


def _as_utc(value: datetime | str) -> datetime:
    """Stored times are naive UTC; an aggregate skips the column type, and SQLite returns it as text."""
    if isinstance(value, str):
        return parse_time(value)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def advance(db: Session, account_id: str, now: datetime, emit: Emit) -> int:
    """Apply every due transition of one account in time order; return how many were applied.

    Called before every API call, so the common case (nothing due) costs a single query.
    """
    next_due = _next_due(db, account_id)
    if next_due is None or next_due > now:
        return 0
    applied = 0
    while True:
        due: list[tuple[datetime, str, Lifecycle, Any]] = []
        for lifecycle in LIFECYCLES:
            model = lifecycle.model
            rows = db.execute(
                select(model).where(
                    model.account_id == account_id,
                    model.transition_at.is_not(None),
                    model.transition_at <= now,
                )
            ).scalars()
            due.extend((row.transition_at, row.id, lifecycle, row) for row in rows)
        if not due:
            return applied
        at, _, lifecycle, row = min(due, key=lambda item: (item[0], item[1]))
        old = row.status
        new, _ = lifecycle.steps[old]
        lifecycle.begin(row, new, at)
        emit(at, lifecycle, row, old, new)
        if lifecycle.on_enter:
            lifecycle.on_enter(db, row, new)
        db.flush()
        applied += 1
