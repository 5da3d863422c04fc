"""Play a console backend's task with its oracle (or another policy) and judge it from the backend's audit records.

This is the whole episode through the seam only (begin_episode → browser episode → audit_records
→ the task's reward rule → end_episode), so it proves a task solvable on a console without the
stratus-bound benchmark machinery.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from consoleagent.consoles.base import ConsoleBackend
from consoleagent.rewards.engine import Verdict, evaluate
from consoleagent.rewards.rules import RewardRule
from consoleagent.tasks.spec import TaskSpec


@dataclass
class CheckResult:
    task_id: str
    status: str
    steps: int
    seconds: float
    verdict: Verdict | None
    cause: str | None = None

    @property
    def passed(self) -> bool:
        return self.verdict is not None and self.verdict.passed


def judge(backend: ConsoleBackend, rule: RewardRule, *, status: str, since: str, account_id: str,
          outputs: dict[str, dict[str, Any]], discrepancies: list[dict[str, Any]] | None = None,
          wait_s: float | None = None, poll_s: float = 0.5) -> Verdict:
    """The rule over the records since ``since``, re-read until it passes or ``wait_s`` (the rule's deadline) ends."""
    deadline = time.monotonic() + (rule.deadline_s if wait_s is None else wait_s)
    read_state = backend.read_state(None) if rule.state else None
    while True:
        verdict = evaluate(rule, backend.audit_records(since=since), status=status, discrepancies=discrepancies,
                           outputs=outputs, account_id=account_id, read_state=read_state)
        waiting_helps = all(c.kind in ("expect", "order", "state") for c in verdict.failures())
        if verdict.passed or not waiting_helps or time.monotonic() >= deadline:
            return verdict
        time.sleep(poll_s)


def play(backend: ConsoleBackend, env: Any, spec: TaskSpec, *, trajectory: Path | None = None,
         policy: str = "oracle") -> CheckResult:
    """One episode of ``spec`` on ``backend`` in ``env`` (a ConsoleEnv over the backend), by its oracle or by
    another policy of the registry built with its defaults (the doc follower: whether a page is followable)."""
    from consoleagent.policies.registry import make_policy
    from consoleagent.placeholders import substitute
    from consoleagent.runner import run_episode

    started = time.monotonic()
    if trajectory is not None and trajectory.exists():
        trajectory.unlink()  # an earlier check's: this run replaces it
    episode = backend.begin_episode(spec.id, spec.requirements)
    try:
        task = spec.to_task(backend.documents_root)
        task = replace(task, goal=substitute(task.goal, episode.outputs))
        agent = make_policy(policy, task=spec, outputs=episode.outputs)
        result = run_episode(env, agent, task, trajectory=trajectory, credentials=episode.credentials,
                             resource_report=episode.report.text() if episode.report.resources else None)
        rule = spec.reward
        verdict = None
        if result.status != "env_error":
            verdict = judge(backend, rule, status=result.status, since=episode.since,
                            account_id=episode.credentials.extra.get("account_id", ""), outputs=episode.outputs,
                            discrepancies=result.discrepancies)
        return CheckResult(spec.id, result.status, result.steps, time.monotonic() - started, verdict,
                           result.cause or result.answer)
    finally:
        backend.end_episode(episode)
