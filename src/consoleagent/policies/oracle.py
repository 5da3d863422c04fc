"""The oracle: a task's known solution, played through the same action language as any agent.

It proves every task solvable before an agent is blamed for failing it, and its trajectories are
the offline teacher data that supervised fine-tuning distils. Elements are found anew in every
observation by role and accessible name (see ``consoleagent.tasks.oracle_steps``), so a solution
survives changed element ids and fails loudly, naming the step and what the page offered, when
the console no longer has what the solution expects.
"""

from __future__ import annotations

import json
import time
from typing import Any

from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.placeholders import substitute, unresolved
from consoleagent.tasks.oracle_steps import OracleStep, ElementTarget, parse_oracle_steps

POLL_S = 2  # how long one wait() lasts while the oracle waits for an element or a state


class OracleError(RuntimeError):
    """The solution does not fit the console (raised only with ``strict=True``)."""


def find_target(observation: Observation, target: ElementTarget) -> Mark | None:
    """The ``nth`` mark with the target's role and name (exact, or containing) in the target's context,
    preferring marks in the viewport, as a person reads the page."""
    def named(mark: Mark) -> bool:
        name = " ".join(mark.name.split())
        if target.name is not None:
            return name == " ".join(target.name.split())
        return (target.name_contains or "").casefold() in name.casefold()

    candidates = [m for m in observation.marks if m.role == target.role and named(m)
                  and (target.context is None or target.context in m.context)]
    if len(candidates) <= target.nth:
        return None
    if target.nth == 0:
        in_view = [m for m in candidates if m.in_viewport]
        return (in_view or candidates)[0]
    return candidates[target.nth]


def text_present(observation: Observation, text: str, context: str | None) -> bool:
    """Whether ``text`` is on the page; with a context, in a row (or mark context) that also holds it."""
    if context is None:
        return text in observation.text
    in_marks = any(context in m.context and (text in m.context or text == m.name) for m in observation.marks)
    in_lines = any(context in line and text in line for line in observation.text.splitlines())
    return in_marks or in_lines


def _quote(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


class OraclePolicy:
    """Plays ``steps`` (a task's ``oracle:`` list) with ``${name.output}`` filled from the provisioned outputs."""

    name = "oracle"

    def __init__(self, steps: list[dict[str, Any]], outputs: dict[str, dict[str, Any]] | None = None,
                 *, strict: bool = False) -> None:
        """``strict``: raise :class:`OracleError` when a step cannot be done. Otherwise the oracle ends the
        episode with ``task_complete("oracle failed: ...")``, so the audit log, not an exception, decides
        the reward (an unfinished task earns 0) and the failure is not mistaken for the environment's."""
        self.strict = strict
        missing = unresolved(steps, outputs or {})
        # A solution naming resources nothing provisioned (the provisioning ablation) cannot be played.
        self.unplayable = f"the solution refers to {', '.join(missing)}, which nothing provisioned" if missing else None
        if self.unplayable and strict:
            raise OracleError(self.unplayable)
        self.steps: list[OracleStep] = [] if missing else parse_oracle_steps(substitute(steps, outputs or {}))
        self._index = 0
        self._waiting_since: float | None = None

    @classmethod
    def for_episode(cls, task: Any, outputs: dict[str, dict[str, Any]]) -> OraclePolicy:
        """The oracle of one episode: the task file's ``oracle:`` steps with what provisioning made."""
        return cls(task.oracle, outputs)

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self._index = 0
        self._waiting_since = None

    def act(self, observation: Observation) -> Decision:
        if self.unplayable:
            return self._give_up(self.unplayable)
        while self._index < len(self.steps):
            step = self.steps[self._index]
            number = self._index + 1
            if step.kind == "wait_until":
                context = step.target.context if step.target else None
                if text_present(observation, step.until_text or "", context) != step.until_gone:
                    self._advance()
                    continue  # already true: the next step acts on this same observation
                return self._wait_or_fail(step, number, observation,
                                          f"{'absence of' if step.until_gone else ''} {step.until_text!r}".strip())
            if step.target is not None:
                mark = find_target(observation, step.target)
                if mark is None:
                    return self._wait_or_fail(step, number, observation, step.target.describe())
                args = [str(mark.id)] + ([_quote(step.value)] if step.value is not None else [])
                self._advance()
                return Decision(action=f"{step.kind}({', '.join(args)})", thought=f"oracle step {number}: "
                                f"{step.kind} {step.target.describe()}")
            self._advance()
            return Decision(action=self._page_action(step), thought=f"oracle step {number}: {step.kind}")
        return Decision(action='task_complete("oracle solution finished")', thought="every step done")

    def _page_action(self, step: OracleStep) -> str:
        if step.kind == "report_discrepancy":
            d = step.discrepancy or {}
            return (f"report_discrepancy({int(d['step'])}, {_quote(d['kind'])}, {_quote(str(d['expected']))}, "
                    f"{_quote(str(d['observed']))})")
        if step.kind == "wait":
            return f"wait({step.value})"
        return f"{step.kind}({_quote(step.value)})"

    def _advance(self) -> None:
        self._index += 1
        self._waiting_since = None

    def _wait_or_fail(self, step: OracleStep, number: int, observation: Observation, what: str) -> Decision:
        now = time.monotonic()
        if self._waiting_since is None:
            self._waiting_since = now
        if now - self._waiting_since >= step.timeout_s:
            offered = ", ".join(f"{m.role} {m.name!r}" for m in observation.marks[:40])
            message = (f"oracle step {number} ({step.kind}): no {what} on {observation.url} "
                       f"after {step.timeout_s:g} s; the page offers: {offered}")
            if self.strict:
                raise OracleError(message)
            return self._give_up(message)
        return Decision(action=f"wait({POLL_S})", thought=f"oracle step {number}: waiting for {what}")

    def _give_up(self, message: str) -> Decision:
        """End the episode; the audit log decides the reward (an unfinished task earns 0)."""
        self._index = len(self.steps)
        self.unplayable = None
        return Decision(action=f"task_complete({_quote('oracle failed: ' + message)})", thought=message,
                        meta={"oracle_failed": True})
