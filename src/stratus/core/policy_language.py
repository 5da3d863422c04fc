"""The RAM policy language: parse and check a JSON policy document, then evaluate it.

Pure functions, no database: a document is checked once when it is stored (``parse_document``
names the first problem and where it is), and evaluated on every call of a RAM user
(``evaluate``). The rules follow Alibaba Cloud RAM / AWS IAM, reduced to what stratus needs:

- deny by default: a request is allowed only if some ``Allow`` statement matches it;
- an explicit ``Deny`` that matches wins over every ``Allow``;
- a statement matches when its ``Action`` and ``Resource`` patterns match and every condition holds.

Patterns use ``*`` (any run of characters) and ``?`` (one character); actions compare
case-insensitively (``vpc:describe*`` = ``vpc:Describe*``), resources case-sensitively (ids are).
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from stratus.core.clock import parse_time

POLICY_VERSION = "1"
MAX_DOCUMENT_CHARS = 6144  # Alibaba Cloud's limit for one policy version
MAX_STATEMENTS = 100
MAX_PATTERNS = 100
MAX_PATTERN_CHARS = 512

Effect = Literal["Allow", "Deny"]

# Condition keys a request carries, with what they mean (documented in docs/formats.md).
CONDITION_KEYS = {
    "acs:sourceip": "the caller's IP address",
    "acs:currentregion": "the RegionId of the request",
    "acs:currenttime": "the server's clock (the audit trail's eventTime), ISO-8601",
    "stratus:actor": "console, sdk or provisioner: through what the call came",
}
_STRING_OPERATORS = {"StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringLike", "StringNotLike"}
_IP_OPERATORS = {"IpAddress", "NotIpAddress"}
_DATE_OPERATORS = {"DateLessThan", "DateGreaterThan"}
CONDITION_OPERATORS = _STRING_OPERATORS | _IP_OPERATORS | _DATE_OPERATORS


class PolicyError(ValueError):
    """A policy document is malformed; the message names the place (``Statement[2].Action``)."""


@dataclass(frozen=True)
class Condition:
    operator: str
    key: str  # lower-cased
    values: tuple[str, ...]


@dataclass(frozen=True)
class Statement:
    effect: Effect
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class PolicyDocument:
    statements: tuple[Statement, ...]


@dataclass(frozen=True)
class Request:
    """What a statement is matched against: ``vpc:DeleteVpc`` on some resources, with context."""

    action: str  # "vpc:DeleteVpc"
    resources: tuple[str, ...]  # ARNs, at least one
    context: dict[str, str] = field(default_factory=dict)  # lower-cased condition key -> value


@dataclass(frozen=True)
class NamedPolicy:
    """A policy as evaluated: its document plus how to name it in a denial message."""

    policy_type: Literal["System", "Custom"]
    name: str
    document: PolicyDocument


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: Literal["ExplicitAllow", "ExplicitDeny", "ImplicitDeny"]
    policy: NamedPolicy | None = None
    statement: int | None = None  # 1-based index in the deciding policy
    resource: str | None = None  # the resource the decision was about

    def describe(self) -> str:
        if self.reason == "ImplicitDeny":
            return "no attached policy allows it (denied by default)"
        assert self.policy is not None
        verb = "explicitly denied" if self.reason == "ExplicitDeny" else "allowed"
        return f"{verb} by {self.policy.policy_type} policy {self.policy.name}, statement {self.statement}"


# --- parsing ------------------------------------------------------------------------------


def parse_document(text: str) -> PolicyDocument:
    """Parse and check a policy document (JSON text); raise ``PolicyError`` naming the problem."""
    if len(text) > MAX_DOCUMENT_CHARS:
        raise PolicyError(f"The document is {len(text)} characters; at most {MAX_DOCUMENT_CHARS} are allowed.")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise PolicyError(f"The document is not valid JSON: {exc}.") from None
    return document_from(raw)


def document_from(raw: Any) -> PolicyDocument:
    """Check an already-decoded document (system policies are built as dicts)."""
    if not isinstance(raw, dict):
        raise PolicyError("The document must be a JSON object with Version and Statement.")
    unknown = set(raw) - {"Version", "Statement"}
    if unknown:
        raise PolicyError(f"Unknown top-level field {sorted(unknown)[0]!r}; a document has Version and Statement.")
    if raw.get("Version") != POLICY_VERSION:
        raise PolicyError(f'Version must be "{POLICY_VERSION}".')
    statements = raw.get("Statement")
    if not isinstance(statements, list) or not statements:
        raise PolicyError("Statement must be a non-empty list of statements.")
    if len(statements) > MAX_STATEMENTS:
        raise PolicyError(f"A document holds at most {MAX_STATEMENTS} statements.")
    return PolicyDocument(tuple(_statement(s, f"Statement[{i}]") for i, s in enumerate(statements, 1)))


def _statement(raw: Any, where: str) -> Statement:
    if not isinstance(raw, dict):
        raise PolicyError(f"{where} must be an object with Effect, Action and Resource.")
    unknown = set(raw) - {"Effect", "Action", "Resource", "Condition"}
    if unknown:
        raise PolicyError(f"{where}: unknown field {sorted(unknown)[0]!r}.")
    effect = raw.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise PolicyError(f'{where}.Effect must be "Allow" or "Deny".')
    actions = _patterns(raw.get("Action"), f"{where}.Action")
    for action in actions:
        if action != "*" and not re.fullmatch(r"[A-Za-z0-9*?]+:[A-Za-z0-9*?]+", action):
            raise PolicyError(f"{where}.Action: {action!r} is not '*' or '<product>:<Action>' (wildcards * and ?).")
    resources = _patterns(raw.get("Resource"), f"{where}.Resource")
    for resource in resources:
        if resource != "*" and not resource.startswith("acs:"):
            raise PolicyError(f"{where}.Resource: {resource!r} is not '*' or an ARN acs:<product>:<region>:<account>:<type>/<id>.")
    conditions = _conditions(raw.get("Condition"), f"{where}.Condition")
    return Statement(effect, actions, resources, conditions)


def _patterns(value: Any, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise PolicyError(f"{where} must be a string or a non-empty list of strings.")
    if len(items) > MAX_PATTERNS:
        raise PolicyError(f"{where} holds at most {MAX_PATTERNS} patterns.")
    for item in items:
        if not isinstance(item, str) or not item or len(item) > MAX_PATTERN_CHARS:
            raise PolicyError(f"{where} must hold non-empty strings of at most {MAX_PATTERN_CHARS} characters.")
    return tuple(items)


def _conditions(value: Any, where: str) -> tuple[Condition, ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise PolicyError(f"{where} must be an object: {{operator: {{key: value or [values]}}}}.")
    out: list[Condition] = []
    for operator, block in value.items():
        if operator not in CONDITION_OPERATORS:
            raise PolicyError(f"{where}: unknown operator {operator!r}; known: {', '.join(sorted(CONDITION_OPERATORS))}.")
        if not isinstance(block, dict) or not block:
            raise PolicyError(f"{where}.{operator} must be a non-empty object of key: value or [values].")
        for key, values in block.items():
            if not isinstance(key, str) or key.lower() not in CONDITION_KEYS:
                raise PolicyError(f"{where}.{operator}: unknown key {key!r}; known: acs:SourceIp, acs:CurrentRegion, "
                                  "acs:CurrentTime, stratus:Actor.")
            out.append(Condition(operator, key.lower(), _condition_values(operator, values, f"{where}.{operator}.{key}")))
    return tuple(out)


def _condition_values(operator: str, value: Any, where: str) -> tuple[str, ...]:
    items = _patterns(value, where)
    for item in items:
        if operator in _IP_OPERATORS:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise PolicyError(f"{where}: {item!r} is not an IP address or CIDR block.") from None
        if operator in _DATE_OPERATORS:
            try:
                parse_time(item)
            except ValueError:
                raise PolicyError(f"{where}: {item!r} is not an ISO-8601 time such as 2026-01-05T08:00:00Z.") from None
    return items


# --- evaluation ---------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _regex(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    body = "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile(body, re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)


def wildcard_match(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    return _regex(pattern, ignore_case).fullmatch(value) is not None


def _condition_holds(condition: Condition, context: dict[str, str]) -> bool:
    """A missing or unparseable context value never satisfies a positive operator and always
    satisfies a negated one: an Allow fails closed, and so does a Deny written with Not*."""
    actual = context.get(condition.key)
    op = condition.operator
    if op in ("StringEquals", "StringNotEquals"):
        hit = actual is not None and actual in condition.values
        return hit if op == "StringEquals" else not hit
    if op == "StringEqualsIgnoreCase":
        return actual is not None and actual.lower() in {v.lower() for v in condition.values}
    if op in ("StringLike", "StringNotLike"):
        hit = actual is not None and any(wildcard_match(v, actual) for v in condition.values)
        return hit if op == "StringLike" else not hit
    if op in _IP_OPERATORS:
        hit = _ip_in(actual, condition.values)
        return hit if op == "IpAddress" else not hit
    return _date_holds(op, actual, condition.values)


def _ip_in(actual: str | None, networks: tuple[str, ...]) -> bool:
    try:
        address = ipaddress.ip_address(actual or "")
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(n, strict=False) for n in networks)


def _date_holds(op: str, actual: str | None, values: tuple[str, ...]) -> bool:
    try:
        now: datetime = parse_time(actual or "")
    except ValueError:
        return False
    limits = [parse_time(v) for v in values]
    return any(now < t for t in limits) if op == "DateLessThan" else any(now > t for t in limits)


def statement_matches(statement: Statement, action: str, resource: str, context: dict[str, str]) -> bool:
    return (
        any(wildcard_match(p, action, ignore_case=True) for p in statement.actions)
        and any(wildcard_match(p, resource) for p in statement.resources)
        and all(_condition_holds(c, context) for c in statement.conditions)
    )


def _first_match(policies: list[NamedPolicy], effect: Effect, request: Request, resource: str) -> Decision | None:
    for policy in policies:
        for index, statement in enumerate(policy.document.statements, 1):
            if statement.effect == effect and statement_matches(statement, request.action, resource, request.context):
                reason: Literal["ExplicitAllow", "ExplicitDeny"] = "ExplicitAllow" if effect == "Allow" else "ExplicitDeny"
                return Decision(effect == "Allow", reason, policy, index, resource)
    return None


def evaluate(policies: list[NamedPolicy], request: Request) -> Decision:
    """Deny by default; an explicit Deny on any resource wins; every resource must be allowed."""
    for resource in request.resources:
        denied = _first_match(policies, "Deny", request, resource)
        if denied is not None:
            return denied
    first_allow: Decision | None = None
    for resource in request.resources:
        allow = _first_match(policies, "Allow", request, resource)
        if allow is None:
            return Decision(False, "ImplicitDeny", resource=resource)
        first_allow = first_allow or allow
    assert first_allow is not None, "a request names at least one resource"
    return first_allow
