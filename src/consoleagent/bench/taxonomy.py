"""Why an episode failed, in the reference's three classes, decided from its verdict and trajectory.

Only scored failures are classified (reward below 1, not an environment error). The rules are tried
in this order and the first that holds decides:

1. ``provisioning_gap`` — the task's world lacked something the agent needed:
   the agent called ``request_resource(...)``; or one of its console calls failed with a
   ``NotFound``-type error (a prerequisite resource that is not there); or the oracle's solution or
   the reward rule referred to a provisioned resource that was not provisioned; or the agent gave up
   (``task_unachievable``) on a task that expects completion, saying something does not exist.
   (A failure of the prepare phase itself is an environment error, retried and counted apart, per phase.)
2. ``ui_interaction`` — the agent could not operate the page:
   the episode hit its step or time limit; or an element it needed was not on the page (the
   oracle's "no <element>"); or it had rejected or unparseable actions and never got the task's
   required call through (no expectation of the reward rule was met or nearly met); or at least half
   of its actions were rejected or unparseable.
3. ``agent_decision`` — everything else: the agent operated the console but chose wrong — a wrong
   ending (``outcome``), wrong parameters (an expected call made with other values: a near miss),
   a missing or out-of-order step, a forbidden or collateral destructive write, a wrong final
   state, or a missing discrepancy report.

Each classification carries a one-line ``reason`` naming the evidence (documented in
docs/formats.md, "Benchmark results").
"""

from __future__ import annotations

import re
from typing import Any

CLASSES = ("provisioning_gap", "ui_interaction", "agent_decision")

NOT_FOUND_CODE = re.compile(r"(^|\.)NotFound$|NotExist|NoSuch", re.IGNORECASE)
NOT_A_RESOURCE = ("InvalidAction.NotFound",)  # an unknown API action is the agent's error, not a missing resource
MISSING_WORDS = re.compile(r"\b(does not exist|doesn't exist|not exist|no such|not found|missing|there is no|there are no|"
                           r"no (?:existing|available)|cannot find|can't find|could not find|isn't there|is not there)\b",
                           re.IGNORECASE)
ELEMENT_NOT_FOUND = re.compile(r"oracle step \d+ \([a-z_]+\): no |there is no element|no element", re.IGNORECASE)
# "could not find 'Disassociate' in the console (the document does not say how to reach it)": a place in the
# UI the agent did not reach, not a resource the world lacks
UI_NOT_REACHED = re.compile(r"\bin the console\b|does not say how to reach", re.IGNORECASE)
UNPROVISIONED = re.compile(r"nothing provisioned|unresolved reference|was not provisioned", re.IGNORECASE)


def is_rejected(step: dict[str, Any]) -> bool:
    """The environment did not take the action: it did not parse, or the page rejected it."""
    return step.get("name") is None or (step.get("result") or "ok") != "ok"


def classify(episode: dict[str, Any]) -> dict[str, str] | None:
    """The failure class of one episode record (see docs/formats.md), or None when it is not a scored failure.

    Reads ``status``, ``passed``, ``env_error``, ``cause``, ``answer``, ``expected``, ``verdict``
    (the judge's checks), ``failed_calls`` (the agent's console calls that failed, with error codes)
    and ``trace`` (compact trajectory steps: name, action, result).
    """
    if episode.get("env_error") or episode.get("passed"):
        return None
    status = episode.get("status") or ""
    cause = episode.get("cause") or ""
    answer = episode.get("answer") or ""
    trace = episode.get("trace") or []
    checks = (episode.get("verdict") or {}).get("checks") or []
    failed = [c for c in checks if not c.get("ok")]

    # 1. provisioning gap
    requests = [s for s in trace if s.get("name") == "request_resource"]
    if requests:
        return _label("provisioning_gap", f"the agent asked for a missing resource: {requests[0].get('action')}")
    for call in episode.get("failed_calls") or []:
        code = str(call.get("error") or "")
        if NOT_FOUND_CODE.search(code) and code not in NOT_A_RESOURCE:
            return _label("provisioning_gap", f"{call.get('event')} failed with {code}")
    said = cause or answer  # a failing oracle says why in its cause (strict) or its answer ("oracle failed: ...")
    if UNPROVISIONED.search(said):
        return _label("provisioning_gap", _first_line(said))
    unmet = next((c for c in failed if UNPROVISIONED.search(c.get("detail") or "")), None)
    if unmet is not None:
        return _label("provisioning_gap", _first_line(unmet.get("detail")))
    if status == "unachievable" and episode.get("expected", "complete") == "complete" and MISSING_WORDS.search(answer) \
            and not UI_NOT_REACHED.search(answer):
        return _label("provisioning_gap", f"gave up, saying: {_first_line(answer)}")

    # 2. UI interaction failure
    if status == "unachievable" and UI_NOT_REACHED.search(answer):
        return _label("ui_interaction", f"did not reach: {_first_line(answer)}")
    if status == "truncated":
        return _label("ui_interaction", f"timed out: {_first_line(cause) or 'step or time limit reached'}")
    if ELEMENT_NOT_FOUND.search(said):
        return _label("ui_interaction", f"element not found: {_first_line(said)}")
    rejected = [s for s in trace if is_rejected(s)]
    if rejected:
        expectations = [c for c in checks if c.get("kind") == "expect"]
        got_through = any(c.get("ok") or "near misses" in (c.get("detail") or "") for c in expectations)
        if (expectations and not got_through) or len(rejected) * 2 >= len(trace):
            example = rejected[-1]
            what = "unparseable" if example.get("name") is None else "rejected"
            return _label("ui_interaction", f"{len(rejected)} of {len(trace)} actions rejected or unparseable; "
                                            f"last {what}: {example.get('action')} -> {_first_line(example.get('result'))}")

    # 3. agent decision error
    if not failed:
        return _label("agent_decision", _first_line(cause) or f"ended {status or 'without a verdict'}")
    first = next((c for c in failed if c.get("kind") == "outcome"), None) or next(
        (c for c in failed if c.get("kind") in ("forbid", "collateral")), None) or failed[0]
    kind = first.get("kind")
    what = {"outcome": "wrong outcome", "expect": "wrong parameters" if "near misses" in (first.get("detail") or "")
            else "missing step", "forbid": "forbidden write", "collateral": "collateral write", "order": "wrong order",
            "state": "wrong final state", "discrepancy": "discrepancy not reported"}.get(kind, kind or "failed check")
    return _label("agent_decision", f"{what}: {_first_line(first.get('detail'))}")


def _label(kind: str, reason: str) -> dict[str, str]:
    return {"class": kind, "reason": reason[:300]}


def _first_line(text: Any) -> str:
    return str(text or "").strip().splitlines()[0] if str(text or "").strip() else ""
