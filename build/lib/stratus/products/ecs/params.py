"""Parameter rules shared by the instance, image and key pair actions.

The messages follow the real ECS API's wording: agents and the procedures they follow read them to
recover ("the password must contain three of ..."), so they say exactly what is wrong.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from stratus.core.errors import invalid_parameter
from stratus.core.params import check_description, id_list, keyword_match  # noqa: F401  (re-exported)
from stratus.core.params import check_name as _check_name


def check_name(field: str, value: str | None) -> str:
    """ECS names (instances, images, key pairs, disks...) may also contain colons."""
    return _check_name(field, value, colon=True)

_LINUX_HOST = re.compile(r"^(?![.-])(?!.*[.-]{2})[A-Za-z0-9.\-]{2,64}(?<![.-])$")
_WINDOWS_HOST = re.compile(r"^(?!-)(?![0-9]+$)[A-Za-z0-9\-]{2,15}(?<!-)$")
PASSWORD_SPECIALS = "()`~!@#$%^&*-_+=|{}[]:;'<>,.?/"


class TagSpec(BaseModel):
    """One ``Tag.N``: ``{"Key": ..., "Value": ...}``."""

    model_config = ConfigDict(extra="forbid")

    Key: str = Field(min_length=1, max_length=128)
    Value: str = Field("", max_length=128)


def fold_dotted(params: Any) -> Any:
    """Accept the flat ``SystemDisk.Size`` / ``DataDisk.1.Size`` / ``Tag.1.Key`` form of the real API.

    The JSON API takes nested objects; RPC-style clients send dotted names. Both arrive at the same
    request model, so a call written from the real cloud's documentation works unchanged.
    """
    if not isinstance(params, dict) or not any("." in str(k) for k in params):
        return params
    out: dict[str, Any] = {}
    for key, value in params.items():
        parts = str(key).split(".")
        if len(parts) == 1:
            out[key] = value
            continue
        head, rest = parts[0], parts[1:]
        if rest[0].isdigit() and len(rest) >= 2:
            index = int(rest[0])
            bucket = out.setdefault(head, {})
            if isinstance(bucket, dict):
                bucket.setdefault(index, {})[".".join(rest[1:])] = value
        else:
            bucket = out.setdefault(head, {})
            if isinstance(bucket, dict):
                bucket[".".join(rest)] = value
    for key, value in list(out.items()):
        if isinstance(value, dict) and value and all(isinstance(k, int) for k in value):
            out[key] = [value[i] for i in sorted(value)]
    return out


def check_host_name(value: str, os_type: str) -> str:
    """Linux host names: 2-64 characters, letters, digits, '.', '-'; Windows: 2-15, no '.', not all digits."""
    pattern, rule = (_WINDOWS_HOST, "2 to 15 characters in length for Windows instances, cannot contain periods (.) "
                                    "or consist only of digits, and can contain letters, digits and hyphens (-)") \
        if os_type == "windows" else (_LINUX_HOST, "2 to 64 characters in length for Linux instances, can contain "
                                                    "letters, digits, periods (.) and hyphens (-), and cannot start or "
                                                    "end with, or repeat, a period or hyphen")
    if not pattern.match(value):
        raise invalid_parameter("HostName", f"The specified HostName is invalid. It must be {rule}.")
    return value


def check_password(value: str, field: str = "Password") -> str:
    """8-30 characters containing at least three of: upper-case, lower-case, digits, special characters."""
    classes = [
        any(c.isupper() for c in value),
        any(c.islower() for c in value),
        any(c.isdigit() for c in value),
        any(c in PASSWORD_SPECIALS for c in value),
    ]
    allowed = all(c.isascii() and (c.isalnum() or c in PASSWORD_SPECIALS) for c in value)
    if not 8 <= len(value) <= 30 or sum(classes) < 3 or not allowed or value.startswith("/"):
        raise invalid_parameter(field, f"The specified {field} is invalid. It must be 8 to 30 characters in length and "
                                       "contain at least three of the following: uppercase letters, lowercase letters, "
                                       f"digits, and special characters {PASSWORD_SPECIALS} (it cannot start with /).")
    return value


def check_tags(tags: list[TagSpec], field: str = "Tag") -> dict[str, str]:
    if len(tags) > 20:
        raise invalid_parameter(field, "A resource can have at most 20 tags.")
    out: dict[str, str] = {}
    for tag in tags:
        if tag.Key.lower().startswith(("aliyun", "acs:")) or "://" in tag.Key:
            raise invalid_parameter(f"{field}.Key", f"The tag key {tag.Key!r} is invalid: it cannot start with aliyun or "
                                                    "acs: and cannot contain http:// or https://.")
        if tag.Key in out:
            raise invalid_parameter(f"{field}.Key", f"The tag key {tag.Key!r} is specified more than once.")
        out[tag.Key] = tag.Value
    return out


def tags_view(tags: dict[str, Any] | None) -> list[dict[str, str]]:
    return [{"TagKey": k, "TagValue": str(v)} for k, v in sorted((tags or {}).items())]


def tags_match(tags: dict[str, Any] | None, wanted: list[TagSpec]) -> bool:
    have = tags or {}
    return all(t.Key in have and (not t.Value or str(have[t.Key]) == t.Value) for t in wanted)


def name_matches(pattern: str | None, name: str) -> bool:
    """Name filters take ``*`` as a wildcard (``web-*``); without one they match exactly."""
    if not pattern:
        return True
    if "*" in pattern:
        return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))
    return name == pattern
