"""From task files to rollouts: the episode specs, the policy for each episode, and one worker's
world (the console backend's pool, reset and audit reader, a browser, the rule judge)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consoleagent.documents.restyle import AS_WRITTEN, restyle
from consoleagent.policies.base import Policy
from consoleagent.rewards.judge import RuleJudge
from consoleagent.rollout.lifecycle import EpisodeSpec
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.tasks.spec import TaskSpec


def episode_specs(tasks: list[TaskSpec], runs: int, documents_root: Path | None = DOCUMENTS_ROOT,
                  document_style: str = AS_WRITTEN) -> list[EpisodeSpec]:
    """``runs`` episodes per task (each task carries its task file: ``task.spec``); without a
    documents root the policy gets the goal alone (no document steps). ``document_style`` rewrites the
    steps the policy reads (``documents.restyle``); the trajectory header records them as rewritten."""
    specs = []
    for task_spec in tasks:
        task = task_spec.to_task(documents_root)
        if document_style != AS_WRITTEN:
            task.document = restyle(task.document, document_style)
        specs += [EpisodeSpec(task, task_spec.requirements, run_index=i) for i in range(runs)]
    return specs


def spec_of(episode: EpisodeSpec) -> TaskSpec:
    """The task file of an episode (the oracle plays its solution)."""
    if episode.task.spec is None:
        raise ValueError(f"episode {episode.key} has no task file: the oracle plays a task file's solution")
    return episode.task.spec


def policy_factory(name: str, **options: Any) -> Callable[[EpisodeSpec], Policy]:
    """A fresh policy per episode; one built from its task (the oracle) gets the task file and the provisioned outputs."""
    from consoleagent.policies.registry import entry_of, make_policy

    from_task = entry_of(name).from_task

    def make(episode: EpisodeSpec) -> Policy:
        if from_task:
            return make_policy(name, task=spec_of(episode), outputs=episode.outputs)
        return make_policy(name, **options)

    return make


@dataclass
class WorkerWorld:
    """What one worker process holds: its browser-backed env and its rollout."""

    env: Any
    rollout: Any
    pool: Any

    def close(self) -> None:
        self.env.close()
        close = getattr(self.pool, "close", None)  # a shared pool file; a backend's in-memory pool has nothing to close
        if close is not None:
            close()


def build_worker(*, backend: Any, world: Path, tasks: list[TaskSpec], policy: str,
                 policy_options: dict[str, Any] | None = None, worker: str = "worker-0",
                 trajectory_dir: Path | None = None, episode_deadline_s: float | None = None,
                 playwright: Any = None, lease_ttl_s: float = 900.0, screenshots: bool = False,
                 make_policy: Callable[[EpisodeSpec], Policy] | None = None) -> WorkerWorld:
    """One worker against a started console ``backend`` (``consoleagent.consoles``): its own Chromium,
    and the backend's pool, reset and audit reader over the shared ``world`` folder (safe to share
    between worker processes).

    ``screenshots``: keep a marked screenshot of every step in the trajectory. ``make_policy``, when
    given, replaces ``policy_factory(policy, ...)``: GRPO rolls out the model it trains, held in memory."""
    from consoleagent.consoles.world import Borrowed, rollout_parts
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.env.browser import BrowserHost
    from consoleagent.rollout.lifecycle import Rollout

    env = ConsoleEnv(Borrowed(backend), EnvConfig(screenshots=screenshots), browser=BrowserHost(playwright=playwright))
    parts = rollout_parts(backend, world, tasks, lease_ttl_s=lease_ttl_s)
    judge = RuleJudge(backend.base_url, collect=parts.collect_audit, state_reader=parts.state_reader,
                      delivery_delay_s=parts.delivery_delay_s)
    rollout = Rollout(pool=parts.pool, preparer=parts.preparer, env=env,
                      policy_factory=make_policy or policy_factory(policy, **(policy_options or {})),
                      worker=worker, judge=judge, episode_deadline_s=episode_deadline_s,
                      trajectory_dir=trajectory_dir, collect_audit=parts.collect_audit)
    return WorkerWorld(env, rollout, parts.pool)
