"""The console shell: sign-in and sign-out, the home page, the region selector, global search.

Sign-in is guarded like a real console's: a CSRF token on the form, throttling per login name and
per address (``console.throttle``), the same work for every kind of wrong login (no timing
oracle), and an audit record for every attempt, failed, throttled or refused ones included.
Sign-out is a POST with the session's CSRF token, and is audited too.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import delete, select

from stratus.api import security_events
from stratus.api.auth import REGION_COOKIE, SESSION_COOKIE, tokens_equal
from stratus.api.security_events import Claim
from stratus.console import throttle
from stratus.console.pages import Breadcrumb, ConsolePage, console_page, templates
from stratus.console.product import CONSOLE_PRODUCTS, ResourceCount
from stratus.core.accounts import open_console_session
from stratus.core.errors import ApiError
from stratus.core.identity import Account, ConsoleSession, attempt_login, principal_for_session
from stratus.core.wallclock import security_now
from stratus.core.regions import DEFAULT_REGION, REGION_BY_ID
from stratus.releases import catalog

if TYPE_CHECKING:  # runtime imports every product, whose consoles import this module
    from stratus.runtime import Runtime

router = APIRouter(include_in_schema=False)


def safe_next(value: str | None) -> str:
    """Only same-site relative paths are followed after sign-in (no open redirects)."""
    if not value:
        return "/console"
    parsed = urlparse(value)
    if parsed.scheme or parsed.netloc or not value.startswith("/") or value.startswith("//"):
        return "/console"
    return value


LOGIN_CSRF_COOKIE = "stratus_login_csrf"


def _login_page(runtime: Runtime, next_path: str, error: str | None, status_code: int = 200) -> HTMLResponse:
    """The sign-in form, with a fresh pre-session CSRF token in a hidden field and in a cookie
    (double submit): a cross-site form post carries neither the SameSite=Strict cookie nor the
    token, so nobody can sign a browser in to an account of the attacker's choosing."""
    cat = catalog(runtime.settings.release)
    token = secrets.token_urlsafe(24)
    html = templates().get_template("login.html").render(
        t=cat.t, release=cat.release, next=next_path, error=error, demo_hint=runtime.demo_hint,
        js_strings=cat.js_strings(), csrf_token=token,
    )
    response = HTMLResponse(html, status_code=status_code)
    response.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/login",
                        secure=runtime.settings.cookie_secure)
    return response


@router.get("/")
def root() -> RedirectResponse:
    return RedirectResponse("/console", status_code=303)


@router.get("/login")
def login_form(request: Request, next: str | None = None) -> HTMLResponse:
    return _login_page(request.app.state.runtime, safe_next(next), None)


def _client(request: Request) -> tuple[str, str]:
    return (request.client.host if request.client else ""), request.headers.get("user-agent", "")


def _audit_console(runtime: Runtime, request: Request, event_name: str, identity: dict[str, Any],
                   error: ApiError | None = None, login_name: str | None = None) -> None:
    """A sign-in or sign-out record (``ConsoleSignin`` / ``ConsoleSignout``, actor console)."""
    source_ip, user_agent = _client(request)
    security_events.record(
        runtime, event_name=event_name, event_type="ConsoleSignin", service="signin", rw="Write", identity=identity,
        actor="console", source_ip=source_ip, user_agent=user_agent,
        error_code=error.code if error else None, error_message=error.message if error else None,
        parameters={"LoginName": security_events.cap(login_name, 128)} if login_name is not None else None,
    )


def _claimed_identity(account: Account | None, login_name: str) -> dict[str, Any]:
    """Whom a failed sign-in names: the alias's account if it exists, else ``anonymous``."""
    user_name = login_name.strip().partition("@")[0]
    return Claim(account.id if account else None, user_name=user_name).user_identity("unauthenticated")


def _account_for_alias(runtime: Runtime, login_name: str) -> Account | None:
    alias = login_name.strip().partition("@")[2]
    if not alias:
        return None
    with runtime.session() as db:
        return db.execute(select(Account).where(Account.alias == alias)).scalar_one_or_none()


@router.post("/login")
def login(request: Request, login_name: str = Form(""), password: str = Form(""), next: str = Form("/console"),
          csrf_token: str = Form("")) -> Response:
    runtime: Runtime = request.app.state.runtime
    cat = catalog(runtime.settings.release)
    login_name = login_name[:256]
    if not csrf_token or not tokens_equal(csrf_token, request.cookies.get(LOGIN_CSRF_COOKIE, "")):
        error = ApiError("Forbidden.CSRF", "The sign-in form is missing a valid csrf_token field.", 403)
        _audit_console(runtime, request, "ConsoleSignin", _claimed_identity(_account_for_alias(runtime, login_name),
                                                                               login_name), error, login_name)
        return _login_page(runtime, safe_next(next), cat.t("login.form_expired"), status_code=403)
    source_ip, _ = _client(request)
    now = security_now(runtime)
    with runtime.session() as db:
        lockout = throttle.check(db, login_name, source_ip, now)
        result = attempt_login(db, login_name, password) if lockout is None else None
        account = result.account if result else None
    if lockout is not None:
        minutes = lockout.minutes_left(now)
        error = ApiError("Throttling.Login", f"Too many failed sign-in attempts{' from this address' if lockout.by_address else ''}; "
                                             f"sign-in is locked for {minutes} more minute(s).", 429)
        _audit_console(runtime, request, "ConsoleSignin",
                       _claimed_identity(_account_for_alias(runtime, login_name), login_name), error, login_name)
        return _login_page(runtime, safe_next(next), cat.t("login.throttled", minutes=minutes), status_code=429)
    assert result is not None
    principal = result.principal
    with runtime.write_lock, runtime.session() as db:
        if principal is None:
            throttle.record_failure(db, login_name, source_ip, now)
        else:
            throttle.clear_login(db, login_name)
            token, session = open_console_session(db, runtime.ids, runtime.clock.now(), principal)
        db.commit()
    if principal is None:
        error = ApiError("InvalidCredentials", "Wrong login name or password.", 401)
        _audit_console(runtime, request, "ConsoleSignin", _claimed_identity(account, login_name), error, login_name)
        return _login_page(runtime, safe_next(next), cat.t("login.error"), status_code=401)
    identity = replace(principal, session_id=session.session_id).user_identity()
    _audit_console(runtime, request, "ConsoleSignin", identity, None, login_name)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", secure=runtime.settings.cookie_secure)
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
    return response


@router.post("/logout")
def logout(request: Request, csrf_token: str = Form("")) -> Response:
    """Sign out: a POST with the session's CSRF token, so another site cannot sign a user out."""
    runtime: Runtime = request.app.state.runtime
    token = request.cookies.get(SESSION_COOKIE)
    found = None
    if token:
        with runtime.session() as db:
            found = principal_for_session(db, token, runtime.clock.now())
    if found is not None:
        principal, session = found
        if not tokens_equal(csrf_token, session.csrf_token):
            error = ApiError("Forbidden.CSRF", "The sign-out form is missing a valid csrf_token field.", 403)
            _audit_console(runtime, request, "ConsoleSignout", principal.user_identity(), error)
            raise error
        with runtime.write_lock, runtime.session() as db:
            db.execute(delete(ConsoleSession).where(ConsoleSession.token_hash == session.token_hash))
            db.commit()
        _audit_console(runtime, request, "ConsoleSignout", principal.user_identity())
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, secure=runtime.settings.cookie_secure, httponly=True, samesite="lax")
    return response


@router.get("/console")
def home(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    counts: list[ResourceCount] = []
    for product in CONSOLE_PRODUCTS.values():
        if product.resource_counts:
            try:
                counts.extend(product.resource_counts(page))
            except ApiError as err:  # a RAM user without read access to this product: no tile for it
                if err.code != "Forbidden.RAM":
                    raise
    return page.render("home.html", product=None, title=page.t("home.title"),
                       breadcrumbs=[Breadcrumb(page.t("home.title"))], resource_counts=counts)


@router.post("/console/region")
def switch_region(request: Request, region: str = Form(...), next: str = Form("/console"), csrf_token: str = Form(""),
                  page: ConsolePage = Depends(console_page)) -> RedirectResponse:
    if not tokens_equal(csrf_token, page.session.csrf_token):
        error = ApiError("Forbidden.CSRF", "The form is missing a valid csrf_token field.", 403)
        security_events.record(
            page.runtime, event_name="SwitchRegion", event_type="ApiCall", service="console", rw="Write",
            identity=page.principal.user_identity(), actor="console", source_ip=_client(request)[0],
            user_agent=_client(request)[1], error_code=error.code, error_message=error.message)
        raise error
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(REGION_COOKIE, region if region in REGION_BY_ID else DEFAULT_REGION, samesite="lax",
                        secure=page.runtime.settings.cookie_secure)
    return response


@router.get("/console/search")
def search(q: str = "", page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    results: list[dict[str, Any]] = []
    error = None
    if q.strip():
        try:
            results = page.call("resourcecenter", "SearchResources", Keyword=q.strip(), PageSize=50)["Resources"]
        except ApiError as err:
            error = err.message
    return page.render("search.html", product=None, title=page.t("shell.search_results"),
                       breadcrumbs=[Breadcrumb(page.t("home.title"), "/console"), Breadcrumb(page.t("shell.search_results"))],
                       q=q, search_query=q, results=results, error=error)


@router.get("/console/widgets")
def widgets_gallery(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    """Every widget with sample data: a living reference for page authors and a test fixture."""
    return page.render("widgets_demo.html", product=None, title=page.t("widgets.demo_title"),
                       breadcrumbs=[Breadcrumb(page.t("home.title"), "/console"), Breadcrumb(page.t("widgets.demo_title"))])


def error_page(request: Request, err: ApiError) -> Response:
    """An API error met while rendering a console page (a deleted resource, another account's id),
    shown inside the console shell like a real console does, not as a bare error."""
    from stratus.console.product import CONSOLE_PRODUCTS

    try:
        page = console_page(request)
    except Exception:  # not signed in: the plain message is all there is to show
        return HTMLResponse(f"<h1>{err.code}</h1><p>{err.message}</p>", status_code=err.status)
    product = request.url.path.strip("/").split("/", 1)[0]
    product = product if product in CONSOLE_PRODUCTS else None
    title = page.t("shell.error_not_found") if err.status == 404 else page.t("shell.error_title")
    back = CONSOLE_PRODUCTS[product].home_href if product else "/console"
    return page.render("error.html", product=product, title=title, breadcrumbs=[Breadcrumb(title)],
                       status_code=err.status, error_title=title, error_message=err.message, error_code=err.code,
                       back_href=back)
