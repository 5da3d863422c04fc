"""``POST /api/{product}/{Action}``: the single HTTP entry point of the tenant API."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from stratus.api.auth import authenticate_api
from stratus.api.dispatch import Caller, invoke
from stratus.core.errors import ApiError

router = APIRouter()


def _error(err: ApiError) -> JSONResponse:
    return JSONResponse({"RequestId": None, "Code": err.code, "Message": err.message}, status_code=err.status)


@router.post("/api/{product}/{action}", summary="Call an API action", tags=["api"])
async def call_action(product: str, action: str, request: Request) -> JSONResponse:
    runtime = request.app.state.runtime
    body = await request.body()
    try:
        principal = await run_in_threadpool(
            authenticate_api, runtime, "POST", request.url.path, request.headers, request.cookies, body
        )
    except ApiError as err:
        return _error(err)
    try:
        params = json.loads(body or b"{}")
    except json.JSONDecodeError as exc:
        return _error(ApiError("InvalidParameter.Body", f"The body is not valid JSON: {exc.msg} at position {exc.pos}."))
    if not isinstance(params, dict):
        return _error(ApiError("InvalidParameter.Body", "The body must be a JSON object."))
    caller = Caller(principal, request.client.host if request.client else "", request.headers.get("user-agent", ""))
    result = await run_in_threadpool(invoke, runtime, caller, product, action, params)
    return JSONResponse(result.body, status_code=result.status)
