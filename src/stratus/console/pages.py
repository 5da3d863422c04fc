"""Rendering console pages for a signed-in user.

Pages read data through the same API dispatcher as the SDK (``ConsolePage.call``), so console
reads are audited like any other call and are scoped to the signed-in account by construction.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, Undefined, select_autoescape

from stratus.api.auth import REGION_COOKIE, SESSION_COOKIE
from stratus.api.dispatch import Caller, invoke
from stratus.api.context import format_money
from stratus.console.product import CONSOLE_PRODUCTS, NavGroup, mark_active
from stratus.core.errors import ApiError
from stratus.core.identity import Account, ConsoleSession, Principal, RamUser, principal_for_session
from stratus.core.regions import DEFAULT_REGION, REGION_BY_ID, REGIONS
from stratus.releases import Catalog, catalog

if TYPE_CHECKING:  # runtime imports every product, whose consoles import this module
    from stratus.runtime import Runtime


class LoginRequired(Exception):
    """Raised by a page dependency when nobody is signed in; answered with a redirect to /login."""

    def __init__(self, next_path: str) -> None:
        self.next_path = next_path


class OptionalUndefined(StrictUndefined):
    """Strict when rendered or iterated (a typo still fails loudly), but a missing optional key of a
    dict passed to a macro (``col.sortable``, ``st.sort == col.key``) is simply false, as the widget
    macros expect."""

    __bool__ = Undefined.__bool__
    __eq__ = Undefined.__eq__
    __ne__ = Undefined.__ne__
    __hash__ = Undefined.__hash__


@lru_cache(maxsize=1)
def _environment_for(product_packages: tuple[str, ...]) -> Environment:
    loaders = [PackageLoader("stratus.console", "templates")] + [PackageLoader(p, "templates") for p in product_packages]
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(["html"]), undefined=OptionalUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["console_time"] = console_time
    return env


def console_time(value: object) -> str:
    """One way every page shows a time: ``2026-03-01T10:00:00.123Z`` → ``2026-03-01 10:00:00`` (UTC, the
    server's clock). Lists, details and drawers all use it, so the same moment reads the same everywhere."""
    if not value:
        return ""
    text = str(value).replace("T", " ").removesuffix("Z")
    return text.split(".", 1)[0]  # to the second, as consoles show it (the API keeps the milliseconds)


def templates() -> Environment:
    return _environment_for(tuple(p.templates_package for p in CONSOLE_PRODUCTS.values()))


@dataclass
class Breadcrumb:
    label: str
    href: str | None = None


@dataclass
class ProductLink:
    key: str
    name: str
    description: str
    href: str


def release_for(runtime: Runtime, account: Account) -> str:
    return account.release or runtime.settings.release


class ConsolePage:
    """Everything a page handler needs: the caller, its account, release catalog, region, a renderer."""

    def __init__(self, request: Request, runtime: Runtime, principal: Principal, session: ConsoleSession,
                 account: Account, user: RamUser | None) -> None:
        self.request = request
        self.runtime = runtime
        self.principal = principal
        self.session = session
        self.account = account
        self.user = user
        self.catalog: Catalog = catalog(release_for(runtime, account))
        region = request.cookies.get(REGION_COOKIE, DEFAULT_REGION)
        self.region = region if region in REGION_BY_ID else DEFAULT_REGION

    # --- data -------------------------------------------------------------------------------
    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]:
        """Call the API as this console user; raises ``ApiError`` on failure."""
        params.setdefault("RegionId", self.region)
        caller = Caller(self.principal, self.request.client.host if self.request.client else "",
                        self.request.headers.get("user-agent", ""))
        result = invoke(self.runtime, caller, product, action, params)
        if not result.ok:
            raise ApiError(result.body["Code"], result.body["Message"], result.status)
        return result.body

    def t(self, key: str, /, **values: Any) -> str:
        return self.catalog.t(key, **values)

    def feature(self, name: str) -> Any:
        return self.catalog.feature(name)

    def query(self, name: str, default: str = "") -> str:
        return self.request.query_params.get(name, default)

    def query_int(self, name: str, default: int, low: int = 1, high: int = 10_000) -> int:
        try:
            return max(low, min(high, int(self.request.query_params.get(name, default))))
        except ValueError:
            return default

    # --- rendering --------------------------------------------------------------------------
    def _announcement(self) -> dict[str, str] | None:
        rate = self.runtime.settings.popup_rate
        if rate <= 0:
            return None
        views = self.runtime.page_views.get(self.session.session_id, 0) + 1
        self.runtime.page_views[self.session.session_id] = views
        draw = random.Random(f"{self.runtime.settings.seed}:{self.session.session_id}:{views}").random()
        if draw >= rate:
            return None
        title, body = self.t("shell.announcement_title"), self.t("shell.announcement_body")
        # The id names the announcement, not the page view, so "Do not show again" sticks.
        notice_id = "notice-" + hashlib.sha256(f"{title}\n{body}".encode()).hexdigest()[:10]
        return {"id": notice_id, "title": title, "body": body}

    def nav_for(self, product: str | None) -> list[NavGroup]:
        if not product or product not in CONSOLE_PRODUCTS:
            return []
        return mark_active(CONSOLE_PRODUCTS[product].nav(self.catalog), self.request.url.path)

    def products(self) -> list[ProductLink]:
        return [ProductLink(p.key, self.t(f"product.{p.key}.name"), self.t(f"product.{p.key}.description"), p.home_href)
                for p in CONSOLE_PRODUCTS.values()]

    def base_context(self) -> dict[str, Any]:
        user_name = self.user.name if self.user else "root"
        display = self.user.display_name if self.user else self.account.display_name
        return {
            "t": self.t,
            "feature": self.feature,
            "release": self.catalog.release,
            "js_strings": self.catalog.js_strings(),
            "account": {"id": self.account.id, "alias": self.account.alias, "balance": format_money(self.account.balance_cents)},
            "user": {"name": user_name, "display_name": display or user_name},
            "region": self.region,
            "regions": [{"id": r.id, "name": r.name} for r in REGIONS],
            "csrf_token": self.session.csrf_token,
            "session_id": self.session.session_id,
            "products": self.products(),
            "flash": None,
            "request_path": self.request.url.path,
            "query": dict(self.request.query_params),
        }

    def fragment(self, template: str, **context: Any) -> HTMLResponse:
        """Render a piece of a page (a drawer body, a tab loaded on demand) without the layout."""
        values = self.base_context()
        values.update(context)
        return HTMLResponse(templates().get_template(template).render(**values))

    def render(self, template: str, *, product: str | None, title: str, breadcrumbs: list[Breadcrumb] | None = None,
               status_code: int = 200, **context: Any) -> HTMLResponse:
        values = self.base_context()
        values.update(product=product, nav=self.nav_for(product), page_title=title,
                      breadcrumbs=breadcrumbs or [], announcement=self._announcement())
        values.update(context)
        html = templates().get_template(template).render(**values)
        return HTMLResponse(html, status_code=status_code)


def console_page(request: Request) -> ConsolePage:
    """FastAPI dependency: the signed-in user's page context, or a redirect to the login page."""
    runtime: Runtime = request.app.state.runtime
    token = request.cookies.get(SESSION_COOKIE)
    next_path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    if not token:
        raise LoginRequired(next_path)
    with runtime.session() as db:
        found = principal_for_session(db, token, runtime.clock.now())
        if found is None:
            raise LoginRequired(next_path)
        principal, session = found
        account = db.get(Account, principal.account_id)
        user = db.get(RamUser, principal.user_id) if principal.user_id else None
        if account is None:
            raise LoginRequired(next_path)
    return ConsolePage(request, runtime, principal, session, account, user)
