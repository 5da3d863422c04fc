"""Re-execute a recorded trajectory without the model, and say exactly where it stops matching.

Mark ids are numbered per observation, so a recorded ``click(12)`` means nothing on a fresh page.
Each element action is re-targeted instead: the recorded step keeps the marks its observation
showed, so the element is found again by role and accessible name (context, then its rank among
same-named elements, then position break ties). Generated resource ids (``vpc-bp1x9...``, UUIDs)
and counts differ between runs, so names and URL paths are compared with those masked when an
exact comparison fails. When the page or an element cannot be matched, the replay stops with
``task_unachievable("replay diverged at step N: ...")`` and ``meta["diverged_at"] = N``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from consoleagent.actions.spec import ACTIONS, Action
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_RESOURCE_ID = re.compile(r"\b([a-z]{1,12})-(?=[a-z0-9]*\d)[a-z0-9]{6,}\b")
_NUMBER = re.compile(r"\b\d+\b")


def shape(text: str) -> str:
    """``text`` with generated ids and numbers masked: what stays the same between two runs."""
    text = _UUID.sub("<uuid>", text.casefold())
    text = _RESOURCE_ID.sub(r"\1-<id>", text)
    return " ".join(_NUMBER.sub("<n>", text).split())


def same_page(recorded_url: str, current_url: str) -> bool:
    """Same URL path, allowing generated ids to differ (``/vpc/vpcs/vpc-abc123`` vs ``vpc-def456``)."""
    a, b = urlparse(recorded_url).path.rstrip("/"), urlparse(current_url).path.rstrip("/")
    return a == b or shape(a) == shape(b)


def recorded_action(record: dict[str, Any]) -> Action | None:
    """The action of a step record, from its ``parsed`` form, else by parsing its text."""
    parsed = record.get("parsed")
    if parsed and parsed.get("name") in ACTIONS:
        spec = ACTIONS[parsed["name"]]
        args = parsed.get("args") or {}
        return Action(spec.name, tuple(args[p.name] for p in spec.params if p.name in args))
    try:
        from consoleagent.actions.parser import ActionParseError, parse_action
    except ImportError:  # pragma: no cover - the parser ships with the package
        return None
    try:
        return parse_action(record.get("action") or "")
    except ActionParseError:
        return None


class Divergence(Exception):
    """The current page no longer matches the recording."""


class ReplayPolicy:
    """Replay the actions of a trajectory file in order (see the module docstring).

    Steps whose action did not parse, or (with ``skip_failed``) that failed when recorded, are
    skipped: they changed nothing in the recorded run.
    """

    name = "replay"

    def __init__(self, trajectory_path: str | Path, skip_failed: bool = True) -> None:
        from consoleagent.trajectory.reader import read_trajectory

        self.path = str(trajectory_path)
        self.trajectory = read_trajectory(self.path)
        self.steps = [s for s in self.trajectory.steps
                      if recorded_action(s) is not None and (not skip_failed or (s.get("result") or "ok") == "ok")]
        self.reset("")

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.position = 0
        self.diverged_at: int | None = None

    def act(self, observation: Observation) -> Decision:
        if self.position >= len(self.steps):
            return self._finish()
        record = self.steps[self.position]
        self.position += 1
        number = int(record.get("step", self.position))
        try:
            return self._replay(record, number, observation)
        except Divergence as why:
            self.diverged_at = number
            self.position = len(self.steps)
            reason = f"replay diverged at step {number}: {why}"
            return Decision(action=str(Action("task_unachievable", (reason,))), thought=reason,
                            meta={"diverged_at": number, "reason": str(why), "replayed_step": number})

    def _replay(self, record: dict[str, Any], number: int, observation: Observation) -> Decision:
        recorded_url = record.get("url") or ""
        if recorded_url and not same_page(recorded_url, observation.url):
            raise Divergence(f"the page is {urlparse(observation.url).path or observation.url} but the recording "
                             f"was on {urlparse(recorded_url).path or recorded_url}")
        action = recorded_action(record)
        assert action is not None  # filtered in __init__
        marks = [Mark.from_dict(m) for m in record.get("marks") or []]
        id_map: dict[int, int] = {}
        args = list(action.args)
        for i, (param, value) in enumerate(zip(action.spec.params, action.args)):
            if param.type == "id" and value is not None:
                new_id = relocate(int(value), marks, observation.marks)
                id_map[int(value)] = new_id
                args[i] = new_id
        replayed = Action(action.name, tuple(args))
        return Decision(action=str(replayed), thought=record.get("thought") or "", raw=record.get("raw") or "",
                        document_step=record.get("document_step"),
                        meta={"replayed_step": number, "recorded_action": record.get("action"), "id_map": id_map})

    def _finish(self) -> Decision:
        footer = self.trajectory.footer or {}
        if footer.get("status") in ("success", "completed"):  # the runner writes "completed"
            answer = footer.get("answer") or f"replayed {len(self.steps)} recorded actions"
            return Decision(action=str(Action("task_complete", (answer,))), thought=answer)
        status = footer.get("status") or ("interrupted" if self.trajectory.interrupted else "unknown")
        reason = f"the recording ended after {len(self.steps)} actions without an ending action (status: {status})"
        return Decision(action=str(Action("task_unachievable", (reason,))), thought=reason)


def relocate(recorded_id: int, recorded_marks: list[Mark], current: list[Mark]) -> int:
    """The id, in ``current``, of the element that had ``recorded_id`` when recorded."""
    original = next((m for m in recorded_marks if m.id == recorded_id), None)
    if original is None:
        if not recorded_marks:  # an old recording without marks: trust the id
            return recorded_id
        raise Divergence(f"the recording has no mark [{recorded_id}]")
    for same in (lambda a, b: a == b, lambda a, b: shape(a) == shape(b)):
        candidates = [m for m in current if m.role == original.role and same(m.name, original.name)]
        if candidates:
            twins = [m for m in recorded_marks if m.role == original.role and same(m.name, original.name)]
            return _tie_break(original, twins, candidates).id
    raise Divergence(f"no {original.role} named {original.name!r} on the page (it was [{recorded_id}])")


def _tie_break(original: Mark, twins: list[Mark], candidates: list[Mark]) -> Mark:
    """Among same-named elements: same context, then same rank among its twins, then nearest position."""
    if len(candidates) == 1:
        return candidates[0]
    in_context = [m for m in candidates if m.context == original.context]
    if in_context:
        candidates = in_context
        twins = [m for m in twins if m.context == original.context]
    rank = next((i for i, m in enumerate(twins) if m.id == original.id), None)
    if rank is not None and len(twins) == len(candidates):
        return candidates[rank]
    x, y = original.bbox[0], original.bbox[1]
    return min(candidates, key=lambda m: math.hypot(m.bbox[0] - x, m.bbox[1] - y))
