"""A test agent that picks elements by role and accessible name, as a scripted person would.

Element ids are only known at run time, so tests describe steps as (action, role, name, args)
and this turns each into DSL text against the current observation. Used by the env tests; it is a
real policy (it reads real observations), not a double.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from consoleagent.observation.types import Observation
from consoleagent.policies.base import Decision


@dataclass
class ByName:
    action: str  # click, type, select, check, ... or a literal action such as 'task_complete("done")'
    role: str | None = None
    name: str | None = None
    args: tuple[Any, ...] = ()
    context: str | None = None  # tie-breaker: text the mark's context must contain


@dataclass
class NamedStepsPolicy:
    steps: list[ByName]
    name: str = "named-steps"
    _next: int = field(default=0, init=False)

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self._next = 0

    def act(self, observation: Observation) -> Decision:
        if self._next >= len(self.steps):
            return Decision(action='task_complete("script finished")')
        step = self.steps[self._next]
        self._next += 1
        if step.role is None:
            return Decision(action=step.action, thought="literal step")
        mark = find_mark(observation, step.role, step.name or "", step.context)
        if mark is None:
            names = [(m.role, m.name) for m in observation.marks][:60]
            raise AssertionError(f"no {step.role} named {step.name!r} in {observation.url}: {names}")
        args = ", ".join([str(mark.id), *(json.dumps(a) for a in step.args)])
        return Decision(action=f"{step.action}({args})", thought=f"{step.action} {step.role} {step.name!r}")


def find_mark(observation: Observation, role: str, name: str, context: str | None = None):  # noqa: ANN201
    candidates = [m for m in observation.marks if m.role == role and m.name.strip() == name
                  and (context is None or context in m.context)]
    in_view = [m for m in candidates if m.in_viewport]
    return (in_view or candidates or [None])[0]
