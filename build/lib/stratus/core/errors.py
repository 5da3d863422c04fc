"""API errors with stable codes.

Codes are part of the public contract (SDK users and reward rules match on them), so each one is
built through a helper here rather than spelled out at call sites.
"""

from __future__ import annotations


class ApiError(Exception):
    """An error the API returns as ``{"Code", "Message", "RequestId"}`` with an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def invalid_parameter(field: str, message: str) -> ApiError:
    return ApiError(f"InvalidParameter.{field}", message)


def missing_parameter(field: str) -> ApiError:
    return ApiError("MissingParameter", f"The input parameter {field} that is mandatory for processing this request is not supplied.")


def not_found(kind: str, resource_id: str) -> ApiError:
    return ApiError("NotFound", f"The specified {kind} {resource_id!r} does not exist.", 404)


def forbidden(message: str = "You are not authorized to perform this operation.") -> ApiError:
    return ApiError("Forbidden", message, 403)


def quota_exceeded(quota: str, limit: int) -> ApiError:
    return ApiError("QuotaExceeded", f"The quota {quota} ({limit}) is exhausted in this region.", 400)


def insufficient_balance(needed: str, balance: str) -> ApiError:
    return ApiError("InsufficientBalance", f"Your account balance {balance} is less than the {needed} this order costs.", 400)


def dependency_violation(message: str) -> ApiError:
    return ApiError("DependencyViolation", message, 409)


def incorrect_status(kind: str, resource_id: str, status: str, required: str) -> ApiError:
    return ApiError("IncorrectStatus", f"The {kind} {resource_id} is {status}; this operation requires {required}.", 409)


def idempotency_conflict(token: str) -> ApiError:
    return ApiError("Idempotency.Conflict", f"ClientToken {token!r} was already used with different parameters.", 409)


def unknown_action(product: str, action: str) -> ApiError:
    return ApiError("InvalidAction.NotFound", f"The action {product}/{action} does not exist.", 404)


def unauthenticated(message: str = "Sign in or sign the request with an access key.") -> ApiError:
    return ApiError("InvalidCredentials", message, 401)


def dry_run_operation() -> ApiError:
    """A ``DryRun=true`` request that passed every check: answered as an error, like the real API."""
    return ApiError("DryRunOperation", "Request validation has been passed with DryRun flag set.", 400)
