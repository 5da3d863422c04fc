"""One episode through the whole rollout lifecycle, each phase timed and its failure classified:

    lease → prepare (restore or provision, verified) → run episode → collect audit → judge →
    cleanup (destroy or nothing) → release

A failure in any phase but the agent's own decisions makes the episode ``env_error`` with the
phase named (``failure_phase``), so it can be retried (``run_retrying``) and never enters training
or scoring.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Protocol

from consoleagent.env.console_env import ConsoleEnv
from consoleagent.policies.base import Policy
from consoleagent.placeholders import substitute
from consoleagent.provisioning.types import Lease, Requirement
from consoleagent.rollout.reset import Prepared, Preparer
from consoleagent.rollout.supervisor import EpisodeDeadline, deadline
from consoleagent.runner import EpisodeResult, run_episode
from consoleagent.tasks.task import Task

PHASES = ("lease", "prepare", "episode", "audit", "judge", "cleanup", "release")


class Pool(Protocol):
    def lease(self, worker: str, *, ttl_s: float | None = None, wait_s: float = 30.0) -> Lease: ...

    def release(self, lease: Lease, *, dirty: bool = False) -> None: ...


# judge(spec, episode result, the agent's audit records) -> a reward in [0, 1], None when it cannot say,
# or a verdict (an object with .reward and .to_dict(), such as consoleagent.rewards.Verdict)
Judge = Callable[["EpisodeSpec", EpisodeResult, list[dict[str, Any]]], Any]


@dataclass
class EpisodeSpec:
    task: Task
    requirements: list[Requirement] = field(default_factory=list)
    run_index: int = 0
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # filled after prepare: the provisioned outputs

    @property
    def key(self) -> str:
        return f"{self.task.id}#{self.run_index}"


@dataclass
class PhaseLog:
    phase: str
    seconds: float
    ok: bool
    error: str | None = None


@dataclass
class RolloutResult:
    key: str
    status: str  # the episode's status, or env_error when a phase failed
    phases: list[PhaseLog]
    failure_phase: str | None = None
    cause: str | None = None
    reward: float | None = None
    verdict: dict[str, Any] | None = None  # the judge's explanation, when it gives one
    episode: dict[str, Any] | None = None
    audit_records: int = 0
    reset_source: str | None = None  # snapshot | provisioned
    account_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Rollout:
    """Runs episodes for one worker: its env (one browser), the shared pool, a preparer and a judge."""

    def __init__(self, *, pool: Pool, preparer: Preparer, env: ConsoleEnv, policy_factory: Callable[[EpisodeSpec], Policy],
                 worker: str = "worker-0", judge: Judge | None = None, episode_deadline_s: float | None = None,
                 trajectory_dir: Path | None = None, collect_audit: Callable[[Any, str], list[dict[str, Any]]],
                 resourcecoder: Any = None) -> None:
        """``collect_audit(credentials, console_url)`` reads the episode's audit records: it is the
        console backend's (``consoleagent.consoles.world.rollout_parts``), as are ``pool`` and ``preparer``."""
        self.pool, self.preparer, self.env = pool, preparer, env
        self.policy_factory, self.worker, self.judge = policy_factory, worker, judge
        self.episode_deadline_s = episode_deadline_s
        self.trajectory_dir = trajectory_dir
        self.collect_audit = collect_audit
        self.resourcecoder = resourcecoder  # serves the agent's request_resource(...) in the leased account

    def run(self, spec: EpisodeSpec, policy: Policy | None = None) -> RolloutResult:
        """One episode of ``spec`` through every phase; ``policy`` plays it (default: ``policy_factory(spec)``,
        made in the episode phase)."""
        phases: list[PhaseLog] = []
        result = RolloutResult(spec.key, "env_error", phases)
        ok, lease = self._phase(phases, "lease", lambda: self.pool.lease(self.worker))
        if not ok:
            return self._failed(result, "lease")
        result.account_id = lease.account.account_id
        try:
            ok, prepared = self._phase(phases, "prepare",
                                       lambda: self.preparer.prepare(lease.account, spec.task.id, spec.requirements))
            if not ok:
                return self._failed(result, "prepare")
            result.reset_source = prepared.source
            spec = replace(spec, outputs=prepared.outputs)
            ok, episode = self._phase(phases, "episode", lambda: self._episode(spec, lease, prepared, policy))
            if not ok:
                return self._failed(result, "episode")
            result.episode = {k: v for k, v in episode.__dict__.items() if k != "credentials"}
            result.status, result.cause = episode.status, episode.cause
            if episode.status == "env_error":
                result.failure_phase = "episode"
                return result
            ok, records = self._phase(phases, "audit",
                                      lambda: self.collect_audit(episode.credentials, self.env.adapter.base_url))
            if not ok:
                return self._failed(result, "audit")
            result.audit_records = len(records)
            if self.judge is not None:
                ok, judged = self._phase(phases, "judge", lambda: self.judge(spec, episode, records))
                if not ok:
                    return self._failed(result, "judge")
                if hasattr(judged, "reward"):
                    result.reward, result.verdict = judged.reward, judged.to_dict()
                else:
                    result.reward = judged
            ok, _ = self._phase(phases, "cleanup", lambda: self.preparer.cleanup(lease.account, prepared))
            if not ok:
                return self._failed(result, "cleanup")
            return result
        finally:
            # Always released dirty: the pool cleans the account before its next lease, and a snapshot
            # restore (or a fresh provisioning) rebuilds the task's state on top of the clean account.
            self._phase(phases, "release", lambda: self.pool.release(lease, dirty=True))

    def _episode(self, spec: EpisodeSpec, lease: Lease, prepared: Prepared, policy: Policy | None) -> EpisodeResult:
        """The episode signs in as the leased account; the agent is told what was prepared for it."""
        task = replace(spec.task, goal=substitute(spec.task.goal, spec.outputs))  # goals may name provisioned ids
        trajectory = self.trajectory_dir / f"{spec.key.replace('#', '-run')}.jsonl" if self.trajectory_dir else None
        if trajectory is not None and trajectory.exists():
            trajectory.unlink()  # a leftover of an interrupted attempt: this attempt replaces it
        if policy is None:
            policy = self.policy_factory(spec)
        if self.resourcecoder is not None:
            self.env.provisioner = self.resourcecoder.as_env_provisioner(lease.account)
        with deadline(self.episode_deadline_s):
            try:
                return run_episode(self.env, policy, task, trajectory=trajectory, credentials=lease.account.credentials(),
                                   resource_report=prepared.report.text() if prepared.report.resources else None)
            except EpisodeDeadline as exc:
                return EpisodeResult("env_error", 0, 0.0, cause=f"supervisor: {exc}")

    @staticmethod
    def _phase(phases: list[PhaseLog], name: str, action: Callable[[], Any]) -> tuple[bool, Any]:
        """Run one phase; any exception is the environment's failure, recorded with its cause."""
        started = time.monotonic()
        try:
            value = action()
        except Exception as exc:
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            phases.append(PhaseLog(name, time.monotonic() - started, False, detail))
            return False, None
        phases.append(PhaseLog(name, time.monotonic() - started, True))
        return True, value

    @staticmethod
    def _failed(result: RolloutResult, phase: str) -> RolloutResult:
        result.status = "env_error"
        result.failure_phase = phase
        result.cause = next((p.error for p in reversed(result.phases) if p.phase == phase and not p.ok), None)
        return result


def run_retrying(rollout: Rollout, spec: EpisodeSpec, *, env_error_retries: int = 2,
                 final: Callable[[RolloutResult], bool] = lambda result: False,
                 before_attempt: Callable[[], None] | None = None) -> tuple[RolloutResult, list[dict[str, Any]]]:
    """Run ``spec``, and again while the environment loses it (``env_error``), up to ``env_error_retries``
    more times, so that faults of the environment do not become results.

    ``final(result)`` marks an ``env_error`` a retry would not change (the oracle's solution not
    fitting the page is deterministic): it is kept at once. ``before_attempt()`` runs before each
    attempt (the benchmark resets what its judge noted). Returns the last result and the lost
    attempts (``{"phase", "cause"}`` each), which the benchmark records apart, never as the agent's
    failures. An interruption (``KeyboardInterrupt``) escapes: the caller's ledger makes the run
    resumable, and the interrupted episode starts over.
    """
    lost: list[dict[str, Any]] = []
    while True:
        if before_attempt is not None:
            before_attempt()
        result = rollout.run(spec)
        if result.status != "env_error" or final(result) or len(lost) >= env_error_retries:
            return result, lost
        lost.append({"phase": result.failure_phase, "cause": result.cause})
