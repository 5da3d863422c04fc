"""The admin API: accounts, snapshots, the clock and the trail, for operators and the rollout system.

Reachable only with the admin bearer token. Tenant credentials (cookies, access keys) are never
looked at here, so no tenant can reach it. Every operation is audited (``@audited``), whether it
comes over HTTP or from the ``stratus`` CLI, and so is every request with a wrong token: an
operator's actions are as accountable as a tenant's. Admin records belong to the pseudo-account
``admin`` (no tenant sees them; the target account is in their referencedResources).
"""

from __future__ import annotations

import functools
import hmac
import inspect
import logging
import time
from contextvars import ContextVar
from typing import Annotated, Any, Callable, Literal, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from stratus.api.dispatch import record_service_events
from stratus.api.failures import audit_failure, operation_name
from stratus.audit.digests import AuditDigest, as_file, sign_now
from stratus.audit.trail import EventDraft, EventFilter, export_lines
from stratus.audit.verify import verify_trail as verify_whole_trail
from stratus.core import accounts as account_ops
from stratus.core import snapshots
from stratus.core.clock import ManualClock, format_time
from stratus.core.errors import ApiError, not_found
from stratus.core.identity import AccessKey, Account, RamUser
from stratus.core.quotas import DEFAULT_QUOTAS
from stratus.core.regions import DEFAULT_REGION
from stratus.releases import RELEASES
from stratus.runtime import Runtime

IDENTITY_TABLES = {"ram_users", "access_keys"}
ADMIN_ACCOUNT = "admin"
MAX_CENTS = 10**15  # ten trillion dollars: far above any balance, far below a 64-bit column's limit
MAX_QUOTA = 1_000_000
MAX_ADVANCE_S = 10 * 366 * 24 * 3600.0
log = logging.getLogger("stratus.admin")
# Where the current admin request comes from; the CLI, which calls these functions directly, is "local".
_CALLER: ContextVar[tuple[str, str]] = ContextVar("stratus_admin_caller", default=("local", "stratus-cli"))
F = TypeVar("F", bound=Callable[..., Any])


async def require_admin(request: Request) -> Runtime:
    """The bearer token check. Async on purpose: the caller it records reaches the endpoint's thread."""
    runtime: Runtime = request.app.state.runtime
    header = request.headers.get("authorization", "")
    expected = f"Bearer {runtime.admin_token}"
    source_ip = request.client.host if request.client else ""
    user_agent = request.headers.get("user-agent", "")
    if not hmac.compare_digest(header.encode(), expected.encode()):
        err = ApiError("Forbidden", "The admin API needs the admin bearer token.", 403)
        await run_in_threadpool(audit_failure, runtime, err, method=request.method, path=request.url.path,
                                source_ip=source_ip, user_agent=user_agent, route_name=_route_name(request.scope))
        raise HTTPException(403, detail={"Code": err.code, "Message": err.message})
    _CALLER.set((source_ip, user_agent))
    return runtime


def _route_name(scope: dict[str, Any]) -> str | None:
    route = scope.get("route")
    return getattr(route, "name", None)


def admin_identity() -> dict[str, Any]:
    return {"type": "admin", "accountId": ADMIN_ACCOUNT, "principalId": ADMIN_ACCOUNT, "userName": "admin",
            "accessKeyId": None, "sessionId": None}


def audited(rw: Literal["Read", "Write"]) -> Callable[[F], F]:
    """Record each call of an admin operation (its arguments, its outcome) as one ``AdminCall`` event.

    An unexpected exception is recorded as ``InternalError`` and answered as a JSON 500, never a
    bare crash. The record is written after the operation, in its own transaction.
    """

    def decorate(fn: F) -> F:
        name = operation_name(fn.__name__)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            arguments = dict(signature.bind(*args, **kwargs).arguments)
            runtime: Runtime = arguments.pop("runtime")
            params = {k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in arguments.items()}
            try:
                result = fn(*args, **kwargs)
            except HTTPException as exc:
                detail = exc.detail if isinstance(exc.detail, dict) else {"Code": "HttpError", "Message": str(exc.detail)}
                _record(runtime, name, rw, params, None, detail.get("Code"), detail.get("Message"))
                raise
            except Exception:
                log.exception("admin operation %s failed", name)
                _record(runtime, name, rw, params, None, "InternalError", "The admin operation failed unexpectedly.")
                raise HTTPException(500, detail={"Code": "InternalError",
                                                 "Message": "The admin operation failed unexpectedly."}) from None
            _record(runtime, name, rw, params, result if rw == "Write" and isinstance(result, dict) else None)
            return result

        return wrapper  # type: ignore[return-value]

    return decorate


def _record(runtime: Runtime, name: str, rw: str, params: dict[str, Any], result: dict[str, Any] | None,
            code: str | None = None, message: str | None = None) -> None:
    referenced: dict[str, list[str]] = {}
    for source in (params, result or {}):
        if isinstance(source.get("account_id"), str):
            referenced.setdefault("ACS::Account", []).append(source["account_id"])
        if isinstance(source.get("snapshot_id"), str):
            referenced.setdefault("ACS::Snapshot", []).append(source["snapshot_id"])
    source_ip, user_agent = _CALLER.get()
    draft = EventDraft(event_name=name, event_type="AdminCall", event_rw=rw, service_name="admin",
                       region=DEFAULT_REGION, user_identity=admin_identity(), actor="admin",
                       request_parameters=params, response_elements=result, error_code=code, error_message=message,
                       referenced_resources=referenced, source_ip=source_ip, user_agent=user_agent)
    with runtime.write_lock, runtime.session() as db:
        runtime.audit(db, draft, runtime.clock.now())
        db.commit()


router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[Depends(require_admin)])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewAccount(_Body):
    alias: str = Field(max_length=64)
    password: str | None = Field(None, max_length=256)
    balance_cents: int = Field(100_000, ge=0, le=MAX_CENTS)
    display_name: str = Field("", max_length=128)
    release: str | None = Field(None, max_length=64)


class NewUser(_Body):
    name: str = Field(max_length=64)
    password: str | None = Field(None, max_length=256)
    display_name: str = Field("", max_length=128)
    with_access_key: bool = False


class NewKey(_Body):
    actor: str = Field("sdk", max_length=16)
    user_name: str | None = Field(None, max_length=64)


class KeyStatusBody(_Body):
    status: Literal["Active", "Inactive"]


class ReleaseBody(_Body):
    release: str | None = Field(max_length=64)


class BalanceBody(_Body):
    balance_cents: int = Field(ge=0, le=MAX_CENTS)


class ResetBody(_Body):
    balance_cents: int | None = Field(None, ge=0, le=MAX_CENTS)


class SnapshotBody(_Body):
    name: str = Field("", max_length=128)


class AdvanceBody(_Body):
    seconds: float = Field(ge=0, le=MAX_ADVANCE_S, allow_inf_nan=False)


Quota = Annotated[int, Field(ge=0, le=MAX_QUOTA)]


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
@audited("Write")
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
@audited("Read")
def list_accounts(runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    with runtime.session() as db:
        return [_account_summary(a) for a in db.execute(select(Account).order_by(Account.created_at, Account.id)).scalars()]


@router.get("/accounts/{account_id}")
@audited("Read")
def get_account(account_id: str, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    with runtime.session() as db:
        try:
            return _account_summary(account_ops.get_account(db, account_id))
        except ApiError as err:
            raise _fail(err) from None


@router.post("/accounts/{account_id}/users")
@audited("Write")
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
@audited("Write")
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
@audited("Read")
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
@audited("Write")
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
@audited("Write")
def set_release(account_id: str, body: ReleaseBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    if body.release is not None and body.release not in RELEASES:
        raise _fail(ApiError("InvalidParameter.Release", f"Unknown release {body.release!r}; known: {', '.join(RELEASES)}."))
    return _update_account(runtime, account_id, release=body.release)


@router.put("/accounts/{account_id}/balance")
@audited("Write")
def set_balance(account_id: str, body: BalanceBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    return _update_account(runtime, account_id, balance_cents=body.balance_cents)


@router.put("/accounts/{account_id}/quotas")
@audited("Write")
def set_quotas(account_id: str, body: dict[str, Quota], runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
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
@audited("Write")
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
@audited("Write")
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
@audited("Read")
def list_snapshots(account_id: str, runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    with runtime.session() as db:
        rows = db.execute(select(snapshots.AccountSnapshot).where(snapshots.AccountSnapshot.account_id == account_id)
                          .order_by(snapshots.AccountSnapshot.created_at)).scalars()
        return [{"snapshot_id": s.id, "name": s.name, "created_at": format_time(s.created_at)} for s in rows]


@router.post("/snapshots/{snapshot_id}/restore")
@audited("Write")
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
@audited("Write")
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
@audited("Read")
def account_state(account_id: str, runtime: Runtime = Depends(require_admin)) -> str:
    """The account's complete state as canonical JSON (stable byte for byte)."""
    try:
        _settle(runtime, account_id)
        with runtime.session() as db:
            return snapshots.export_state(db, account_id)
    except ApiError as err:
        raise _fail(err) from None


@router.get("/events", response_class=PlainTextResponse)
@audited("Read")
def export_events(account_id: str | None = None, include_undelivered: bool = False,
                  runtime: Runtime = Depends(require_admin)) -> str:
    """The audit trail as JSONL, oldest first, exactly as hashed."""
    flt = EventFilter(account_id=account_id, delivered_by=None if include_undelivered else runtime.clock.now())
    with runtime.session() as db:
        return "".join(line + "\n" for line in export_lines(db, flt))


@router.get("/trail/verify")
@audited("Read")
def verify_trail(runtime: Runtime = Depends(require_admin)) -> JSONResponse:
    """The hash chain and every signed digest (200 when intact, 409 naming the first problem)."""
    with runtime.session() as db:
        report = verify_whole_trail(db, runtime.digest_signer)
    return JSONResponse(report.to_dict(), status_code=200 if report.ok else 409)


@router.get("/trail/digests")
@audited("Read")
def list_digests(runtime: Runtime = Depends(require_admin)) -> list[dict[str, Any]]:
    """Every signed digest, oldest first, in the exported file form (save them off this host)."""
    with runtime.session() as db:
        return [as_file(d) for d in db.execute(select(AuditDigest).order_by(AuditDigest.seq)).scalars()]


@router.post("/trail/digests")
@audited("Write")
def create_digest(runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    """Anchor the chain head now (no new digest when the newest one already covers it)."""
    with runtime.write_lock, runtime.session() as db:
        digest = sign_now(db, runtime.digest_signer, runtime.clock.now())
        db.commit()
        return {"created": digest is not None, "digest": as_file(digest) if digest is not None else None}


@router.get("/clock")
@audited("Read")
def get_clock(runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    return {"now": format_time(runtime.clock.now()), "kind": runtime.settings.clock}


@router.post("/clock/advance")
@audited("Write")
def advance_clock(body: AdvanceBody, runtime: Runtime = Depends(require_admin)) -> dict[str, Any]:
    if not isinstance(runtime.clock, ManualClock):
        raise _fail(ApiError("Forbidden.Clock", "Only a manual clock can be advanced (start with --clock manual).", 409))
    return {"now": format_time(runtime.clock.advance(body.seconds))}
