"""Verify the whole trail: the hash chain, then the signed digests that anchor it.

The chain check (``trail.verify_chain``) finds any record that was edited, removed or reordered
*without* re-chaining. The digest check finds what re-chaining and truncation hide: each digest
must carry a valid signature by this server's key, link to the previous digest, and name a head
(sequence number and hash) that the chain still has. Exported digest files, when given, are
checked the same way and must all still be in the database, which exposes digests deleted along
with the records they covered.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from stratus.audit.digests import SIGNATURE_FIELD, AuditDigest, DigestSigner
from stratus.audit.trail import AuditEvent, canonical_json, verify_chain


@dataclass
class TrailReport:
    ok: bool
    records: int
    first_bad_seq: int | None = None
    problem: str | None = None
    digests: int = 0
    anchored_records: int = 0  # records 1..anchored_records are covered by a verified digest
    exported_digests_checked: int = 0

    @property
    def unanchored_records(self) -> int:
        return self.records - self.anchored_records

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "unanchored_records": self.unanchored_records}


def verify_trail(db: Session, signer: DigestSigner, exported: list[dict[str, Any]] | None = None) -> TrailReport:
    """Check the chain, then every stored digest, then every exported digest file given."""
    chain = verify_chain(db)
    if not chain.ok:
        return TrailReport(False, chain.records, chain.first_bad_seq, chain.problem)
    report = TrailReport(True, chain.records)
    stored: dict[int, AuditDigest] = {}
    previous: AuditDigest | None = None
    for digest in db.execute(select(AuditDigest).order_by(AuditDigest.seq)).scalars():
        problem = _stored_problem(db, signer, digest, previous, chain.records)
        if problem is not None:
            return _fail(report, digest.seq, problem)
        stored[digest.seq] = digest
        report.digests += 1
        report.anchored_records = digest.last_seq
        previous = digest
    for document in exported or []:
        problem = _exported_problem(db, signer, document, stored, chain.records)
        if problem is not None:
            return _fail(report, document.get("digestSeq"), problem)
        report.exported_digests_checked += 1
    return report


def _fail(report: TrailReport, digest_seq: Any, problem: str) -> TrailReport:
    report.ok = False
    report.problem = f"digest {digest_seq}: {problem}"
    return report


def _stored_problem(db: Session, signer: DigestSigner, digest: AuditDigest, previous: AuditDigest | None,
                    records: int) -> str | None:
    expected_seq = 1 if previous is None else previous.seq + 1
    if digest.seq != expected_seq:
        return f"digest {expected_seq} is missing (digests were deleted)"
    try:
        document = json.loads(digest.document)
    except ValueError:
        return "the stored document is not JSON"
    problem = _document_problem(signer, document, digest.signature, records, db)
    if problem is not None:
        return problem
    fields = (document.get("digestSeq"), document.get("lastSeq"), document.get("headHash"))
    if fields != (digest.seq, digest.last_seq, digest.head_hash):
        return "the digest row's columns disagree with its signed document"
    if previous is None:
        if document.get("previousDigestSignature") is not None:
            return "the first digest names a previous one (earlier digests were deleted)"
    elif (document.get("previousDigestSignature") != previous.signature or digest.last_seq < previous.last_seq):
        return "it does not continue the previous digest"
    return None


def _document_problem(signer: DigestSigner, document: dict[str, Any], signature: str, records: int,
                      db: Session) -> str | None:
    """Signature, key and head checks shared by stored digests and exported files."""
    if document.get("keyId") != signer.key_id:
        return (f"signed with key {document.get('keyId')!r}, not this server's key {signer.key_id!r} "
                f"({signer.source}); was the key file replaced?")
    if not isinstance(signature, str) or not signer.verifies(canonical_json(document), signature):
        return "the signature does not match (the digest was altered or forged)"
    last_seq = document.get("lastSeq")
    if not isinstance(last_seq, int) or last_seq < 1:
        return "lastSeq is not a record number"
    if last_seq > records:
        return (f"it covers records up to {last_seq} but the trail has only {records}: "
                "records were removed and the chain head moved back")
    event = db.get(AuditEvent, last_seq)
    if event is None or event.hash != document.get("headHash"):
        return f"record {last_seq} no longer has the hash this digest signed: the chain was rewritten and re-chained"
    return None


def _exported_problem(db: Session, signer: DigestSigner, exported: dict[str, Any], stored: dict[int, AuditDigest],
                      records: int) -> str | None:
    document = {k: v for k, v in exported.items() if k != SIGNATURE_FIELD}
    signature = exported.get(SIGNATURE_FIELD)
    problem = _document_problem(signer, document, signature, records, db)
    if problem is not None:
        return f"(exported file) {problem}"
    seq = document.get("digestSeq")
    copy = stored.get(seq) if isinstance(seq, int) else None
    if copy is None:
        return "(exported file) it is missing from the database: digests were deleted"
    if copy.signature != signature:
        return "(exported file) the database holds a different digest under this number"
    return None
