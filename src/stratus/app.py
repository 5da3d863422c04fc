"""The application factory: one FastAPI app per ``Settings``, with the API, the admin API and the console."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

import stratus
from stratus import admin
from stratus.api.failures import audit_failure, error_body
from stratus.api.guard import RequestGuard
from stratus.api.router import router as api_router
from stratus.audit.digests import sign_now
from stratus.config import Settings
from stratus.console import shell
from stratus.console.pages import LoginRequired
from stratus.console.product import CONSOLE_PRODUCTS
from stratus.core.clock import Clock
from stratus.core.errors import ApiError
from stratus.runtime import Runtime


def create_app(settings: Settings | None = None, *, clock: Clock | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Build a server. Pass a ``clock`` (e.g. ``ManualClock``) to control time from a test."""
    runtime = runtime or Runtime(settings or Settings(), clock=clock)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        _final_digest(runtime)

    app = FastAPI(title="stratus", version=stratus.__version__, lifespan=lifespan,
                  description="A self-hosted sandbox cloud: console, JSON API, audit trail, releases.")
    app.state.runtime = runtime
    app.add_middleware(RequestGuard, runtime=runtime)
    app.include_router(api_router)
    app.include_router(admin.router)
    app.include_router(shell.router)
    for product in CONSOLE_PRODUCTS.values():
        app.include_router(product.router)
    static_dir = resources.files("stratus.console").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    @app.exception_handler(LoginRequired)
    async def _to_login(request: Request, exc: LoginRequired) -> Response:
        from urllib.parse import quote

        return RedirectResponse(f"/login?next={quote(exc.next_path)}", status_code=303)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"Code": exc.code, "Message": exc.message}, status_code=exc.status)
        return shell.error_page(request, exc)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, dict) else {"Code": "HttpError", "Message": str(exc.detail)}
        return JSONResponse(detail, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid_body(request: Request, exc: RequestValidationError) -> Response:
        """FastAPI's 422 list becomes the API's own shape: a stable code naming the first bad field."""
        first = (exc.errors() or [{}])[0]
        loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
        field = ".".join(loc)[:64] or "Body"
        err = ApiError(f"InvalidParameter.{field.split('.')[0]}", f"{field}: {first.get('msg', 'invalid value')}"[:300])
        # Body validation runs after the dependencies, so on /admin the bearer token was already accepted.
        identity = (admin.admin_identity(), "admin") if request.url.path.startswith("/admin/") else None
        request_id = await run_in_threadpool(
            audit_failure, runtime, err, method=request.method, path=request.url.path, identity=identity,
            source_ip=request.client.host if request.client else "", user_agent=request.headers.get("user-agent", ""),
            route_name=getattr(request.scope.get("route"), "name", None),
        )
        return JSONResponse(error_body(err, request_id), status_code=err.status)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok", "release": runtime.settings.release}

    return app


def _final_digest(runtime: Runtime) -> None:
    """Anchor the records written since the last digest before the server stops (best effort)."""
    import logging

    try:
        with runtime.write_lock, runtime.session() as db:
            sign_now(db, runtime.digest_signer, runtime.clock.now())
            db.commit()
    except Exception:  # a failing database must not turn a clean shutdown into a crash
        logging.getLogger("stratus.audit").exception("could not write the shutdown digest")
