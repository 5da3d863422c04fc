"""The application factory: one FastAPI app per ``Settings``, with the API, the admin API and the console."""

from __future__ import annotations

from importlib import resources

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

import stratus
from stratus import admin
from stratus.api.router import router as api_router
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
    app = FastAPI(title="stratus", version=stratus.__version__,
                  description="A self-hosted sandbox cloud: console, JSON API, audit trail, releases.")
    app.state.runtime = runtime
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

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok", "release": runtime.settings.release}

    return app
