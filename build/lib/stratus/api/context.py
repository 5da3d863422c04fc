"""What an action handler can reach: the database session, the caller, the clock, ids, quotas.

Handlers never build queries on account-owned tables without ``ctx.scoped`` / ``ctx.get``: that
is how isolation between accounts holds by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from stratus.core.errors import insufficient_balance, not_found
from stratus.core.identity import Account, Principal
from stratus.core.quotas import check_quota
from stratus.core.resources import RESOURCE_TYPES

if TYPE_CHECKING:
    from stratus.runtime import Runtime

M = TypeVar("M")


def format_money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


@dataclass
class CallContext:
    db: Session
    runtime: "Runtime"
    principal: Principal
    region: str
    now: datetime
    referenced: dict[str, list[str]] = field(default_factory=dict)

    @property
    def account(self) -> Account:
        account = self.db.get(Account, self.principal.account_id)
        assert account is not None, "principal of a deleted account"
        return account

    def new_id(self, prefix: str) -> str:
        return self.runtime.ids.resource_id(self.db, prefix)

    def reference(self, type_name: str, *resource_ids: str | None) -> None:
        """Name resources this call touched; they land in the audit record's referencedResources."""
        bucket = self.referenced.setdefault(type_name, [])
        bucket.extend(rid for rid in resource_ids if rid)

    def scoped(self, model: type[M], *, regional: bool = True) -> Select:
        """``SELECT model`` restricted to the caller's account (and region, for regional resources)."""
        stmt = select(model).where(model.account_id == self.principal.account_id)  # type: ignore[attr-defined]
        if regional and hasattr(model, "region_id"):
            stmt = stmt.where(model.region_id == self.region)  # type: ignore[attr-defined]
        return stmt

    def count(self, model: Any, *conditions: Any) -> int:
        stmt = select(func.count()).select_from(model).where(model.account_id == self.principal.account_id, *conditions)
        if hasattr(model, "region_id"):
            stmt = stmt.where(model.region_id == self.region)
        return self.db.execute(stmt).scalar_one()

    def get(self, model: type[M], resource_id: str | None, label: str | None = None) -> M:
        """The caller's resource with this id in this region, or ``NotFound`` (never another account's)."""
        row = self.db.get(model, resource_id) if resource_id else None
        if (
            row is None
            or getattr(row, "account_id", None) != self.principal.account_id
            or getattr(row, "region_id", self.region) != self.region
        ):
            raise not_found(label or _label_for(model), str(resource_id))
        type_name = _type_name_for(model)
        if type_name:
            self.reference(type_name, resource_id)
        return row

    def check_quota(self, name: str, in_use: int, adding: int = 1) -> None:
        check_quota(self.account.quotas or {}, name, in_use, adding)

    def charge(self, cents: int, what: str) -> None:
        """Deduct a prepaid order from the balance, or fail with ``InsufficientBalance``."""
        account = self.account
        if account.balance_cents < cents:
            raise insufficient_balance(f"{format_money(cents)} for {what}", format_money(account.balance_cents))
        account.balance_cents -= cents

    def require_positive_balance(self) -> None:
        """Pay-as-you-go resources need a positive balance to be created, like real clouds."""
        account = self.account
        if account.balance_cents <= 0:
            raise insufficient_balance("a positive balance for pay-as-you-go resources", format_money(account.balance_cents))


def _type_name_for(model: Any) -> str | None:
    for resource_type in RESOURCE_TYPES.values():
        if resource_type.model is model:
            return resource_type.type_name
    return None


def _label_for(model: Any) -> str:
    for resource_type in RESOURCE_TYPES.values():
        if resource_type.model is model:
            return resource_type.label
    return model.__name__
