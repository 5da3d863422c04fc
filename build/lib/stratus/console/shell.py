"""The console shell: sign-in and sign-out, the home page, the region selector, global search."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from stratus.api.auth import REGION_COOKIE, SESSION_COOKIE
from stratus.audit.trail import EventDraft
from stratus.console.pages import Breadcrumb, ConsolePage, console_page, templates
from stratus.console.product import CONSOLE_PRODUCTS, ResourceCount
from stratus.core.accounts import open_console_session
from stratus.core.errors import ApiError
from stratus.core.identity import Account, hash_token, principal_for_login
from stratus.core.regions import DEFAULT_REGION, REGION_BY_ID
from stratus.releases import catalog
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


def _login_page(runtime: Runtime, next_path: str, error: str | None, status_code: int = 200) -> HTMLResponse:
    cat = catalog(runtime.settings.release)
    html = templates().get_template("login.html").render(
        t=cat.t, release=cat.release, next=next_path, error=error, demo_hint=runtime.demo_hint,
        js_strings=cat.js_strings(),
    )
    return HTMLResponse(html, status_code=status_code)


@router.get("/")
def root() -> RedirectResponse:
    return RedirectResponse("/console", status_code=303)


@router.get("/login")
def login_form(request: Request, next: str | None = None) -> HTMLResponse:
    return _login_page(request.app.state.runtime, safe_next(next), None)


def _audit_signin(runtime: Runtime, request: Request, account_id: str, user_name: str, user_id: str | None,
                  session_id: str | None, error: str | None) -> None:
    with runtime.write_lock, runtime.session() as db:
        runtime.audit(db, EventDraft(
            event_name="ConsoleSignin", event_type="ConsoleSignin", event_rw="Write", service_name="signin",
            region=DEFAULT_REGION,
            user_identity={"type": "ram-user" if user_id else "root-account", "accountId": account_id,
                           "principalId": user_id or account_id, "userName": user_name, "accessKeyId": None,
                           "sessionId": session_id},
            actor="console", request_parameters={"LoginName": f"{user_name}"},
            error_code="InvalidCredentials" if error else None, error_message=error,
            source_ip=request.client.host if request.client else "", user_agent=request.headers.get("user-agent", ""),
        ), runtime.clock.now())
        db.commit()


@router.post("/login")
def login(request: Request, login_name: str = Form(""), password: str = Form(""), next: str = Form("/console")) -> Response:
    runtime: Runtime = request.app.state.runtime
    cat = catalog(runtime.settings.release)
    with runtime.write_lock, runtime.session() as db:
        principal = principal_for_login(db, login_name, password)
        if principal is None:
            user_name, _, alias = login_name.partition("@")
            account = db.query(Account).filter(Account.alias == alias).one_or_none() if alias else None
            account_id = account.id if account else None
        else:
            token, session = open_console_session(db, runtime.ids, runtime.clock.now(), principal)
            db.commit()
    if principal is None:
        if account_id:
            _audit_signin(runtime, request, account_id, user_name, None, None, "Wrong login name or password.")
        return _login_page(runtime, safe_next(next), cat.t("login.error"), status_code=401)
    _audit_signin(runtime, request, principal.account_id, principal.user_name, principal.user_id, session.session_id, None)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", secure=runtime.settings.cookie_secure)
    return response


@router.get("/logout")
def logout(request: Request) -> RedirectResponse:
    runtime: Runtime = request.app.state.runtime
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        from stratus.core.identity import ConsoleSession

        with runtime.write_lock, runtime.session() as db:
            session = db.get(ConsoleSession, hash_token(token))
            if session is not None:
                db.delete(session)
                db.commit()
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


@router.get("/console")
def home(page: ConsolePage = Depends(console_page)) -> HTMLResponse:
    counts: list[ResourceCount] = []
    for product in CONSOLE_PRODUCTS.values():
        if product.resource_counts:
            counts.extend(product.resource_counts(page))
    return page.render("home.html", product=None, title=page.t("home.title"),
                       breadcrumbs=[Breadcrumb(page.t("home.title"))], resource_counts=counts)


@router.post("/console/region")
def switch_region(request: Request, region: str = Form(...), next: str = Form("/console"), csrf_token: str = Form(""),
                  page: ConsolePage = Depends(console_page)) -> RedirectResponse:
    if csrf_token != page.session.csrf_token:
        raise ApiError("Forbidden.CSRF", "The form is missing a valid csrf_token field.", 403)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(REGION_COOKIE, region if region in REGION_BY_ID else DEFAULT_REGION, samesite="lax")
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
