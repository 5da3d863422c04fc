"""Action registration.

A product declares each API action with ``@action(product, name, rw=..., request=...)``; the
dispatcher, the console, the SDK, the isolation tests and the docs all read this one registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from stratus.api.context import CallContext


class ApiRequest(BaseModel):
    """Base of every request body. Unknown parameters are errors, as in real cloud APIs."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    RegionId: str | None = None

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        """No parameter may hold a NUL character: PostgreSQL refuses it in any text column (a 500 there)."""
        if _holds_nul(value):
            raise ValueError("must not contain the NUL character (\\u0000)")
        return value


def _holds_nul(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if depth > 32:  # bodies nest at most 16 levels (api.body); this only bounds the walk
        return False
    if isinstance(value, BaseModel):
        value = value.__dict__
    if isinstance(value, dict):
        return any(_holds_nul(k, depth + 1) or _holds_nul(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return any(_holds_nul(v, depth + 1) for v in value)
    return False


class CreateRequest(ApiRequest):
    """A create action: a ``ClientToken`` makes retries idempotent."""

    ClientToken: str | None = Field(None, min_length=1, max_length=64)


MAX_PAGE_NUMBER = 1_000_000  # far past any real list; a page number of 2**63 overflowed SQL OFFSET (a 500)


class ListRequest(ApiRequest):
    """A list action: pages of at most 100 items."""

    PageNumber: int = Field(1, ge=1, le=MAX_PAGE_NUMBER)
    PageSize: int = Field(10, ge=1, le=100)


@dataclass(frozen=True)
class ApiAction:
    product: str
    name: str
    rw: Literal["Read", "Write"]
    request: type[ApiRequest]
    handler: Callable[["CallContext", Any], dict[str, Any]]
    summary: str


ACTIONS: dict[tuple[str, str], ApiAction] = {}


def action(product: str, name: str, *, rw: Literal["Read", "Write"], request: type[ApiRequest]) -> Callable:
    """Register ``handler(ctx, req) -> dict`` as ``product/name``."""

    def decorate(handler: Callable[["CallContext", Any], dict[str, Any]]) -> Callable:
        key = (product, name)
        if key in ACTIONS:
            raise RuntimeError(f"action {product}/{name} registered twice")
        summary = (handler.__doc__ or "").strip().splitlines()[0] if handler.__doc__ else name
        ACTIONS[key] = ApiAction(product, name, rw, request, handler, summary)
        return handler

    return decorate


def page(items: list[Any], req: ListRequest, list_name: str, total: int | None = None) -> dict[str, Any]:
    """Slice an already-filtered list into the standard paginated response."""
    start = (req.PageNumber - 1) * req.PageSize
    return {
        "TotalCount": len(items) if total is None else total,
        "PageNumber": req.PageNumber,
        "PageSize": req.PageSize,
        list_name: items[start : start + req.PageSize],
    }
