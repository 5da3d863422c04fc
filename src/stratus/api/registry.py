"""Action registration.

A product declares each API action with ``@action(product, name, rw=..., request=...)``; the
dispatcher, the console, the SDK, the isolation tests and the docs all read this one registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from stratus.api.context import CallContext


class ApiRequest(BaseModel):
    """Base of every request body. Unknown parameters are errors, as in real cloud APIs."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    RegionId: str | None = None


class CreateRequest(ApiRequest):
    """A create action: a ``ClientToken`` makes retries idempotent."""

    ClientToken: str | None = Field(None, min_length=1, max_length=64)


MAX_PAGE_NUMBER = 1_000_000  # far past any real list; a page number of 2**63 overflowed SQL OFFSET (a 500)


class ListRequest(ApiRequest):
    """A list action: pages of at most 100 items."""

    PageNumber: int = Field(1, ge=1, le=MAX_PAGE_NUMBER)
    PageSize: int = Field(10, ge=1, le=100)


@dataclass(frozen=True)
class ActionSpec:
    product: str
    name: str
    rw: Literal["Read", "Write"]
    request: type[ApiRequest]
    handler: Callable[["CallContext", Any], dict[str, Any]]
    summary: str

    @property
    def idempotent_create(self) -> bool:
        return issubclass(self.request, CreateRequest)

    @property
    def paginated(self) -> bool:
        return issubclass(self.request, ListRequest)


ACTIONS: dict[tuple[str, str], ActionSpec] = {}


def action(product: str, name: str, *, rw: Literal["Read", "Write"], request: type[ApiRequest]) -> Callable:
    """Register ``handler(ctx, req) -> dict`` as ``product/name``."""

    def decorate(handler: Callable[["CallContext", Any], dict[str, Any]]) -> Callable:
        key = (product, name)
        if key in ACTIONS:
            raise RuntimeError(f"action {product}/{name} registered twice")
        summary = (handler.__doc__ or "").strip().splitlines()[0] if handler.__doc__ else name
        ACTIONS[key] = ActionSpec(product, name, rw, request, handler, summary)
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
