"""From task files to rollouts: the episode specs, the policy for each episode, the release pin,
and one worker's world (stratus, browser, account pool, snapshot reset, rule judge)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consoleagent.policies.base import Policy
from consoleagent.provisioning.types import PooledAccount, Requirement
from consoleagent.rewards.judge import RuleJudge
from consoleagent.rollout.lifecycle import EpisodeSpec
from consoleagent.rollout.reset import Prepared, Preparer
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.tasks.spec import TaskSpec


def episode_specs(tasks: list[TaskSpec], runs: int, documents_root: Path | None = DOCUMENTS_ROOT) -> list[EpisodeSpec]:
    """``runs`` episodes per task, the task file riding along in ``task.meta["spec"]``; without a
    documents root the policy gets the goal alone (no document steps)."""
    specs = []
    for task_spec in tasks:
        task = task_spec.to_task(documents_root)
        task.meta["spec"] = task_spec
        specs += [EpisodeSpec(task, task_spec.requirements, run_index=i) for i in range(runs)]
    return specs


def spec_of(episode: EpisodeSpec) -> TaskSpec:
    return episode.task.meta["spec"]


def policy_factory(name: str, **options: Any) -> Callable[[EpisodeSpec], Policy]:
    """A fresh policy per episode; the oracle gets the task's solution and the provisioned outputs."""
    from consoleagent.policies.oracle import OraclePolicy
    from consoleagent.policies.registry import make_policy

    def make(episode: EpisodeSpec) -> Policy:
        if name == "oracle":
            return OraclePolicy(spec_of(episode).oracle, episode.outputs)
        return make_policy(name, **options)

    return make


class ReleasePinned:
    """A preparer that first puts the leased account on the task's console release."""

    def __init__(self, inner: Preparer, admin: Any, releases: dict[str, str]) -> None:
        self.inner, self.admin, self.releases = inner, admin, releases

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared:
        self.admin.set_release(account.account_id, self.releases.get(task_id))
        return self.inner.prepare(account, task_id, requirements)

    def cleanup(self, account: PooledAccount, prepared: Prepared) -> None:
        self.inner.cleanup(account, prepared)


@dataclass
class WorkerWorld:
    """What one worker process holds: its browser-backed env and its rollout."""

    env: Any
    rollout: Any
    pool: Any

    def close(self) -> None:
        self.env.close()
        self.pool.close()


def build_worker(*, console_url: str, admin_token: str, pool_path: Path, snapshots_path: Path, tasks: list[TaskSpec],
                 policy: str, policy_options: dict[str, Any] | None = None, worker: str = "worker-0",
                 trajectory_dir: Path | None = None, episode_deadline_s: float | None = None,
                 playwright: Any = None, reset: str = "snapshot", lease_ttl_s: float = 900.0,
                 delivery_delay_s: float | None = None, screenshots: bool = False,
                 make_policy: Callable[[EpisodeSpec], Policy] | None = None) -> WorkerWorld:
    """One worker against a running stratus: its own Chromium, the shared pool and snapshot index
    (safe to share between worker processes).

    ``reset`` is ``snapshot`` (provision once per account, restore after) or ``provision``
    (provision before and destroy after every episode: the ablation baseline). ``delivery_delay_s``: the
    console's audit delivery delay in wall-clock seconds when known (the judge then stops waiting early).
    ``screenshots``: keep a marked screenshot of every step in the trajectory. ``make_policy``, when given,
    replaces ``policy_factory(policy, ...)``: GRPO rolls out the model it trains, held in memory."""
    from consoleagent.bench.snapshot_index import SharedSnapshotReset
    from consoleagent.adapters.stratus import StratusAdapter
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.env.browser import BrowserHost
    from consoleagent.provisioning.engine import ProvisioningEngine
    from consoleagent.provisioning.library_stratus import stratus_library
    from consoleagent.provisioning.pool import AccountPool
    from consoleagent.provisioning.sources import StratusAccountSource
    from consoleagent.rollout.lifecycle import Rollout
    from consoleagent.rollout.reset import ProvisionAndDestroy

    adapter = StratusAdapter(console_url, admin_token=admin_token)
    env = ConsoleEnv(adapter, EnvConfig(screenshots=screenshots), browser=BrowserHost(playwright=playwright))
    pool = AccountPool(pool_path, StratusAccountSource(console_url, admin_token), lease_ttl_s=lease_ttl_s)
    engine = ProvisioningEngine(stratus_library())
    inner: Preparer = SharedSnapshotReset(engine, adapter.admin, snapshots_path) if reset == "snapshot" else ProvisionAndDestroy(engine)
    preparer = ReleasePinned(inner, adapter.admin, {t.id: t.release for t in tasks})
    rollout = Rollout(pool=pool, preparer=preparer, env=env, policy_factory=make_policy or policy_factory(policy, **(policy_options or {})),
                      worker=worker, judge=RuleJudge(console_url, delivery_delay_s=delivery_delay_s), episode_deadline_s=episode_deadline_s,
                      trajectory_dir=trajectory_dir)
    return WorkerWorld(env, rollout, pool)
