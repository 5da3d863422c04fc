"""Read a request body as the JSON object of an action's parameters, or say exactly what is wrong.

Bodies come from tenants and are hostile. Python's ``json`` accepts things an API must not: bare
``NaN``/``Infinity`` and numbers that overflow to ``inf`` (``1e999``), which no JSON reader can
take back once stored; integers of thousands of digits, which raise a plain ``ValueError``; and
nesting deep enough to exhaust the stack (``RecursionError``) in the parser or in any code that
walks the value later. Each is a 400 with a stable code here, before any other code sees the value.
"""

from __future__ import annotations

import json
import math
from typing import Any

from stratus.core.errors import ApiError, invalid_parameter

MAX_DEPTH = 16  # levels of nesting inside one parameter value; real parameters use two or three
_BODY = "InvalidParameter.Body"


class _NotFinite(ValueError):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _constant(name: str) -> Any:
    raise _NotFinite(name)


def parse_params(body: bytes) -> dict[str, Any]:
    """The parameters in ``body`` (empty means none); ``ApiError`` names the problem and its place."""
    if not body.strip():
        return {}
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(_BODY, f"The body is not valid UTF-8 (byte 0x{body[exc.start]:02x} at position {exc.start}).") from None
    try:
        params = json.loads(text, parse_float=_finite, parse_constant=_constant)
    except _NotFinite as exc:
        shown = str(exc)[:40]
        raise ApiError(_BODY, f"The body holds the number {shown}, which is not finite; JSON numbers must be finite.") from None
    except json.JSONDecodeError as exc:
        raise ApiError(_BODY, f"The body is not valid JSON: {exc.msg} at position {exc.pos}.") from None
    except RecursionError:
        raise ApiError(_BODY, f"The body is nested too deeply; parameters may nest at most {MAX_DEPTH} levels.") from None
    except ValueError as exc:  # e.g. an integer literal of more than 4300 digits
        raise ApiError(_BODY, f"The body is not acceptable JSON: {str(exc)[:120]}.") from None
    if not isinstance(params, dict):
        raise ApiError(_BODY, "The body must be a JSON object.")
    for name, value in params.items():
        if _depth_exceeds(value, MAX_DEPTH):
            raise invalid_parameter(_safe_name(name), f"The parameter {_safe_name(name)} is nested deeper than "
                                                      f"{MAX_DEPTH} levels.")
    return params


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/objects more than ``limit`` levels (iteratively: no stack to exhaust)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def _safe_name(name: str) -> str:
    """A parameter name fit for an error code: short, printable."""
    cleaned = "".join(ch for ch in name if ch.isalnum() or ch in "._-")[:64]
    return cleaned or "Body"
