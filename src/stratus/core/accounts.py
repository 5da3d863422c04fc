"""Creating accounts and their credentials (used by the admin API, the seeder and tests)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from stratus.core.errors import ApiError, invalid_parameter, not_found
from stratus.core.identity import AccessKey, Account, ConsoleSession, Principal, RamUser, hash_password, hash_token
from stratus.core.ids import IdGenerator

_ALIAS = re.compile(r"^[a-z][a-z0-9-]{2,31}$")
SESSION_LIFETIME = timedelta(hours=12)


@dataclass
class NewAccount:
    """What a tenant gets when an account is created: a console login and two access keys."""

    account_id: str
    alias: str
    login_name: str
    password: str
    access_key_id: str
    access_key_secret: str
    provisioner_key_id: str
    provisioner_key_secret: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def create_account(
    db: Session, ids: IdGenerator, now: datetime, *, alias: str, password: str | None = None,
    balance_cents: int = 100_000, display_name: str = "", release: str | None = None,
) -> NewAccount:
    if not _ALIAS.match(alias):
        raise invalid_parameter("Alias", "An alias is 3-32 lower-case letters, digits or dashes, starting with a letter.")
    if db.execute(select(Account).where(Account.alias == alias)).scalar_one_or_none():
        raise ApiError("InvalidParameter.Alias", f"The alias {alias!r} is already taken.", 409)
    password = password or secrets.token_urlsafe(12)
    account_id = ids.numeric_id(db)
    db.add(Account(
        id=account_id, alias=alias, display_name=display_name or alias, balance_cents=balance_cents,
        release=release, root_password_hash=hash_password(password), quotas={}, created_at=now,
    ))
    db.flush()
    sdk = create_access_key(db, ids, now, account_id=account_id, actor="sdk")
    provisioner = create_access_key(db, ids, now, account_id=account_id, actor="provisioner")
    return NewAccount(account_id, alias, f"root@{alias}", password, sdk.id, sdk.secret, provisioner.id, provisioner.secret)


def create_access_key(db: Session, ids: IdGenerator, now: datetime, *, account_id: str, actor: str = "sdk",
                      user_id: str | None = None) -> AccessKey:
    if actor not in ("sdk", "provisioner"):
        raise invalid_parameter("Actor", "An access key acts as 'sdk' or 'provisioner'.")
    key = AccessKey(id="LTAI" + ids.resource_id(db, "ak", 20)[3:].upper(), secret=secrets.token_urlsafe(24),
                    account_id=account_id, user_id=user_id, actor=actor, created_at=now)
    db.add(key)
    db.flush()
    return key


def create_ram_user(db: Session, ids: IdGenerator, now: datetime, *, account_id: str, name: str,
                    password: str | None, display_name: str = "") -> RamUser:
    if not re.match(r"^[A-Za-z0-9._-]{1,64}$", name) or name == "root":
        raise invalid_parameter("UserName", "A user name is 1-64 letters, digits, '.', '_' or '-', and not 'root'.")
    exists = db.execute(select(RamUser).where(RamUser.account_id == account_id, RamUser.name == name)).scalar_one_or_none()
    if exists:
        raise ApiError("EntityAlreadyExists.User", f"The user {name!r} already exists.", 409)
    user = RamUser(id=ids.numeric_id(db), account_id=account_id, name=name,
                   display_name=display_name or name, password_hash=hash_password(password) if password else None,
                   console_login=password is not None, created_at=now)
    db.add(user)
    db.flush()
    return user


def open_console_session(db: Session, ids: IdGenerator, now: datetime, principal: Principal) -> tuple[str, ConsoleSession]:
    """Start a browser session; returns the cookie token (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    session = ConsoleSession(
        token_hash=hash_token(token), session_id=ids.uuid(db), account_id=principal.account_id,
        user_id=principal.user_id, csrf_token=secrets.token_urlsafe(24), created_at=now, expires_at=now + SESSION_LIFETIME,
    )
    db.add(session)
    db.flush()
    return token, session


def get_account(db: Session, account_id: str) -> Account:
    account = db.get(Account, account_id)
    if account is None:
        raise not_found("account", account_id)
    return account
