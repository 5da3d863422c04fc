"""The admin API: accounts, snapshots, the clock and the trail, for operators and the rollout system.

Reachable only with the admin bearer token. Tenant credentials (cookies, access keys) are never
looked at here, so no tenant can reach it.
"""

from __future__ import annotations

import hmac
import time
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from stratus.api.dispatch import record_service_events
from stratus.audit.trail import EventFilter, export_lines, verify_chain
from stratus.core import accounts as account_ops
from stratus.core import snapshots
from stratus.core.clock import ManualClock, format_time
from stratus.core.errors import ApiError, not_found
from stratus.core.identity import AccessKey, Account, RamUser
from stratus.core.quotas import DEFAULT_QUOTAS
from stratus.releases import RELEASES
from stratus.runtime import Runtime

IDENTITY_TABLES = {"ram_users", "access_keys"}


def require_admin(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    header = request.headers.get("authorization", "")
    expected = f"Bearer {runtime.settings.admin_token}"
    if not hmac.compare_digest(header.encode(), expected.encode()):
        raise HTTPException(403, detail={"Code": "Forbidden", "Message": "The admin API needs the admin bearer token."})
    return runtime


router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewAccount(_Body):
    alias: str
    password: str | None = None
    balance_cents: int = Field(100_000, ge=0)
    display_name: str = ""
    release: str | None = None


class NewUser(_Body):
    name: str
    password: str | None = None
    display_name: str = ""
    with_access_key: bool = False


class NewKey(_Body):
    actor: str = "sdk"
    user_name: str | None = None


class KeyStatusBody(_Body):
    status: Literal["Active", "Inactive"]


class ReleaseBody(_Body):
    release: str | None


class BalanceBody(_Body):
    balance_cents: int = Field(ge=0)


class ResetBody(_Body):
    balance_cents: int | None = Field(None, ge=0)


class SnapshotBody(_Body):
    name: str = ""


class AdvanceBody(_Body):
    seconds: float = Field(ge=0)


def _fail(err: ApiError) -> HTTPException:
    return HTTPException(err.status, detail={"Code": err.code, "Message": err.message})


def _settle(runtime: Runtime, account_id: str) -> None:
    """Apply due lifecycle transitions first, so admin operations see current state."""
    with runtime.write_lock, runtime.session() as db:
        account_ops.get_account(db, account_id)
        record_service_events(runtime, db, account_id, runtime.clock.now())
        db.commit()


def _account_summary(account: Account) -> dict[str, Any]:
    return {"account_id": account.id, "alias": account.alias, "balance_cents": account.balance_cents,
            "release": account.release, "quotas": account.quotas}


@router.post("/accounts")
def create_account(body: NewAccount, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    if body.release is not None and body.release not in RELEASES:
        raise _fail(ApiError("InvalidParameter.Release", f"Unknown release {body.release!r}."))
    with runtime.write_lock, runtime.session() as db:
        try:
            creds = account_ops.create_account(
                db, runtime.ids, runtime.clock.now(), alias=body.alias, password=body.password,
                balance_cents=body.balance_cents, display_name=body.display_name, release=body.release,
            )
        except ApiError as err:
            raise _fail(err) from None
        db.commit()
    return creds.as_dict()


@router.get("/accounts")
def list_accounts(runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    with runtime.session() as db:
        return [_account_summary(a) for a in db.execute(select(Account).order_by(Account.created_at, Account.id)).scalars()]


@router.get("/accounts/{account_id}")
def get_account(account_id: str, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    with runtime.session() as db:
        try:
            return _account_summary(account_ops.get_account(db, account_id))
        except ApiError as err:
            raise _fail(err) from None


@router.post("/accounts/{account_id}/users")
def create_user(account_id: str, body: NewUser, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    with runtime.write_lock, runtime.session() as db:
        try:
            account = account_ops.get_account(db, account_id)
            now = runtime.clock.now()
            user = account_ops.create_ram_user(db, runtime.ids, now, account_id=account_id, name=body.name,
                                               password=body.password, display_name=body.display_name)
            out: dict[str, Any] = {"user_id": user.id, "user_name": user.name, "login_name": f"{user.name}@{account.alias}"}
            if body.with_access_key:
                key = account_ops.create_access_key(db, runtime.ids, now, account_id=account_id, user_id=user.id)
                out.update(access_key_id=key.id, access_key_secret=key.secret)
        except ApiError as err:
            raise _fail(err) from None
        db.commit()
        return out


@router.post("/accounts/{account_id}/access-keys")
def create_key(account_id: str, body: NewKey, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    with runtime.write_lock, runtime.session() as db:
        try:
            account_ops.get_account(db, account_id)
            user_id = None
            if body.user_name:
                user = db.execute(select(RamUser).where(RamUser.account_id == account_id, RamUser.name == body.user_name)).scalar_one_or_none()
                if user is None:
                    raise not_found("user", body.user_name)
                user_id = user.id
            key = account_ops.create_access_key(db, runtime.ids, runtime.clock.now(), account_id=account_id,
                                                actor=body.actor, user_id=user_id)
        except ApiError as err:
            raise _fail(err) from None
        db.commit()
        return {"access_key_id": key.id, "access_key_secret": key.secret, "actor": key.actor}


@router.get("/accounts/{account_id}/access-keys")
def list_keys(account_id: str, runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    """The account's access keys without their secrets, so an operator can see what is active."""
    with runtime.session() as db:
        try:
            account_ops.get_account(db, account_id)
        except ApiError as err:
            raise _fail(err) from None
        keys = db.execute(select(AccessKey).where(AccessKey.account_id == account_id)
                          .order_by(AccessKey.created_at, AccessKey.id)).scalars()
        return [_key_summary(key) for key in keys]


@router.put("/accounts/{account_id}/access-keys/{key_id}")
def set_key_status(account_id: str, key_id: str, body: KeyStatusBody,
                   runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    """Disable (or re-enable) one key: credential rotation retires the old key without deleting its history."""
    with runtime.write_lock, runtime.session() as db:
        key = db.get(AccessKey, key_id)
        if key is None or key.account_id != account_id:
            raise _fail(not_found("access key", key_id))
        key.status = body.status
        db.commit()
        return _key_summary(key)


def _key_summary(key: AccessKey) -> dict[str, Any]:
    return {"access_key_id": key.id, "actor": key.actor, "status": key.status, "user_id": key.user_id,
            "created_at": format_time(key.created_at)}


@router.put("/accounts/{account_id}/release")
def set_release(account_id: str, body: ReleaseBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    if body.release is not None and body.release not in RELEASES:
        raise _fail(ApiError("InvalidParameter.Release", f"Unknown release {body.release!r}; known: {', '.join(RELEASES)}."))
    return _update_account(runtime, account_id, release=body.release)


@router.put("/accounts/{account_id}/balance")
def set_balance(account_id: str, body: BalanceBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    return _update_account(runtime, account_id, balance_cents=body.balance_cents)


@router.put("/accounts/{account_id}/quotas")
def set_quotas(account_id: str, body: dict[str, int], runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    unknown = set(body) - set(DEFAULT_QUOTAS)
    if unknown:
        raise _fail(ApiError("InvalidParameter.Quota", f"Unknown quotas {sorted(unknown)}; known: {sorted(DEFAULT_QUOTAS)}."))
    return _update_account(runtime, account_id, quotas=body)


def _update_account(runtime: Runtime, account_id: str, **values: Any) -> dict[str, Any]:
    with runtime.write_lock, runtime.session() as db:
        try:
            account = account_ops.get_account(db, account_id)
        except ApiError as err:
            raise _fail(err) from None
        if "quotas" in values:
            values["quotas"] = {**(account.quotas or {}), **values["quotas"]}
        for name, value in values.items():
            setattr(account, name, value)
        db.commit()
        return _account_summary(account)


@router.post("/accounts/{account_id}/reset")
def reset_account(account_id: str, body: ResetBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    """Delete every resource of the account (users and keys stay), optionally set the balance."""
    with runtime.write_lock, runtime.session() as db:
        try:
            account = account_ops.get_account(db, account_id)
        except ApiError as err:
            raise _fail(err) from None
        snapshots.clear_resources(db, account_id, keep=IDENTITY_TABLES)
        if body.balance_cents is not None:
            account.balance_cents = body.balance_cents
        db.commit()
        return _account_summary(account)


@router.post("/accounts/{account_id}/snapshots")
def snapshot_account(account_id: str, body: SnapshotBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    try:
        _settle(runtime, account_id)
    except ApiError as err:
        raise _fail(err) from None
    started = time.perf_counter()
    with runtime.write_lock, runtime.session() as db:
        state = snapshots.capture(db, account_id)
        snapshot_id = runtime.ids.resource_id(db, "snap")
        db.add(snapshots.AccountSnapshot(id=snapshot_id, account_id=account_id, name=body.name,
                                         created_at=runtime.clock.now(), payload=snapshots.encode(state)))
        db.commit()
    runtime.snapshot_cache[snapshot_id] = state
    rows = sum(len(v) for v in state.values())
    return {"snapshot_id": snapshot_id, "account_id": account_id, "rows": rows,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 3)}


@router.get("/accounts/{account_id}/snapshots")
def list_snapshots(account_id: str, runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    with runtime.session() as db:
        rows = db.execute(select(snapshots.AccountSnapshot).where(snapshots.AccountSnapshot.account_id == account_id)
                          .order_by(snapshots.AccountSnapshot.created_at)).scalars()
        return [{"snapshot_id": s.id, "name": s.name, "created_at": format_time(s.created_at)} for s in rows]


@router.post("/snapshots/{snapshot_id}/restore")
def restore_snapshot(snapshot_id: str, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    started = time.perf_counter()
    with runtime.write_lock, runtime.session() as db:
        stored = db.get(snapshots.AccountSnapshot, snapshot_id)
        if stored is None:
            raise _fail(not_found("snapshot", snapshot_id))
        state = runtime.snapshot_cache.get(snapshot_id)
        if state is None:
            state = runtime.snapshot_cache[snapshot_id] = snapshots.decode(stored.payload)
        snapshots.apply(db, stored.account_id, state)
        db.commit()
    return {"snapshot_id": snapshot_id, "account_id": stored.account_id,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 3)}


@router.delete("/snapshots/{snapshot_id}")
def delete_snapshot(snapshot_id: str, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    with runtime.write_lock, runtime.session() as db:
        stored = db.get(snapshots.AccountSnapshot, snapshot_id)
        if stored is None:
            raise _fail(not_found("snapshot", snapshot_id))
        db.delete(stored)
        db.commit()
    runtime.snapshot_cache.pop(snapshot_id, None)
    return {"deleted": snapshot_id}


@router.get("/accounts/{account_id}/state", response_class=PlainTextResponse)
def account_state(account_id: str, runtime: Runtime = Depends(require_admin)) -> str:
    """The account's complete state as canonical JSON (stable byte for byte)."""
    try:
        _settle(runtime, account_id)
        with runtime.session() as db:
            return snapshots.export_state(db, account_id)
    except ApiError as err:
        raise _fail(err) from None


@router.get("/events", response_class=PlainTextResponse)
def export_events(account_id: str | None = None, include_undelivered: bool = False,
                  runtime: Runtime = Depends(require_admin)) -> str:
    """The audit trail as JSONL, oldest first, exactly as hashed."""
    flt = EventFilter(account_id=account_id, delivered_by=None if include_undelivered else runtime.clock.now())
    with runtime.session() as db:
        return "".join(line + "\n" for line in export_lines(db, flt))


@router.get("/trail/verify")
def verify_trail(runtime: Runtime = Depends(require_admin)) -> JSONResponse:
    with runtime.session() as db:
        report = verify_chain(db)
    return JSONResponse(report.__dict__, status_code=200 if report.ok else 409)


@router.get("/clock")
def get_clock(runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    return {"now": format_time(runtime.clock.now()), "kind": runtime.settings.clock}


@router.post("/clock/advance")
def advance_clock(body: AdvanceBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    if not isinstance(runtime.clock, ManualClock):
        raise _fail(ApiError("Forbidden.Clock", "Only a manual clock can be advanced (start with --clock manual).", 409))
    return {"now": format_time(runtime.clock.advance(body.seconds))}
