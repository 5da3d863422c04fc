"""The running server's shared parts: settings, clock, ids, database, the write lock.

One ``Runtime`` per server process. The app factory builds it; the API dispatcher, the console,
the admin API and the CLI all work through it. It also keeps what must survive a restart with the
database: the generated admin token, and the clock's high-water mark, which every committed write
raises in its own transaction so a restarted server resumes virtual time at or after any stored time.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator, Literal

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

import stratus.products  # noqa: F401  (registers every product's tables, actions and pages)
from stratus.audit.digests import load_signer
from stratus.audit.trail import EventDraft, append, upgrade_schema
from stratus.config import Settings
from stratus.core import server_state
from stratus.core.clock import Clock, ManualClock, ScaledClock, parse_time
from stratus.core.db import Base, make_engine, make_session_factory
from stratus.core.ids import IdGenerator

TokenOrigin = Literal["configured", "generated", "stored"]
_WROTE = "stratus_wrote"  # set on a connection's info by any INSERT/UPDATE/DELETE, cleared at commit/rollback


class Runtime:
    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.ids = IdGenerator(settings.seed)
        _create_private_sqlite(settings.database_url)
        self.engine = make_engine(settings.database_url)
        Base.metadata.create_all(self.engine)
        upgrade_schema(self.engine)  # audit rows of chain version 1 get their version column
        self.digest_signer = load_signer(settings.database_url, settings.audit_key_file)
        self._sessions = make_session_factory(self.engine)
        # A clock passed in (tests) is the caller's; one built here resumes from the stored mark.
        self.clock_mark = self._load_clock_mark()
        self.clock: Clock = clock or self._make_clock(self.clock_mark)
        self._watch_commits()
        # SQLite has one writer anyway; a process lock turns "database is locked" retries into a queue
        # and keeps the audit chain and id counter strictly ordered. PostgreSQL adds row locks.
        self.write_lock = threading.RLock()
        self._admin: tuple[str, TokenOrigin] | None = None
        self._admin_lock = threading.Lock()
        self.snapshot_cache: dict[str, Any] = {}
        self.page_views: dict[str, int] = {}  # per console session, for seeded announcement pop-ups
        self.demo_hint: str | None = None  # shown on the login page of a demo server

    @property
    def admin_token(self) -> str:
        """The configured token, else the one stored with the database, generated on first use.

        Lazy, so that CLI commands working on the database (which never check the token) do not
        create one that ``serve`` would then not know to print.
        """
        return self._admin_credentials()[0]

    @property
    def admin_token_origin(self) -> TokenOrigin:
        """``configured`` (settings), ``generated`` (just now, by this process) or ``stored`` (earlier)."""
        return self._admin_credentials()[1]

    def _admin_credentials(self) -> tuple[str, TokenOrigin]:
        if self._admin is not None:  # the common case: every admin request reads it
            return self._admin
        with self._admin_lock:
            if self._admin is None:
                if self.settings.admin_token:
                    self._admin = (self.settings.admin_token, "configured")
                else:
                    with self.session() as db:
                        token, generated = server_state.ensure_admin_token(db)
                    self._admin = (token, "generated" if generated else "stored")
            return self._admin

    def _load_clock_mark(self) -> datetime | None:
        with self.session() as db:
            server_state.init_clock_mark(db)
            return server_state.clock_mark(db)

    def _make_clock(self, mark: datetime | None) -> Clock:
        """Start where the stored time left off, never before it: virtual time is monotonic across restarts."""
        if self.settings.clock == "manual":
            start = parse_time(self.settings.start_time)
            return ManualClock(max(start, mark) if mark else start, on_advance=self._persist_clock)
        wall = datetime.now(timezone.utc)
        return ScaledClock(self.settings.time_scale, start=max(wall, mark) if mark else wall)

    def _watch_commits(self) -> None:
        """Raise the clock mark inside every transaction that writes, atomically with what it wrote.

        A crash then loses nothing: every stored timestamp was taken from the clock before its
        transaction's commit, so the mark is at or after all of them.
        """

        @event.listens_for(self.engine, "after_cursor_execute")
        def _note_write(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
            if context is not None and (context.isinsert or context.isupdate or context.isdelete):
                conn.info[_WROTE] = True

        @event.listens_for(self.engine, "commit")
        @event.listens_for(self.engine, "rollback")
        def _forget(conn: Any) -> None:
            conn.info.pop(_WROTE, None)

        @event.listens_for(self._sessions, "before_commit")
        def _mark(db: Session) -> None:
            # before_commit runs before the final flush, so pending ORM changes count as writes too.
            pending = bool(db.new or db.dirty or db.deleted)
            if pending or (db.in_transaction() and db.connection().info.get(_WROTE)):
                server_state.record_clock_mark(db, self.clock.now())

    def _persist_clock(self, now: datetime) -> None:
        """A manual advance commits nothing by itself; store it so a restart resumes after it."""
        with self.write_lock, self.session() as db:
            server_state.record_clock_mark(db, now)
            db.commit()

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
        """Store the clock's time (reads since the last write saw it too), then release the database."""
        try:
            self._persist_clock(self.clock.now())
        except SQLAlchemyError:  # best effort: only times shown by reads since the last write are at stake
            pass
        finally:
            self.engine.dispose()


def _create_private_sqlite(url: str) -> None:
    """Create a new SQLite file readable by its owner only: it holds key secrets and the admin token.

    SQLite gives its -wal and -shm files the database file's permissions, so they follow.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    try:
        os.close(os.open(parsed.database, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass  # an existing database keeps the permissions its operator gave it
    except FileNotFoundError:
        pass  # no such folder: SQLite's own error says so when the engine connects
