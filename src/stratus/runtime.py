"""The running server's shared parts: settings, clock, ids, database, the write lock.

One ``Runtime`` per server process. The app factory builds it; the API dispatcher, the console,
the admin API and the CLI all work through it.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterator

from sqlalchemy.orm import Session

import stratus.products  # noqa: F401  (registers every product's tables, actions and pages)
from stratus.audit.digests import load_signer
from stratus.audit.trail import EventDraft, append, upgrade_schema
from stratus.config import Settings
from stratus.core.clock import Clock, ManualClock, ScaledClock
from stratus.core.db import Base, make_engine, make_session_factory
from stratus.core.ids import IdGenerator


class Runtime:
    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or (
            ManualClock(settings.start_time) if settings.clock == "manual" else ScaledClock(settings.time_scale)
        )
        self.ids = IdGenerator(settings.seed)
        self.engine = make_engine(settings.database_url)
        Base.metadata.create_all(self.engine)
        upgrade_schema(self.engine)  # audit rows of chain version 1 get their version column
        self.digest_signer = load_signer(settings.database_url, settings.audit_key_file)
        self._sessions = make_session_factory(self.engine)
        # SQLite has one writer anyway; a process lock turns "database is locked" retries into a queue
        # and keeps the audit chain and id counter strictly ordered. PostgreSQL adds row locks.
        self.write_lock = threading.RLock()
        self.snapshot_cache: dict[str, Any] = {}
        self.page_views: dict[str, int] = {}  # per console session, for seeded announcement pop-ups
        self.demo_hint: str | None = None  # shown on the login page of a demo server

    @contextmanager
    def session(self) -> Iterator[Session]:
        db = self._sessions()
        try:
            yield db
        finally:
            db.close()

    def audit(self, db: Session, draft: EventDraft, at: datetime) -> dict[str, Any]:
        """Append an audit record inside ``db``'s transaction; ids come from the seeded generator."""
        request_id, event_id = self.ids.uuids(db, 2)
        return append(
            db, draft, event_id=event_id, request_id=draft.request_id or request_id, event_time=at,
            delay_s=self.settings.audit_delivery_delay, signer=self.digest_signer,
        )

    def close(self) -> None:
        self.engine.dispose()
