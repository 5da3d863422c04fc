"""Running a policy over tasks in one process: the oracle check and the building block of ``bench``."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from consoleagent.bench.episodes import build_worker, episode_specs
from consoleagent.rollout.lifecycle import RolloutResult, run_specs
from consoleagent.tasks.spec import TaskSpec


def run_tasks(tasks: list[TaskSpec], *, policy: str = "oracle", runs: int = 1, policy_options: dict[str, Any] | None = None,
              workdir: Path | None = None, console_url: str | None = None, admin_token: str | None = None,
              trajectory_dir: Path | None = None, time_scale: float = 50.0, accounts: int = 2,
              on_result: Callable[[RolloutResult], None] | None = None, ledger: Any = None,
              playwright: Any = None) -> list[RolloutResult]:
    """Every task ``runs`` times in one worker. Without ``console_url`` an in-process stratus is started
    (its clock ``time_scale`` times faster than the wall clock, so asynchronous states settle fast)."""
    from consoleagent.adapters.stratus import StratusAdapter
    from consoleagent.provisioning.pool import AccountPool
    from consoleagent.provisioning.sources import StratusAccountSource

    workdir = Path(workdir or tempfile.mkdtemp(prefix="consoleagent-run-"))
    workdir.mkdir(parents=True, exist_ok=True)
    server = None
    delivery_delay_s = None
    if console_url is None:
        for stale in ("pool.db", "pool.db-wal", "pool.db-shm", "snapshots.json"):  # they name a stopped server's accounts
            (workdir / stale).unlink(missing_ok=True)
        server = StratusAdapter(time_scale=time_scale)
        server.start()
        console_url, admin_token = server.base_url, server.admin_token
        delivery_delay_s = server.runtime.settings.audit_delivery_delay / time_scale
    try:
        pool = AccountPool(workdir / "pool.db", StratusAccountSource(console_url, admin_token))
        pool.fill(accounts)
        pool.close()
        world = build_worker(console_url=console_url, admin_token=admin_token or "", pool_path=workdir / "pool.db",
                             snapshots_path=workdir / "snapshots.json", tasks=tasks, policy=policy,
                             policy_options=policy_options, trajectory_dir=trajectory_dir, playwright=playwright,
                             delivery_delay_s=delivery_delay_s)
        try:
            return run_specs(world.rollout, episode_specs(tasks, runs), ledger, on_result=on_result)
        finally:
            world.close()
    finally:
        if server is not None:
            server.stop()
