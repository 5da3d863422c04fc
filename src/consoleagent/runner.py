"""Run one episode: policy ↔ environment, every step written to the trajectory as it happens.

A failure of the environment or of the policy's infrastructure (an API that stays down after its
retries) ends the episode as ``env_error`` with a cause; it is never scored as the agent's failure.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from consoleagent.env.console_env import ConsoleEnv
from consoleagent.env.faults import EnvironmentFault
from consoleagent.policies.base import Decision, Policy
from consoleagent.tasks.task import Task
from consoleagent.trajectory.records import EpisodeFooter, EpisodeHeader, StepRecord
from consoleagent.trajectory.writer import TrajectoryWriter


@dataclass
class EpisodeResult:
    status: str
    steps: int
    duration_s: float
    cause: str | None = None
    answer: str | None = None
    discrepancies: list[dict[str, Any]] = field(default_factory=list)
    trajectory: Path | None = None
    credentials: Any = None  # the account the episode ran in (the judge reads its audit log)
    started_at: str = ""
    finished_at: str = ""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run_episode(env: ConsoleEnv, policy: Policy, task: Task, *, trajectory: Path | str | None = None,
                seed: int | None = None, release: str | None = None, credentials: Any = None,
                resource_report: str | None = None) -> EpisodeResult:
    """Run ``policy`` on ``task``; ``credentials`` (a leased account) and ``resource_report`` (what was
    provisioned for the task) go to ``env.reset``. The trajectory records ``release``, by default the
    task's (``task.release``)."""
    started, started_at = time.monotonic(), _now()
    writer = None
    if trajectory is not None:
        header = EpisodeHeader(episode_id=uuid.uuid4().hex, task=task.to_dict(), policy=policy.name, seed=seed,
                               console=env.adapter.base_url, release=release if release is not None else task.release,
                               started_at=started_at)
        writer = TrajectoryWriter(Path(trajectory), header)
    try:
        result = _loop(env, policy, task, writer, seed, credentials, resource_report)
    except BaseException:
        if writer is not None:
            writer.close()  # no footer: the file reads as an interrupted episode
        raise
    result.duration_s = round(time.monotonic() - started, 3)
    result.started_at, result.finished_at = started_at, _now()
    if writer is not None:
        writer.finish(EpisodeFooter(status=result.status, steps=result.steps, duration_s=result.duration_s,  # type: ignore[arg-type]
                                    cause=result.cause, answer=result.answer, discrepancies=result.discrepancies,
                                    finished_at=result.finished_at))
        result.trajectory = Path(trajectory)  # type: ignore[arg-type]
    return result


def _loop(env: ConsoleEnv, policy: Policy, task: Task, writer: TrajectoryWriter | None, seed: int | None,
          credentials: Any, resource_report: str | None) -> EpisodeResult:
    try:
        observation, info = env.reset(task, seed=seed, credentials=credentials, resource_report=resource_report)
    except EnvironmentFault as exc:
        return EpisodeResult("env_error", 0, 0.0, cause=f"reset: {exc.cause}")
    credentials = info.get("credentials")
    policy.reset(task.goal, task.document)
    while True:
        began, began_cpu = time.monotonic(), time.process_time()
        try:
            decision = policy.act(observation)
        except Exception as exc:  # the policy's infrastructure (an API down after retries), not its judgement
            return EpisodeResult("env_error", observation.step, 0.0, cause=f"policy failed: {exc}",
                                 discrepancies=_discrepancies(env), credentials=credentials)
        policy_time = (time.monotonic() - began, time.process_time() - began_cpu)
        next_observation, _, terminated, truncated, info = env.step(decision)
        if writer is not None:
            writer.step(_record(observation, decision, info, policy_time), screenshot=observation.screenshot)
        observation = next_observation
        if terminated or truncated:
            return EpisodeResult(info["status"], observation.step, 0.0, cause=info.get("cause"), answer=info.get("answer"),
                                 discrepancies=info.get("discrepancies", []), credentials=credentials)


def _discrepancies(env: ConsoleEnv) -> list[dict[str, Any]]:
    try:
        return env.discrepancies
    except RuntimeError:
        return []


def _record(observation: Any, decision: Decision, info: dict[str, Any], policy_time: tuple[float, float]) -> StepRecord:
    """``policy_time``: the decision's wall seconds and the CPU seconds of this process meanwhile (all its
    threads: a torch policy's intra-op threads count), which is what a CPU-priced policy is billed for."""
    wall, cpu = policy_time
    timings = {"policy": round(wall, 4), "policy_cpu": round(cpu, 4),
               **{k: round(v, 4) for k, v in info["timings"].items()}}
    return StepRecord(
        step=observation.step + 1, url=observation.url, title=observation.title, observation=observation.render(),
        action=decision.action, thought=decision.thought, raw=decision.raw, parsed=info["parsed"], result=info["result"],
        document_step=decision.document_step if decision.document_step is not None else observation.document_step,
        marks=[m.to_dict() for m in observation.marks], timings=timings, usage=dict(decision.usage),
        discrepancy=info.get("discrepancy"), refused=info.get("refused"),
    )
