"""Identity: root accounts, RAM users, access keys and console sessions.

A request is always resolved to a ``Principal`` (who) and an ``actor`` (through what: console,
sdk, provisioner, system). The actor is a property of the credential, never of a header, so a
console session can only ever act as ``console`` and a provisioner key only as ``provisioner``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Boolean, ForeignKey, Integer, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from stratus.core.db import AccountOwned, Base

Actor = Literal["console", "sdk", "provisioner", "system"]
ROOT_USER = "root"
_PBKDF2_ROUNDS = 20_000


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    alias: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(128), default="")
    balance_cents: Mapped[int] = mapped_column(Integer, default=0)
    release: Mapped[str | None] = mapped_column(String(16), default=None)
    root_password_hash: Mapped[str] = mapped_column(String(256))
    quotas: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]


class RamUser(AccountOwned, Base):
    __tablename__ = "ram_users"
    __credentials__ = True  # never in a snapshot: a restore must not roll credentials back

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(128), default="")
    password_hash: Mapped[str | None] = mapped_column(String(256), default=None)
    console_login: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime]


class AccessKey(AccountOwned, Base):
    __tablename__ = "access_keys"
    __credentials__ = True  # never in a snapshot: a restore must not roll credentials back

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    secret: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str | None] = mapped_column(ForeignKey("ram_users.id"), default=None)
    actor: Mapped[str] = mapped_column(String(16), default="sdk")
    status: Mapped[str] = mapped_column(String(16), default="Active")
    created_at: Mapped[datetime]


class ConsoleSession(Base):
    """A signed-in browser. Not part of an account snapshot: restoring state must not sign anyone out."""

    __tablename__ = "console_sessions"
    __snapshot__ = False

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), index=True)
    account_id: Mapped[str] = mapped_column(String(32), index=True)
    user_id: Mapped[str | None] = mapped_column(String(32), default=None)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]


@dataclass(frozen=True)
class Principal:
    """Who makes a request: an account and optionally one of its RAM users."""

    account_id: str
    user_id: str | None
    user_name: str
    actor: Actor
    access_key_id: str | None = None
    session_id: str | None = None

    @property
    def identity_type(self) -> str:
        return "ram-user" if self.user_id else "root-account"

    def user_identity(self) -> dict[str, Any]:
        """The ``userIdentity`` block of an audit record."""
        return {
            "type": self.identity_type,
            "accountId": self.account_id,
            "principalId": self.user_id or self.account_id,
            "userName": self.user_name,
            "accessKeyId": self.access_key_id,
            "sessionId": self.session_id,
        }


def hash_password(password: str, salt: str | None = None) -> str:
    salt = salt or secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), _PBKDF2_ROUNDS).hex()
    return f"pbkdf2${salt}${digest}"


def check_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    _, salt, digest = stored.split("$", 2)
    return hmac.compare_digest(hash_password(password, salt).split("$", 2)[2], digest)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class LoginResult:
    """A sign-in attempt's outcome: the principal on success; the alias's account either way, if it exists."""

    principal: Principal | None
    account: Account | None


def _dummy_hash() -> str:
    return hash_password("not-a-password", "0000000000000000")


_DUMMY_HASH = _dummy_hash()


def principal_for_login(db: Session, login_name: str, password: str) -> Principal | None:
    """Resolve ``user@alias`` (``root@alias`` for the root account) and a password to a principal."""
    return attempt_login(db, login_name, password).principal


def attempt_login(db: Session, login_name: str, password: str) -> LoginResult:
    """Check a console sign-in: the principal if the password is right, and the alias's account.

    Every path runs exactly one password hash (against a dummy one when the alias or the user
    does not exist, or the user may not sign in) and the same queries, so the response time does
    not tell an unknown alias from an unknown user from a wrong password."""
    user_name, _, alias = login_name.strip().partition("@")
    account = db.execute(select(Account).where(Account.alias == alias)).scalar_one_or_none() if alias else None
    user = db.execute(
        select(RamUser).where(RamUser.account_id == (account.id if account else ""), RamUser.name == user_name)
    ).scalar_one_or_none()
    if user_name == ROOT_USER and account is not None:
        stored: str | None = account.root_password_hash
    elif user is not None and user.console_login and user.password_hash:
        stored = user.password_hash
    else:
        stored = None
    matches = check_password(password, stored or _DUMMY_HASH) and stored is not None
    if not matches or account is None:
        return LoginResult(None, account)
    if user_name == ROOT_USER:
        return LoginResult(Principal(account.id, None, ROOT_USER, "console"), account)
    assert user is not None
    return LoginResult(Principal(account.id, user.id, user.name, "console"), account)


def signing_string(method: str, path: str, date: str, nonce: str, body: bytes) -> str:
    """What an SDK request signs: method, path, date and nonce headers, and the body's SHA-256.

    Date and nonce are inside the signature, so a captured request cannot be replayed with a new
    date or a fresh nonce."""
    return "\n".join([method.upper(), path, date, nonce, hashlib.sha256(body).hexdigest()])


def sign(secret: str, method: str, path: str, date: str, body: bytes, *, nonce: str) -> str:
    return hmac.new(secret.encode(), signing_string(method, path, date, nonce, body).encode(), hashlib.sha256).hexdigest()


def signature_matches(key: AccessKey, signature: str, method: str, path: str, date: str, nonce: str, body: bytes) -> bool:
    return hmac.compare_digest(sign(key.secret, method, path, date, body, nonce=nonce), signature)


def principal_for_key(db: Session, key: AccessKey) -> Principal:
    user_name = ROOT_USER
    if key.user_id:
        user = db.get(RamUser, key.user_id)
        user_name = user.name if user else "unknown"
    return Principal(key.account_id, key.user_id, user_name, key.actor, access_key_id=key.id)  # type: ignore[arg-type]


def principal_for_session(db: Session, token: str, now: datetime) -> tuple[Principal, ConsoleSession] | None:
    session = db.get(ConsoleSession, hash_token(token))
    if session is None or session.expires_at <= now:
        return None
    user_name = ROOT_USER
    if session.user_id:
        user = db.get(RamUser, session.user_id)
        if user is None or user.account_id != session.account_id:
            return None
        user_name = user.name
    principal = Principal(session.account_id, session.user_id, user_name, "console", session_id=session.session_id)
    return principal, session
