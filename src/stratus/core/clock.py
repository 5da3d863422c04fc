"""Injectable clocks.

Every timestamp stratus stores comes from a clock object, never from ``datetime.now()``, so tests
run with a manual clock (deterministic) and training runs with a scaled clock (fast waits). Where a
clock starts is the runtime's business: it resumes from the time stored with the database.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Protocol


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 timestamp; a trailing ``Z`` means UTC. Naive times are taken as UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def format_time(value: datetime) -> str:
    """The one textual form of a time in the API and the audit trail: UTC, milliseconds, ``Z``."""
    value = value.astimezone(timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


class Clock(Protocol):
    def now(self) -> datetime: ...


class ScaledClock:
    """Wall-clock time, optionally running faster: virtual = start + scale * real elapsed.

    ``start`` (default: the wall clock now) lets a restarted server continue from the virtual time it
    had reached instead of falling back to the wall clock (``stratus.runtime`` passes the stored mark).
    """

    def __init__(self, scale: float = 1.0, start: datetime | None = None) -> None:
        self.scale = scale
        self._origin_real = time.monotonic()
        self._origin_virtual = start or datetime.now(timezone.utc)

    def now(self) -> datetime:
        elapsed = (time.monotonic() - self._origin_real) * self.scale
        return self._origin_virtual + timedelta(seconds=elapsed)


class ManualClock:
    """A clock that moves only when ``advance`` is called: the basis of deterministic tests."""

    def __init__(self, start: datetime | str = "2026-01-05T08:00:00Z",
                 on_advance: Callable[[datetime], None] | None = None) -> None:
        self._now = parse_time(start) if isinstance(start, str) else start
        self._lock = threading.Lock()
        # Told the new time after each advance: a server persists it, since an advance commits nothing else.
        self.on_advance = on_advance

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        with self._lock:
            self._now += timedelta(seconds=seconds)
            now = self._now
        if self.on_advance is not None:
            self.on_advance(now)
        return now
