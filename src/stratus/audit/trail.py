"""An append-only audit trail with a hash chain, shaped like ActionTrail / CloudTrail.

Each record is stored as the exact canonical JSON that was hashed, so an export is
byte-for-byte what was written. Indexed columns beside the JSON serve lookups.

Chain version 2 (current) hashes *every stored column* of a row (the JSON record, the index
columns, ``deliver_at``, the sequence number, the previous hash), so editing ``error_code`` to
hide a failure or ``deliver_at`` to hide a record from LookupEvents breaks the chain. Version 1
rows (databases written before it) hashed the JSON record alone; they still verify, and a
version 1 row may never follow a version 2 row. A chain alone proves nothing against someone who
can rewrite the table (re-chain everything, or cut the tail and move the head back); that is what
the signed digests of :mod:`stratus.audit.digests` anchor. The formats are in docs/formats.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Iterator

from sqlalchemy import Engine, Integer, String, Text, inspect, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.audit.bounds import bound, clip_column
from stratus.core.clock import format_time
from stratus.core.db import Base

if TYPE_CHECKING:
    from stratus.audit.digests import DigestSigner

EVENT_VERSION = "1"
CHAIN_VERSION = 2
GENESIS_HASH = "0" * 64
NO_ACCOUNT = ""  # accountId of events without a tenant caller (admin operations, unauthenticated requests)


class AuditEvent(Base):
    __tablename__ = "audit_events"
    __snapshot__ = False

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    event_id: Mapped[str] = mapped_column(String(40), unique=True)
    event_time: Mapped[datetime] = mapped_column(index=True)
    deliver_at: Mapped[datetime] = mapped_column(index=True)
    account_id: Mapped[str] = mapped_column(String(32), index=True)
    event_name: Mapped[str] = mapped_column(String(64), index=True)
    event_type: Mapped[str] = mapped_column(String(16))
    event_rw: Mapped[str] = mapped_column(String(8))
    service_name: Mapped[str] = mapped_column(String(32), index=True)
    actor: Mapped[str] = mapped_column(String(16), index=True)
    user_name: Mapped[str] = mapped_column(String(64), default="")
    session_id: Mapped[str | None] = mapped_column(String(64), default=None, index=True)
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    resource_ids: Mapped[str] = mapped_column(Text, default="")  # " id1 id2 " for LIKE lookups
    record: Mapped[str] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    chain_version: Mapped[int] = mapped_column(Integer, default=CHAIN_VERSION, server_default="1")


class ChainHead(Base):
    """The last record's sequence number and hash; locked while appending so the chain never forks."""

    __tablename__ = "audit_chain_head"
    __snapshot__ = False

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    hash: Mapped[str] = mapped_column(String(64), default=GENESIS_HASH)


def upgrade_schema(engine: Engine) -> None:
    """Bring a database written before chain version 2 up to date (``create_all`` adds no columns).

    The added ``chain_version`` column defaults to 1, which is what every existing row is.
    """
    columns = {c["name"] for c in inspect(engine).get_columns(AuditEvent.__tablename__)}
    if "chain_version" not in columns:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE audit_events ADD COLUMN chain_version INTEGER NOT NULL DEFAULT 1"))


@dataclass
class EventDraft:
    """What a caller knows about an event; ``append`` adds ids, times, the chain."""

    event_name: str
    event_type: str  # ApiCall | ConsoleSignin | ServiceEvent | AdminCall
    event_rw: str  # Read | Write
    service_name: str
    region: str
    user_identity: dict[str, Any]
    actor: str
    request_parameters: dict[str, Any] | None = None
    response_elements: dict[str, Any] | None = None
    error_code: str | None = None
    error_message: str | None = None
    referenced_resources: dict[str, list[str]] = field(default_factory=dict)
    source_ip: str = ""
    user_agent: str = ""
    request_id: str | None = None


_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def canonical_json(value: Any) -> str:
    """The one serialisation that is hashed: sorted keys, no spaces, UTF-8, NaN refused.

    The line and paragraph separators and NEL, which json leaves raw, are escaped too: each record
    is one line of a JSONL export, and ``str.splitlines`` (or a JavaScript reader) would break there.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=str)
    for char, escaped in _LINE_BREAKS.items():
        text = text.replace(char, escaped)
    return text


def redact(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """Mask secrets and bound sizes before parameters reach the trail, like real audit services do."""
    return None if params is None else bound(params)


def chain_hash(prev_hash: str, record_json: str) -> str:
    """The chain version 1 hash: the record JSON only (kept to verify databases written before version 2)."""
    return hashlib.sha256((prev_hash + record_json).encode()).hexdigest()


def _column_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value


def row_hash(columns: dict[str, Any]) -> str:
    """The chain version 2 hash: every column of the row except ``hash`` itself (``prev_hash`` included).

    The column list comes from the table, so a column added later is covered without a change here.
    """
    names = [c.name for c in AuditEvent.__table__.columns if c.name != "hash"]
    payload = canonical_json({name: _column_value(columns[name]) for name in names})
    return hashlib.sha256(payload.encode()).hexdigest()


def stored_hash(event: AuditEvent) -> str:
    """What ``event.hash`` must be, by the rules of the row's own chain version."""
    if event.chain_version == 1:
        return chain_hash(event.prev_hash, event.record)
    return row_hash({c.name: getattr(event, c.key) for c in AuditEvent.__table__.columns})


def index_columns(record: dict[str, Any]) -> dict[str, Any]:
    """The lookup columns of a record, derived from its JSON alone (so verify can recompute them)."""
    identity = record.get("userIdentity") or {}
    resource_ids = sorted({str(rid) for ids in (record.get("referencedResources") or {}).values() for rid in ids})
    return {
        "event_id": clip_column(record["eventId"], 40),
        "account_id": clip_column(identity.get("accountId") or NO_ACCOUNT, 32),
        "event_name": clip_column(record["eventName"], 64),
        "event_type": clip_column(record["eventType"], 16),
        "event_rw": clip_column(record["eventRW"], 8),
        "service_name": clip_column(record["serviceName"], 32),
        "actor": clip_column(record["actor"], 16),
        "user_name": clip_column(identity.get("userName") or "", 64),
        "session_id": clip_column(identity.get("sessionId"), 64),
        "error_code": clip_column(record.get("errorCode"), 64),
        "resource_ids": " " + " ".join(resource_ids) + " " if resource_ids else "",
    }


def build_record(draft: EventDraft, *, event_id: str, request_id: str, event_time: datetime) -> dict[str, Any]:
    """The JSON record of an event: bounded, secrets masked, valid Unicode, no NaN (see ``bounds``)."""
    record = {
        "eventId": event_id,
        "eventVersion": EVENT_VERSION,
        "eventTime": format_time(event_time),
        "eventName": draft.event_name,
        "eventType": draft.event_type,
        "eventRW": draft.event_rw,
        "eventSource": f"{draft.service_name}.stratus.local",
        "serviceName": draft.service_name,
        "acsRegion": draft.region,
        "requestId": request_id,
        "requestParameters": draft.request_parameters,
        "responseElements": draft.response_elements,
        "errorCode": draft.error_code,
        "errorMessage": draft.error_message,
        "referencedResources": {k: sorted({str(i) for i in v}) for k, v in sorted(draft.referenced_resources.items())},
        "sourceIpAddress": draft.source_ip,
        "userAgent": draft.user_agent,
        "userIdentity": draft.user_identity,
        "actor": draft.actor,
    }
    bounded = bound(record)
    # Fields that index columns are made of are short by nature; clip them to the column so that the
    # record and its columns always agree (an event name of 5,000 characters is still one event).
    for key, length in (("eventName", 64), ("eventType", 16), ("eventRW", 8), ("serviceName", 32), ("actor", 16),
                        ("errorCode", 64)):
        bounded[key] = clip_column(bounded[key], length)
    bounded["eventSource"] = f"{bounded['serviceName']}.stratus.local"
    return bounded


def _lock_head(db: Session) -> ChainHead:
    head = db.execute(select(ChainHead).where(ChainHead.id == 1).with_for_update()).scalar_one_or_none()
    if head is None:
        head = ChainHead(id=1, seq=0, hash=GENESIS_HASH)
        db.add(head)
        db.flush()
    return head


def append(db: Session, draft: EventDraft, *, event_id: str, request_id: str, event_time: datetime, delay_s: float,
           signer: "DigestSigner | None" = None) -> dict[str, Any]:
    """Append one record to the chain inside the caller's transaction and return it.

    With a ``signer``, a signed digest of the chain head is written too when one is due.
    """
    record = build_record(draft, event_id=event_id, request_id=request_id, event_time=event_time)
    record_json = canonical_json(record)
    head = _lock_head(db)
    columns = {**index_columns(record), "seq": head.seq + 1, "event_time": event_time,
               "deliver_at": event_time + timedelta(seconds=delay_s), "record": record_json, "prev_hash": head.hash,
               "chain_version": CHAIN_VERSION}
    digest = row_hash(columns)
    db.add(AuditEvent(**columns, hash=digest))
    head.seq += 1
    head.hash = digest
    if signer is not None:  # the signer is digests' (this module is below it: digests chain over its records)
        signer.sign_if_due(db, head.seq, head.hash, event_time)
    return record


@dataclass
class EventFilter:
    """LookupEvents filters. Every field is optional; all given ones must match."""

    account_id: str | None = None
    event_name: str | None = None
    service_name: str | None = None
    actor: str | None = None
    user_name: str | None = None
    session_id: str | None = None
    resource_id: str | None = None
    error_code: str | None = None  # a code, or "*" for any error, or "none" for successes only
    start_time: datetime | None = None
    end_time: datetime | None = None
    delivered_by: datetime | None = None  # hide records whose delivery time has not come


def _apply(stmt: Any, flt: EventFilter) -> Any:
    conditions = {
        AuditEvent.account_id: flt.account_id,
        AuditEvent.event_name: flt.event_name,
        AuditEvent.service_name: flt.service_name,
        AuditEvent.actor: flt.actor,
        AuditEvent.user_name: flt.user_name,
        AuditEvent.session_id: flt.session_id,
    }
    for column, value in conditions.items():
        if value is not None:
            stmt = stmt.where(column == value)
    if flt.resource_id:
        stmt = stmt.where(AuditEvent.resource_ids.contains(f" {flt.resource_id} "))
    if flt.error_code == "*":
        stmt = stmt.where(AuditEvent.error_code.is_not(None))
    elif flt.error_code == "none":
        stmt = stmt.where(AuditEvent.error_code.is_(None))
    elif flt.error_code:
        stmt = stmt.where(AuditEvent.error_code == flt.error_code)
    if flt.start_time:
        stmt = stmt.where(AuditEvent.event_time >= flt.start_time)
    if flt.end_time:
        stmt = stmt.where(AuditEvent.event_time <= flt.end_time)
    if flt.delivered_by:
        stmt = stmt.where(AuditEvent.deliver_at <= flt.delivered_by)
    return stmt


def lookup(db: Session, flt: EventFilter, *, page_number: int = 1, page_size: int = 50) -> tuple[list[dict[str, Any]], int]:
    """Matching records, newest first, one page at a time, and the total count."""
    from sqlalchemy import func

    total = db.execute(_apply(select(func.count()).select_from(AuditEvent), flt)).scalar_one()
    if (page_number - 1) * page_size >= total:  # past the end (and no OFFSET beyond SQL's 64-bit integers)
        return [], total
    stmt = _apply(select(AuditEvent.record), flt).order_by(AuditEvent.seq.desc())
    rows = db.execute(stmt.offset((page_number - 1) * page_size).limit(page_size)).scalars()
    return [load_record(r) for r in rows], total


def load_record(record_json: str) -> dict[str, Any]:
    """A stored record as a dict. Records written before ``bounds`` existed may hold a bare NaN or
    Infinity, which no JSON response can carry: they come back as the strings "NaN"/"Infinity"."""
    return json.loads(record_json, parse_constant=str)


def export_lines(db: Session, flt: EventFilter | None = None) -> Iterator[str]:
    """Records oldest first, each as the exact JSON line that was hashed (JSONL)."""
    stmt = _apply(select(AuditEvent.record), flt or EventFilter()).order_by(AuditEvent.seq)
    for record in db.execute(stmt.execution_options(yield_per=1000)).scalars():
        yield record


@dataclass
class ChainReport:
    ok: bool
    records: int
    first_bad_seq: int | None = None
    problem: str | None = None
    head_seq: int = 0
    head_hash: str = GENESIS_HASH


def verify_chain(db: Session) -> ChainReport:
    """Recompute the chain from the genesis hash; report the first record that does not fit."""
    expected_prev = GENESIS_HASH
    count = 0
    expected_seq = 1
    newest_version = 1
    stmt = select(AuditEvent).order_by(AuditEvent.seq).execution_options(yield_per=1000)
    for event in db.execute(stmt).scalars():
        count += 1
        problem = _row_problem(event, expected_seq, expected_prev, newest_version)
        if problem is not None:
            return ChainReport(False, count, expected_seq if "missing" in problem else event.seq, problem)
        newest_version = max(newest_version, event.chain_version)
        expected_prev = event.hash
        expected_seq += 1
    head = db.get(ChainHead, 1)
    if head is not None and (head.seq != count or head.hash != expected_prev):
        return ChainReport(False, count, count + 1, "the chain head does not match the last record "
                                                    "(records after it were removed, or the head was moved)")
    return ChainReport(True, count, head_seq=count, head_hash=expected_prev)


def _row_problem(event: AuditEvent, expected_seq: int, expected_prev: str, newest_version: int) -> str | None:
    """Why ``event`` does not belong where it stands in the chain, or None."""
    if event.seq != expected_seq:
        return f"record {expected_seq} is missing"
    if event.chain_version not in (1, CHAIN_VERSION):
        return f"unknown chain version {event.chain_version}"
    if event.chain_version < newest_version:
        return f"chain version {event.chain_version} after a version {newest_version} record (a downgrade)"
    if event.prev_hash != expected_prev:
        return "previous-hash link broken"
    if stored_hash(event) != event.hash:
        what = "record content" if event.chain_version == 1 else "record or one of its columns"
        return f"{what} does not match its hash"
    try:
        record = json.loads(event.record)
        if event.chain_version == 1:  # version 1 wrote these four columns unclipped and hashed none of them
            identity = record.get("userIdentity") or {}
            expected = {"event_name": record.get("eventName"), "event_id": record.get("eventId"),
                        "actor": record.get("actor"), "account_id": identity.get("accountId")}
        else:
            expected = index_columns(record)
    except (ValueError, KeyError, TypeError, AttributeError):
        return "the record is not a valid audit record"
    for name, value in expected.items():
        if getattr(event, name) != value:
            return f"index column {name} disagrees with the record"
    if record.get("eventTime") != format_time(event.event_time) or event.deliver_at < event.event_time:
        return "event_time or deliver_at disagrees with the record"
    return None
