"""Audit records as terminal text that cannot be mistaken for markup or terminal control.

Records hold tenant-written strings. Printed as rich markup, a user name like ``[/]`` crashes the
table (MarkupError) and ``[link=...]`` forges a hyperlink; printed raw, ``\\x1b[31m`` or ``\\x1b]52``
drives the operator's terminal. Every value here becomes a ``rich.text.Text`` (never parsed as
markup) with control and invisible formatting characters shown as escapes.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from rich.text import Text

MAX_CELL = 200  # characters of one table cell


def printable(value: Any, limit: int = MAX_CELL) -> str:
    """``value`` as text with every control/format character written as an escape (``\\x1b``, ``\\u202e``)."""
    text = "" if value is None else str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join(_escape(ch) if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") else ch for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def cell(value: Any) -> Text:
    return Text(printable(value))


def event_row(record: dict[str, Any]) -> list[Text]:
    """The ``stratus events`` table row of one record: time, event, service, actor, user, error, resources."""
    identity = record.get("userIdentity") or {}
    resources = " ".join(str(i) for ids in (record.get("referencedResources") or {}).values() for i in ids)
    values = (record.get("eventTime"), record.get("eventName"), record.get("serviceName"), record.get("actor"),
              identity.get("userName"), record.get("errorCode") or "", resources)
    return [cell(v) for v in values]
