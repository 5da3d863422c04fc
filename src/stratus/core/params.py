"""Parameter checks every product shares: names, descriptions, id lists, keyword filters.

One place, so that "a name is 2-128 characters starting with a letter" means the same in every
product and a fix reaches all of them.
"""

from __future__ import annotations

import json
import re

from stratus.core.errors import invalid_parameter

_NAME = re.compile(r"^[A-Za-z\u4e00-\u9fa5][A-Za-z0-9\u4e00-\u9fa5._\-]{1,127}$")
_NAME_WITH_COLON = re.compile(r"^[A-Za-z\u4e00-\u9fa5][A-Za-z0-9\u4e00-\u9fa5._:\-]{1,127}$")


def check_name(field: str, value: str | None, *, colon: bool = False) -> str:
    """Names are 2-128 characters, start with a letter, then letters, digits, '.', '_', '-'
    (and ':' where the product allows it); they cannot start with a URL scheme. Empty is no name."""
    if value is None or value == "":
        return ""
    pattern = _NAME_WITH_COLON if colon else _NAME
    if value.lower().startswith(("http://", "https://")) or not pattern.match(value):
        allowed = "periods (.), underscores (_), colons (:) and hyphens (-)" if colon else \
            "periods (.), underscores (_) and hyphens (-)"
        raise invalid_parameter(field, f"The specified {field} is invalid. It must be 2 to 128 characters in length, "
                                       f"start with a letter, and can contain digits, {allowed}. "
                                       "It cannot start with http:// or https://.")
    return value


def check_description(value: str | None, field: str = "Description") -> str:
    if value is None:
        return ""
    if len(value) > 256:
        raise invalid_parameter(field, f"The specified {field} is invalid. It must be at most 256 characters in length.")
    if value.lower().startswith(("http://", "https://")):
        raise invalid_parameter(field, f"The specified {field} cannot start with http:// or https://.")
    return value


def id_list(field: str, value: list[str] | str | None) -> list[str] | None:
    """An id list given as a JSON array (as the real API takes it), a comma list or a list; None if absent."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):  # '[' * 5000 exhausts json's recursive decoder
            raise invalid_parameter(field, f'{field} must be a JSON array such as ["i-1", "i-2"].') from None
        if not isinstance(parsed, list) or any(isinstance(v, (list, dict)) for v in parsed):
            raise invalid_parameter(field, f"{field} must be a JSON array of ids.")
        return [str(v).strip() for v in parsed if str(v).strip()]
    return [part.strip() for part in text.split(",") if part.strip()]


def keyword_match(keyword: str | None, *values: str | None) -> bool:
    """Console search boxes: case-insensitive substring of any of the values."""
    if not keyword:
        return True
    needle = keyword.strip().lower()
    return any(needle in (v or "").lower() for v in values)
