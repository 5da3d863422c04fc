"""Make any value safe to store in an audit record: JSON-clean, bounded, secrets masked.

Audit records hold what tenants sent, and tenants are hostile. Before this module a failed call
kept its parameters whole (three 10 MB requests grew the database by 59 MB), a list nested 800
deep overflowed the stack of the redaction walk, a lone surrogate broke the chain hash, and a
NaN was stored as bare ``NaN`` that no JSON reader accepts (every LookupEvents page holding it
answered 500). :func:`bound` turns a value into one that:

- is plain JSON (str, int, finite float, bool, None, lists, objects with string keys);
- holds only valid Unicode (lone surrogates become U+FFFD, valid surrogate pairs are joined);
- is small: strings over ``MAX_STRING`` characters keep a prefix and record their length and
  SHA-256 (so an investigator can still prove which value was sent), lists and objects keep
  ``MAX_ITEMS`` entries, nesting stops at ``MAX_DEPTH``, and a whole record has a budget of
  ``MAX_NODES`` values and ``MAX_CHARS`` characters;
- never shows a secret (any key that names a password, a secret or a private key).

The walk is recursive but stops at ``MAX_DEPTH``, so it cannot overflow the stack.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

MAX_STRING = 1024  # characters of one string kept whole
KEEP_PREFIX = 128  # characters of an oversized string kept in front of its summary
MAX_ITEMS = 200  # entries of one list or object
MAX_DEPTH = 10  # levels of nesting below the value given
MAX_NODES = 2000  # values in one bounded value
MAX_CHARS = 65_536  # characters of strings in one bounded value
MAX_KEY = 128  # characters of an object key
MAX_INT = 2**63 - 1  # what SQL integer columns and most JSON readers hold exactly
MASK = "******"
_SECRET_EXACT = {"secret", "privatekeybody", "admintoken", "sessiontoken", "signature"}
_SECRET_SUFFIXES = ("password", "secret")


def is_secret(key: str) -> bool:
    """Whether a parameter named ``key`` holds a credential (``Password``, ``access_key_secret``, ...)."""
    norm = key.replace("_", "").replace("-", "").lower()
    return norm in _SECRET_EXACT or norm.endswith(_SECRET_SUFFIXES)


def clean_text(text: str) -> str:
    """``text`` as valid Unicode: a surrogate pair written as two escapes is joined, a lone half becomes U+FFFD."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def summarize_text(text: str, keep: int = KEEP_PREFIX) -> str:
    """A long string's prefix, its length and the SHA-256 of its UTF-8 bytes, in one short string."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{clean_text(text[:keep])}…[truncated: {len(text)} characters, sha256 {digest}]"


def clip_column(text: str | None, length: int) -> str | None:
    """A value for a ``String(length)`` column: valid Unicode, no NUL (PostgreSQL refuses it), at most ``length``."""
    if text is None:
        return None
    text = clean_text(str(text)).replace("\x00", "\ufffd")
    return text if len(text) <= length else text[: length - 1] + "…"


@dataclass
class _Budget:
    nodes: int = MAX_NODES
    chars: int = MAX_CHARS


def bound(value: Any, *, mask_secrets: bool = True) -> Any:
    """A JSON-clean, size-bounded copy of ``value`` with secrets masked (see the module docstring)."""
    return _bound(value, "", 0, _Budget(), mask_secrets)


def _bound(value: Any, key: str, depth: int, budget: _Budget, mask: bool) -> Any:
    budget.nodes -= 1
    if budget.nodes < 0:
        return "…[record size limit reached]"
    if mask and key and is_secret(key) and value not in (None, ""):
        return MASK
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _integer(value, budget)
    if isinstance(value, float):
        return value if math.isfinite(value) else ("NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity"))
    if isinstance(value, str):
        return _string(value, budget)
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return f"…[object nested deeper than {MAX_DEPTH} levels]"
        return _object(value, depth, budget, mask)
    if isinstance(value, (list, tuple, set, frozenset)):
        if depth >= MAX_DEPTH:
            return f"…[list nested deeper than {MAX_DEPTH} levels]"
        items = list(value)
        kept = [_bound(v, "", depth + 1, budget, mask) for v in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            kept.append(f"…[{len(items) - MAX_ITEMS} more items]")
        return kept
    return _string(str(value), budget)  # datetimes, decimals, enums: their text


def _integer(value: int, budget: _Budget) -> int | str:
    if -MAX_INT <= value <= MAX_INT:
        return value
    if value.bit_length() > 10_000:  # str() refuses more than 4300 digits
        return f"…[integer of {value.bit_length()} bits]"
    return _string(str(value), budget)


def _string(text: str, budget: _Budget) -> str:
    if len(text) <= MAX_STRING and len(text) <= budget.chars:
        budget.chars -= len(text)
        return clean_text(text)
    keep = KEEP_PREFIX if budget.chars >= KEEP_PREFIX else 0
    summary = summarize_text(text, keep)
    budget.chars -= len(summary)
    return summary


def _object(value: dict[Any, Any], depth: int, budget: _Budget, mask: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, (raw_key, item) in enumerate(value.items()):
        if index >= MAX_ITEMS:
            out["…"] = f"[{len(value) - MAX_ITEMS} more keys]"
            break
        key = clip_column(raw_key if isinstance(raw_key, str) else str(raw_key), MAX_KEY) or ""
        out[key] = _bound(item, key, depth + 1, budget, mask)
    return out
