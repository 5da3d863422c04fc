"""``POST /api/{product}/{Action}``: the single HTTP entry point of the tenant API."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from stratus.api.auth import authenticate_api
from stratus.api.body import parse_params
from stratus.api.dispatch import Caller, invoke
from stratus.api.failures import audit_failure, error_body
from stratus.core.errors import ApiError

router = APIRouter()


def _error(err: ApiError) -> JSONResponse:
    return JSONResponse({"RequestId": None, "Code": err.code, "Message": err.message}, status_code=err.status)


@router.post("/api/{product}/{action}", summary="Call an API action", tags=["api"])
async def call_action(product: str, action: str, request: Request) -> JSONResponse:
    runtime = request.app.state.runtime
    body = await request.body()  # at most MAX_BODY_BYTES: the guard middleware stops larger ones
    try:
        principal = await run_in_threadpool(
            authenticate_api, runtime, "POST", request.url.path, request.headers, request.cookies, body,
            request.client.host if request.client else "",
        )
    except ApiError as err:
        return _error(err)
    request.state.principal = principal  # so that a failure anywhere later is audited as this caller
    source_ip = request.client.host if request.client else ""
    user_agent = request.headers.get("user-agent", "")
    try:
        params = parse_params(body)
    except ApiError as err:  # not JSON, not UTF-8, not finite, nested too deeply: audited like any failed call
        request_id = await run_in_threadpool(
            audit_failure, runtime, err, method="POST", path=request.url.path, principal=principal,
            source_ip=source_ip, user_agent=user_agent,
        )
        return JSONResponse(error_body(err, request_id), status_code=err.status)
    caller = Caller(principal, source_ip, user_agent)
    result = await run_in_threadpool(invoke, runtime, caller, product, action, params)
    return JSONResponse(result.body, status_code=result.status)
