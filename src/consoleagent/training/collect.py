"""Collect teacher trajectories through the rollout lifecycle: ``consoleagent collect``.

Collection is a benchmark run whose product is the data: the same harness (lease, provision or
restore, episode, audit, judge, release; environment errors retried and counted apart; resumable
from its ledger) with any policy as the teacher (an API model where one is configured, the oracle
offline). The results directory holds ``ledger.jsonl`` (reward, status and trajectory path per
episode), ``trajectories/`` and ``results.json``; ``consoleagent samples --from DIR`` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from consoleagent.documents.restyle import AS_WRITTEN
from consoleagent.tasks.spec import TaskSpec


def collect(tasks: list[TaskSpec], out_dir: str | Path, *, policy: str = "oracle", runs: int = 1, workers: int = 1,
            policy_options: dict[str, Any] | None = None, selector: str | None = None, console: Any = "stratus",
            console_options: dict[str, Any] | None = None, limit: int | None = None, playwright: Any = None,
            on_record: Callable[[dict[str, Any]], None] | None = None, command: str | None = None,
            document_style: str = AS_WRITTEN) -> dict[str, Any]:
    """Run ``policy`` on ``tasks`` ``runs`` times each into ``out_dir`` (resuming what is there); return the
    harness's results document. ``console``: the console backend's name (with ``console_options``), a
    console YAML file, or a started backend object. ``document_style``: the documents' steps as the teacher
    reads them and the trajectories record them (``documents.restyle``)."""
    from consoleagent.bench.harness import BenchConfig, run_bench

    config = BenchConfig(results_dir=Path(out_dir), policy=policy, policy_options=dict(policy_options or {}), runs=runs,
                         workers=workers, selector=selector, console=console, console_options=dict(console_options or {}),
                         plots=False, command=command, document_style=document_style)
    return run_bench(config, tasks, playwright=playwright, on_record=on_record, limit=limit)
