"""An append-only audit trail with a hash chain, shaped like ActionTrail / CloudTrail.

Each record is stored as the exact canonical JSON that was hashed, so an export is
byte-for-byte what was written and ``verify_chain`` can prove that nothing was altered, removed or
reordered. Indexed columns beside the JSON serve lookups only; verify checks they agree with it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Iterator

from sqlalchemy import Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.clock import format_time
from stratus.core.db import Base

EVENT_VERSION = "1"
GENESIS_HASH = "0" * 64
SECRET_PARAMETERS = {"Password", "LoginPassword", "NewPassword", "AccessKeySecret", "Secret", "PrivateKeyBody"}


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


class ChainHead(Base):
    """The last record's sequence number and hash; locked while appending so the chain never forks."""

    __tablename__ = "audit_chain_head"
    __snapshot__ = False

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    hash: Mapped[str] = mapped_column(String(64), default=GENESIS_HASH)


@dataclass
class EventDraft:
    """What a caller knows about an event; ``append`` adds ids, times, the chain."""

    event_name: str
    event_type: str  # ApiCall | ConsoleSignin | ServiceEvent
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


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def redact(params: dict[str, Any] | None) -> dict[str, Any] | None:
    """Mask secrets before they reach the trail, recursively, like real audit services do."""
    if params is None:
        return None

    def scrub(value: Any, key: str = "") -> Any:
        if key in SECRET_PARAMETERS and value not in (None, ""):
            return "******"
        if isinstance(value, dict):
            return {k: scrub(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return scrub(params)


def chain_hash(prev_hash: str, record_json: str) -> str:
    return hashlib.sha256((prev_hash + record_json).encode()).hexdigest()


def _lock_head(db: Session) -> ChainHead:
    head = db.execute(select(ChainHead).where(ChainHead.id == 1).with_for_update()).scalar_one_or_none()
    if head is None:
        head = ChainHead(id=1, seq=0, hash=GENESIS_HASH)
        db.add(head)
        db.flush()
    return head


def append(db: Session, draft: EventDraft, *, event_id: str, request_id: str, event_time: datetime, delay_s: float) -> dict[str, Any]:
    """Append one record to the chain inside the caller's transaction and return it."""
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
        "requestParameters": redact(draft.request_parameters),
        "responseElements": redact(draft.response_elements),
        "errorCode": draft.error_code,
        "errorMessage": draft.error_message,
        "referencedResources": {k: sorted(set(v)) for k, v in sorted(draft.referenced_resources.items())},
        "sourceIpAddress": draft.source_ip,
        "userAgent": draft.user_agent,
        "userIdentity": draft.user_identity,
        "actor": draft.actor,
    }
    record_json = canonical_json(record)
    head = _lock_head(db)
    digest = chain_hash(head.hash, record_json)
    resource_ids = sorted({rid for ids in record["referencedResources"].values() for rid in ids})
    db.add(
        AuditEvent(
            seq=head.seq + 1,
            event_id=event_id,
            event_time=event_time,
            deliver_at=event_time + timedelta(seconds=delay_s),
            account_id=draft.user_identity["accountId"],
            event_name=draft.event_name,
            event_type=draft.event_type,
            event_rw=draft.event_rw,
            service_name=draft.service_name,
            actor=draft.actor,
            user_name=draft.user_identity.get("userName") or "",
            session_id=draft.user_identity.get("sessionId"),
            error_code=draft.error_code,
            resource_ids=" " + " ".join(resource_ids) + " " if resource_ids else "",
            record=record_json,
            prev_hash=head.hash,
            hash=digest,
        )
    )
    head.seq += 1
    head.hash = digest
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
    stmt = _apply(select(AuditEvent.record), flt).order_by(AuditEvent.seq.desc())
    rows = db.execute(stmt.offset((page_number - 1) * page_size).limit(page_size)).scalars()
    return [json.loads(r) for r in rows], total


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


def verify_chain(db: Session) -> ChainReport:
    """Recompute the chain from the genesis hash; report the first record that does not fit."""
    expected_prev = GENESIS_HASH
    count = 0
    expected_seq = 1
    for event in db.execute(select(AuditEvent).order_by(AuditEvent.seq).execution_options(yield_per=1000)).scalars():
        count += 1
        if event.seq != expected_seq:
            return ChainReport(False, count, expected_seq, f"record {expected_seq} is missing")
        if event.prev_hash != expected_prev:
            return ChainReport(False, count, event.seq, "previous-hash link broken")
        if chain_hash(event.prev_hash, event.record) != event.hash:
            return ChainReport(False, count, event.seq, "record content does not match its hash")
        parsed = json.loads(event.record)
        if (parsed["eventName"], parsed["eventId"], parsed["actor"], parsed["userIdentity"]["accountId"]) != (
            event.event_name, event.event_id, event.actor, event.account_id
        ):
            return ChainReport(False, count, event.seq, "index columns disagree with the record")
        expected_prev = event.hash
        expected_seq += 1
    head = db.get(ChainHead, 1)
    if head is not None and (head.seq != count or head.hash != expected_prev):
        return ChainReport(False, count, count + 1, "records after the last one were removed")
    return ChainReport(True, count)
