"""Judging an episode by its audit records, with a reason for every part of the verdict.

``evaluate`` is pure: records in, :class:`Verdict` out (the SDK reads of final-state checks come
through a callable). Every expectation reports the record that satisfied it or, when none did,
the nearest misses (the right event with a wrong parameter, a failed attempt, the same call made
by the provisioner), so a person can audit each reward.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from consoleagent.placeholders import substitute, unresolved
from consoleagent.rewards.rules import DESTRUCTIVE_PREFIXES, Constraint, EventPattern, RewardRule, StateCheck

Record = dict[str, Any]
ReadState = Callable[[str, str, dict[str, Any]], dict[str, Any]]  # (product, action, params) -> response
MISSING = object()
STATUS_OF_OUTCOME = {"complete": "completed", "unachievable": "unachievable"}


@dataclass
class Check:
    kind: str  # outcome | expect | order | forbid | collateral | state | discrepancy
    ok: bool
    detail: str
    label: str = ""
    records: list[str] = field(default_factory=list)  # eventIds behind the check
    # the agent's successful calls of the expected event with other parameters (another resource, another
    # value): evidence that the agent, not the document, went wrong
    wrong_target: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    reward: float
    checks: list[Check]
    counted: int  # records that could count (the agent's successful console calls)
    ignored: dict[str, int] = field(default_factory=dict)  # why other records were set aside

    @property
    def passed(self) -> bool:
        return self.reward >= 1.0

    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def explain(self) -> str:
        lines = [f"reward {self.reward:g}: {self.counted} agent records counted"
                 + (f"; set aside: {', '.join(f'{n} {why}' for why, n in self.ignored.items())}" if self.ignored else "")]
        lines += [f"  {'PASS' if c.ok else 'FAIL'} {c.kind}{f' [{c.label}]' if c.label else ''}: {c.detail}" for c in self.checks]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"reward": self.reward, "passed": self.passed, "counted": self.counted, "ignored": self.ignored,
                "checks": [asdict(c) for c in self.checks]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Verdict":
        """A verdict read back from a rollout result or a ledger line."""
        return cls(data["reward"], [Check(**c) for c in data["checks"]], data["counted"], data.get("ignored", {}))


# --- values -----------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _same(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, (list, dict)) or isinstance(actual, (list, dict)):
        return actual == wanted
    a, w = _number(actual), _number(wanted)
    if a is not None and w is not None:
        return a == w
    return str(actual) == str(wanted)


def constraint_failure(constraint: Constraint, actual: Any) -> str | None:
    """Why ``actual`` fails the constraint, or None when it holds."""
    if actual is MISSING:
        if constraint.absent:
            return None
        return "is missing"
    if constraint.absent:
        return f"is {actual!r}, expected absent"
    if constraint.equals is not None and not _same(actual, constraint.equals):
        return f"is {actual!r}, expected {constraint.equals!r}"
    if constraint.in_ is not None and not any(_same(actual, option) for option in constraint.in_):
        return f"is {actual!r}, expected one of {constraint.in_!r}"
    if constraint.regex is not None and re.fullmatch(constraint.regex, str(actual)) is None:
        return f"is {actual!r}, expected to match /{constraint.regex}/"
    if constraint.min is not None or constraint.max is not None:
        number = _number(actual)
        if number is None:
            return f"is {actual!r}, expected a number"
        if constraint.min is not None and number < constraint.min:
            return f"is {number:g}, expected >= {constraint.min:g}"
        if constraint.max is not None and number > constraint.max:
            return f"is {number:g}, expected <= {constraint.max:g}"
    if constraint.contains is not None:
        items = actual if isinstance(actual, list) else None
        if items is not None and not any(_same(item, constraint.contains) for item in items):
            return f"is {actual!r}, expected to contain {constraint.contains!r}"
        if items is None and str(constraint.contains) not in str(actual):
            return f"is {actual!r}, expected to contain {constraint.contains!r}"
    return None


def lookup(data: Any, path: str) -> Any:
    """``data[path]`` for a flat key (``Tag.1.Key``), else a walk of dotted parts (``Vpcs.0.VpcName``)."""
    if isinstance(data, dict) and path in data:
        return data[path]
    current = data
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return MISSING
    return current


def pattern_failure(pattern: EventPattern, record: Record) -> str | None:
    """Why ``record`` does not match ``pattern`` (its name is assumed to match), or None."""
    if pattern.service and record.get("serviceName") != pattern.service:
        return f"service is {record.get('serviceName')!r}, expected {pattern.service!r}"
    if pattern.user_agent is not None:
        reason = constraint_failure(pattern.user_agent, record.get("userAgent", MISSING))
        if reason is not None:
            return f"client (userAgent) {reason}"
    for section, constraints in (("requestParameters", pattern.params), ("responseElements", pattern.response)):
        data = record.get(section) or {}
        for key, constraint in constraints.items():
            reason = constraint_failure(constraint, lookup(data, key))
            if reason is not None:
                return f"{key} {reason}"
    return None


def matches(pattern: EventPattern, record: Record) -> bool:
    return pattern.name_matches(record.get("eventName", "")) and pattern_failure(pattern, record) is None


# --- which records count ---------------------------------------------------------------------


def partition(records: list[Record], account_id: str | None, session_id: str | None) -> tuple[list[Record], list[tuple[str, Record]]]:
    """The agent's successful console calls of this episode, and every other record with why it was set aside."""
    counted: list[Record] = []
    ignored: list[tuple[str, Record]] = []
    for record in records:
        identity = record.get("userIdentity") or {}
        if record.get("eventType") != "ApiCall":
            reason = "not an API call (sign-in or service event)"
        elif record.get("actor") != "console":
            reason = f"made by the {record.get('actor')}, not in the console"
        elif account_id is not None and identity.get("accountId") != account_id:
            reason = "in another account"
        elif session_id is not None and identity.get("sessionId") != session_id:
            reason = "from another console session"
        elif record.get("errorCode"):
            reason = "failed calls"
        else:
            counted.append(record)
            continue
        ignored.append((reason, record))
    return counted, ignored


# --- the verdict ------------------------------------------------------------------------------


def evaluate(rule: RewardRule, records: list[Record], *, status: str, discrepancies: list[dict[str, Any]] | None = None,
             outputs: dict[str, dict[str, Any]] | None = None, account_id: str | None = None,
             session_id: str | None = None, read_state: ReadState | None = None) -> Verdict:
    """Judge one episode. ``records`` oldest first; ``status`` the episode's ending; ``outputs`` the
    provisioned resources' outputs that ``${name.output}`` in the rule refers to."""
    raw = rule.model_dump(by_alias=True, exclude_defaults=True)
    counted, ignored = partition(records, account_id, session_id)
    missing = unresolved(raw, outputs or {})
    if missing:  # e.g. the provisioning ablation: the rule's resources were never made
        return Verdict(0.0, [_outcome(rule, status), Check("expect", False, f"the reward rule refers to {', '.join(missing)}, "
                                                            "which nothing provisioned")], len(counted), _reasons(ignored))
    rule = RewardRule.model_validate(substitute(raw, outputs or {}))
    checks = [_outcome(rule, status)]
    matched: dict[str, list[Record]] = {}
    for pattern in rule.expect:
        check, hits = _expectation(pattern, counted, ignored)
        matched[pattern.label] = hits
        checks.append(check)
    if rule.order:
        checks.append(_order(rule.order, matched, counted))
    checks += _forbidden(rule, counted)
    if rule.require_discrepancy:
        reported = len(discrepancies or [])
        checks.append(Check("discrepancy", reported > 0, f"{reported} discrepancy report(s) filed"
                            if reported else "the answer needs a discrepancy report and none was filed"))
    for state in rule.state:
        checks.append(_state(state, read_state))
    reward = 1.0 if all(c.ok for c in checks) else 0.0
    return Verdict(reward, checks, len(counted), _reasons(ignored))


def _reasons(ignored: list[tuple[str, Record]]) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for reason, _ in ignored:
        reasons[reason] = reasons.get(reason, 0) + 1
    return reasons


def _outcome(rule: RewardRule, status: str) -> Check:
    wanted = STATUS_OF_OUTCOME[rule.outcome]
    if status == wanted:
        return Check("outcome", True, f"the agent ended with {status}")
    return Check("outcome", False, f"the agent ended with {status}, the task expects {wanted}")


def _expectation(pattern: EventPattern, counted: list[Record], ignored: list[tuple[str, Record]]) -> tuple[Check, list[Record]]:
    hits = [r for r in counted if matches(pattern, r)]
    if len(hits) >= pattern.count:
        detail = f"{pattern.label} matched {_ref(hits[0])}" + (f" and {len(hits) - 1} more" if len(hits) > 1 else "")
        return Check("expect", True, detail, pattern.label, [r["eventId"] for r in hits]), hits
    misses, wrong = [], []
    for record in counted:
        if pattern.name_matches(record.get("eventName", "")):
            misses.append(f"{_ref(record)}: {pattern_failure(pattern, record)}")
            wrong.append(record["eventId"])
    for reason, record in ignored:
        if pattern.name_matches(record.get("eventName", "")) and pattern_failure(pattern, record) is None:
            error = f" ({record.get('errorCode')})" if record.get("errorCode") else ""
            misses.append(f"{_ref(record)} set aside: {reason}{error}")
    wanted = f"{pattern.count} " if pattern.count > 1 else ""
    constraints = "; ".join(f"{k} {c.describe()}" for k, c in pattern.params.items())
    detail = (f"no {wanted}{pattern.label} record" + (f" with {constraints}" if constraints else "")
              + (f" (found {len(hits)})" if hits else "") + ("; near misses: " + "; ".join(misses[:4]) if misses else ""))
    return Check("expect", False, detail, pattern.label, [r["eventId"] for r in hits], wrong_target=wrong), hits


def _order(order: list[str], matched: dict[str, list[Record]], counted: list[Record]) -> Check:
    """Greedy over the trail's order (records arrive oldest first; equal timestamps keep their order):
    the earliest record of the first name, then the earliest later record of the next, and so on."""
    position = {r["eventId"]: i for i, r in enumerate(counted)}
    last, chosen = -1, []
    for label in order:
        later = [r for r in matched.get(label, []) if position[r["eventId"]] > last]
        if not later:
            return Check("order", False, f"no {label} record after {' then '.join(order[:order.index(label)]) or 'the start'}",
                         " < ".join(order), chosen)
        last = position[later[0]["eventId"]]
        chosen.append(later[0]["eventId"])
    return Check("order", True, " then ".join(order) + " happened in this order", " < ".join(order), chosen)


def _forbidden(rule: RewardRule, counted: list[Record]) -> list[Check]:
    checks = []
    for pattern in rule.forbid:
        hits = [r for r in counted if matches(pattern, r)]
        detail = f"forbidden {pattern.label} done: {', '.join(_ref(r) for r in hits)}" if hits else f"no {pattern.label}"
        checks.append(Check("forbid", not hits, detail, pattern.label, [r["eventId"] for r in hits]))
    collateral = [r for r in counted if r.get("eventRW") == "Write" and r.get("eventName", "").startswith(DESTRUCTIVE_PREFIXES)
                  and not any(matches(p, r) for p in [*rule.expect, *rule.allow])]
    checks.append(Check("collateral", not collateral,
                        f"destructive writes the task did not ask for: {', '.join(_ref(r) for r in collateral)}"
                        if collateral else "no destructive write beyond the task", records=[r["eventId"] for r in collateral]))
    return checks


def _state(state: StateCheck, read_state: ReadState | None) -> Check:
    label = f"{state.call} {state.path}"
    if read_state is None:
        return Check("state", False, "no SDK access to check the final state", label)
    product, action = state.call.split(".", 1)
    try:
        response = read_state(product, action, state.params)
    except Exception as exc:  # the read itself failed: the state is not as required
        return Check("state", False, f"the read failed: {exc}", label)
    reason = constraint_failure(state, lookup(response, state.path))
    if reason is None:
        return Check("state", True, f"{state.path} {state.describe()}", label)
    return Check("state", False, f"{state.path} {reason}", label)


def _ref(record: Record) -> str:
    return f"{record.get('eventName')} {str(record.get('eventId', ''))[:8]} at {record.get('eventTime', '?')}"
