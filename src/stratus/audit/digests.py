"""Signed digests that anchor the audit chain, like CloudTrail's digest files.

A hash chain shows that records fit together, not that they are the records that were written:
whoever can write the table can cut its tail and move the head back, or rewrite a record and
re-chain everything after it. A digest fixes the chain's state at a point in time — the head's
sequence number and hash — under an HMAC-SHA256 signature made with a key that is not in the
database. Digests are chained too (each names the previous one's signature), written inside
the same transaction as the record that made one due, and can be exported as one JSON file each.

Trust assumption: the key file (``<database>.audit-key`` beside a SQLite file, or the path in
``audit_key_file``) is readable only by the operator who runs stratus. Someone who can rewrite
the database but cannot read the key cannot make a digest that verifies. Someone who holds the
key too (root on the host) can forge anything stored on that host; digest files exported to
another machine still expose them, since a verifier compares the trail with those copies. The
records written after the newest digest are not anchored yet (at most ``every_records`` records
or ``every_seconds`` of virtual time, and a digest is also written on shutdown and on demand).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, String, Text, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.audit.trail import CHAIN_VERSION, ChainHead, canonical_json
from stratus.core.clock import format_time
from stratus.core.db import Base

DIGEST_VERSION = "1"
ALGORITHM = "HMAC-SHA256"
SIGNATURE_FIELD = "digestSignature"
KEY_BYTES = 32


class DigestKeyError(RuntimeError):
    """The digest key file exists but cannot be used; the message names the file."""


class DigestFileError(ValueError):
    """An exported digest file cannot be read; the message names the file."""


class AuditDigest(Base):
    """One signed digest: the chain covered records 1..``last_seq`` and its head was ``head_hash``."""

    __tablename__ = "audit_digests"
    __snapshot__ = False

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_seq: Mapped[int] = mapped_column(Integer)
    head_hash: Mapped[str] = mapped_column(String(64))
    end_time: Mapped[datetime]
    document: Mapped[str] = mapped_column(Text)  # the canonical JSON that was signed
    signature: Mapped[str] = mapped_column(String(64))


@dataclass(frozen=True)
class DigestSigner:
    """The server's digest key and how often a digest is due."""

    key: bytes
    source: str  # where the key lives: a file path, or "memory" for an in-memory database
    every_records: int = 100
    every_seconds: float = 300.0

    @property
    def key_id(self) -> str:
        """A fingerprint of the key, stored in each digest (never the key itself)."""
        return hashlib.sha256(b"stratus-audit-digest-key:" + self.key).hexdigest()[:16]

    def sign(self, document_json: str) -> str:
        return hmac.new(self.key, document_json.encode(), hashlib.sha256).hexdigest()

    def verifies(self, document_json: str, signature: str) -> bool:
        return hmac.compare_digest(self.sign(document_json), signature)

    def sign_if_due(self, db: Session, head_seq: int, head_hash: str, now: datetime) -> AuditDigest | None:
        """``sign_if_due`` with this signer: what ``trail.append`` calls inside the record's transaction."""
        return sign_if_due(db, self, head_seq, head_hash, now)


# --- the key ------------------------------------------------------------------------------------


def key_file_for(database_url: str, configured: str | None = None) -> Path | None:
    """Where the digest key of ``database_url`` lives; None for an in-memory database (a key per process).

    Beside a SQLite file; for a database server, one file per database in ``~/.stratus``, so several
    server processes on one database share it.
    """
    if configured:
        return Path(configured).expanduser()
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:" or url.query.get("mode") == "memory":
            return None
        return Path(url.database + ".audit-key")
    ident = hashlib.sha256(url.render_as_string(hide_password=True).encode()).hexdigest()[:16]
    return Path.home() / ".stratus" / f"audit-key-{ident}"


def load_signer(database_url: str, configured: str | None = None) -> DigestSigner:
    """The signer of this database's digests; the key file is created (mode 0600) on first use."""
    path = key_file_for(database_url, configured)
    if path is None:
        return DigestSigner(secrets.token_bytes(KEY_BYTES), "memory")
    return DigestSigner(_read_or_create_key(path), str(path))


def _read_or_create_key(path: Path) -> bytes:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process created it first: use theirs
            pass
        else:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(KEY_BYTES) + "\n")
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DigestKeyError(f"{path}: not a readable audit digest key ({exc})") from None
    if len(key) < 16:
        raise DigestKeyError(f"{path}: an audit digest key needs at least 16 bytes (32 hex characters)")
    return key


# --- writing digests ----------------------------------------------------------------------------


def latest_digest(db: Session) -> AuditDigest | None:
    return db.execute(select(AuditDigest).order_by(AuditDigest.seq.desc()).limit(1)).scalar_one_or_none()


def sign_if_due(db: Session, signer: DigestSigner, head_seq: int, head_hash: str, now: datetime) -> AuditDigest | None:
    """Write a digest of the head if ``every_records`` records or ``every_seconds`` passed since the last
    one (or none exists yet); called by ``append`` inside the record's transaction."""
    last = latest_digest(db)
    due = (last is None or head_seq - last.last_seq >= signer.every_records
           or (now - last.end_time).total_seconds() >= signer.every_seconds)
    return _write(db, signer, last, head_seq, head_hash, now) if due and head_seq > 0 else None


def sign_now(db: Session, signer: DigestSigner, now: datetime) -> AuditDigest | None:
    """Digest the current head unless the newest digest already covers it (on shutdown, on demand)."""
    head = db.execute(select(ChainHead).where(ChainHead.id == 1).with_for_update()).scalar_one_or_none()
    last = latest_digest(db)
    if head is None or head.seq == 0 or (last is not None and last.last_seq >= head.seq):
        return None
    return _write(db, signer, last, head.seq, head.hash, now)


def _write(db: Session, signer: DigestSigner, last: AuditDigest | None, head_seq: int, head_hash: str,
           now: datetime) -> AuditDigest:
    seq = 1 if last is None else last.seq + 1
    end_time = now if last is None or now >= last.end_time else last.end_time  # never before the previous one
    document = {
        "digestVersion": DIGEST_VERSION,
        "digestSeq": seq,
        "chainVersion": CHAIN_VERSION,
        "lastSeq": head_seq,
        "recordCount": head_seq,
        "headHash": head_hash,
        "digestEndTime": format_time(end_time),
        "previousDigestSeq": 0 if last is None else last.seq,
        "previousDigestSignature": None if last is None else last.signature,
        "keyId": signer.key_id,
        "signatureAlgorithm": ALGORITHM,
    }
    document_json = canonical_json(document)
    digest = AuditDigest(seq=seq, last_seq=head_seq, head_hash=head_hash, end_time=end_time, document=document_json,
                         signature=signer.sign(document_json))
    db.add(digest)
    db.flush()
    return digest


# --- digest files -------------------------------------------------------------------------------


def digest_file_name(seq: int) -> str:
    return f"stratus-digest-{seq:08d}.json"


def as_file(digest: AuditDigest) -> dict[str, Any]:
    """The exported form: the signed document with its signature added under ``digestSignature``."""
    return {**json.loads(digest.document), SIGNATURE_FIELD: digest.signature}


def export_digests(db: Session, directory: Path) -> list[Path]:
    """Write every digest not yet in ``directory`` as one file; existing files are left alone."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for digest in db.execute(select(AuditDigest).order_by(AuditDigest.seq)).scalars():
        path = directory / digest_file_name(digest.seq)
        if not path.exists():
            path.write_text(json.dumps(as_file(digest), indent=2, sort_keys=True) + "\n", encoding="utf-8")
            written.append(path)
    return written


def read_digest_files(directory: Path) -> list[dict[str, Any]]:
    """The digest files in ``directory`` (``stratus-digest-*.json``), oldest first."""
    files = sorted(directory.glob("stratus-digest-*.json"))
    out = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DigestFileError(f"{path}: not a digest file ({exc})") from None
        if not isinstance(data, dict) or SIGNATURE_FIELD not in data or "digestSeq" not in data:
            raise DigestFileError(f"{path}: not a digest file (no {SIGNATURE_FIELD} or digestSeq)")
        out.append(data)
    return out
