"""The rule judge of the rollout lifecycle: a task's reward rule applied to the episode's audit records.

Audit services deliver late, so a verdict that is not yet a pass is not final: the judge reads the
trail again until every expectation is met or the rule's deadline passes. A pass is confirmed by
one more read after ``settle_s``, so a forbidden write delivered a little later still counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from consoleagent.rewards.engine import Verdict, evaluate

CollectAudit = Callable[[Any, str], list[dict[str, Any]]]
StateReader = Callable[[dict[str, Any]], Any]  # credentials extra -> (product, action, params) -> response, or None


class RuleJudge:
    """``judge(spec, episode, records) -> Verdict`` for :class:`~consoleagent.rollout.lifecycle.Rollout`.

    The rule is the task's (``spec.task.reward``, which ``TaskSpec.to_task`` sets);
    ``collect`` re-reads the episode's records and ``state_reader`` makes the reader of a rule's
    ``state:`` checks: both are the console backend's (``consoleagent.consoles.world.RolloutParts``), so
    the judge knows no console. ``console`` is the console URL handed to ``collect``. ``delivery_delay_s``, when the console's maximum delivery delay is known
    (wall-clock seconds; 0 for a stratus without a delay), caps the wait: a failing verdict is final
    once every record can have arrived, instead of at the rule's deadline.
    """

    def __init__(self, console: str = "", *, collect: CollectAudit, state_reader: StateReader | None = None,
                 poll_s: float = 0.5, settle_s: float = 0.5, deadline_s: float | None = None,
                 delivery_delay_s: float | None = None) -> None:
        self.console = console
        self.collect = collect
        self.state_reader = state_reader
        self.poll_s, self.settle_s, self.deadline_s = poll_s, settle_s, deadline_s
        self.delivery_delay_s = delivery_delay_s

    def __call__(self, spec: Any, episode: Any, records: list[dict[str, Any]]) -> Verdict:
        rule = spec.task.reward
        if rule is None:
            raise ValueError(f"task {spec.task.id!r} has no reward rule: the rule judge judges a task file's "
                             "episodes (TaskSpec.to_task)")
        credentials = episode.credentials
        extra = getattr(credentials, "extra", {}) or {}
        outputs = getattr(spec, "outputs", {}) or {}
        read_state = self._reader(extra) if rule.state else None

        def judge_now(current: list[dict[str, Any]]) -> Verdict:
            return evaluate(rule, current, status=episode.status, discrepancies=episode.discrepancies, outputs=outputs,
                            account_id=extra.get("account_id"), session_id=extra.get("session_id"), read_state=read_state)

        wait_s = rule.deadline_s if self.deadline_s is None else self.deadline_s
        if self.delivery_delay_s is not None:
            wait_s = min(wait_s, self.delivery_delay_s + self.poll_s)
        deadline = time.monotonic() + wait_s
        verdict = judge_now(records)
        while not verdict.passed and self._waiting_helps(verdict) and time.monotonic() < deadline:
            time.sleep(self.poll_s)
            records = self.collect(credentials, self.console)
            verdict = judge_now(records)
        if verdict.passed and self.settle_s > 0:
            time.sleep(self.settle_s)
            verdict = judge_now(self.collect(credentials, self.console))
        return verdict

    @staticmethod
    def _waiting_helps(verdict: Verdict) -> bool:
        """Late records can satisfy an expectation or an order, never undo a wrong ending or a forbidden write."""
        return all(c.kind in ("expect", "order", "state") for c in verdict.failures())

    def _reader(self, extra: dict[str, Any]) -> Callable[[str, str, dict[str, Any]], dict[str, Any]]:
        reader = self.state_reader(extra) if self.state_reader is not None else None
        if reader is None:
            raise ValueError("the task's reward rule has state: checks, but this console offers no state reader")
        return reader
