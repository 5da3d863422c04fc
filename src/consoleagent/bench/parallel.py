"""Running benchmark episodes in W worker processes, each with its own Chromium and ConsoleEnv, all
sharing one started console (its backend's world: for stratus one account pool file and one snapshot
index). A worker process reaches the console through a ``ConsoleRef`` (``consoleagent.consoles.world``).

The main process hands out episode keys through a queue and receives one record per finished
episode, which it alone writes to the run ledger (so the ledger has a single writer). A worker runs
an episode through the rollout lifecycle and retries it when the environment lost it (any phase's
failure, or the supervisor's deadline), up to ``env_error_retries`` times; the lost attempts are
kept in the record (``env_error_attempts``) and counted apart, never as the agent's failures. A worker
that dies is replaced and its episode handed out again. With one worker nothing is spawned: the
episodes run in the calling process (which may pass its own Playwright).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.documents.restyle import AS_WRITTEN
from consoleagent.rollout.lifecycle import EpisodeSpec, RolloutResult, run_retrying
from consoleagent.tasks.spec import TaskSpec

ORACLE_FAILURE = "policy failed: oracle"  # the oracle's solution does not fit: the policy's failure, not the environment's
MAX_WORKER_RESTARTS = 3


class BenchError(RuntimeError):
    """The benchmark cannot go on (a worker cannot start, workers keep dying)."""


@dataclass
class WorkerConfig:
    """Everything a worker process needs to build its world (picklable: it crosses the process boundary)."""

    console: Any  # a ConsoleRef: how a worker process reaches the started console (None: this process only)
    world: Path  # the folder the backend's workers share (stratus: pool.db, snapshots.json)
    tasks: list[TaskSpec]
    runs: int
    policy: str
    policy_options: dict[str, Any] = field(default_factory=dict)
    trajectory_dir: Path | None = None
    episode_deadline_s: float | None = None
    env_error_retries: int = 2
    provisioning: bool = True  # False: every task's requires: is dropped (empty accounts), for the ablation
    lease_ttl_s: float = 900.0
    screenshots: bool = False  # a marked screenshot per step in the trajectories (verify's evidence)
    with_documents: bool = True  # False: the policy gets the goal alone (verify's goal-directed attempts)
    documents_root: Path | None = None  # the console's documents (its backend's documents_root)
    document_style: str = AS_WRITTEN  # how the policy's document steps are written (documents.restyle)


def bench_specs(tasks: list[TaskSpec], runs: int, provisioning: bool = True, with_documents: bool = True,
                documents_root: Path | None = None, document_style: str = AS_WRITTEN) -> list[EpisodeSpec]:
    from consoleagent.bench.episodes import episode_specs
    from consoleagent.suite import DOCUMENTS_ROOT

    specs = episode_specs(tasks, runs, (documents_root or DOCUMENTS_ROOT) if with_documents else None, document_style)
    if not provisioning:
        for spec in specs:
            spec.requirements = []
    return specs


def is_policy_failure(result: RolloutResult) -> bool:
    """The oracle's solution failed on the page: deterministic, so not retried, and scored as a failure."""
    return result.status == "env_error" and (result.cause or "").startswith(ORACLE_FAILURE)


class RecordingJudge:
    """The rule judge, noting on the way the agent's console calls that failed (for the failure taxonomy)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failed_calls: list[dict[str, Any]] = []

    def forget(self) -> None:
        """Before each attempt: a lost attempt's calls are not the kept attempt's."""
        self.failed_calls = []

    def __call__(self, spec: Any, episode: Any, records: list[dict[str, Any]]) -> Any:
        self.failed_calls = [{"event": r.get("eventName"), "error": r.get("errorCode")} for r in records
                             if r.get("errorCode") and r.get("actor") == "console"]
        return self.inner(spec, episode, records)


class EpisodeRunner:
    """One worker's world and its episodes, each with environment-error retries, as ledger records."""

    def __init__(self, config: WorkerConfig, worker: str = "worker-0", playwright: Any = None,
                 backend: Any = None) -> None:
        """``backend``: the started console in this process; None: connect to ``config.console``."""
        from consoleagent.bench.episodes import build_worker
        from consoleagent.consoles.world import connect

        self.config, self.worker = config, worker
        self._connected = None
        if backend is None:
            if config.console is None:
                raise BenchError("this console runs its episodes in the process that started it (one worker)")
            backend = self._connected = connect(config.console)
        self.world = build_worker(backend=backend, world=config.world, tasks=config.tasks,
                                  policy=config.policy, policy_options=config.policy_options, worker=worker,
                                  trajectory_dir=config.trajectory_dir, episode_deadline_s=config.episode_deadline_s,
                                  playwright=playwright, lease_ttl_s=config.lease_ttl_s, screenshots=config.screenshots)
        self.judge = RecordingJudge(self.world.rollout.judge)
        self.world.rollout.judge = self.judge
        self.specs = {spec.key: spec for spec in bench_specs(config.tasks, config.runs, config.provisioning,
                                                             config.with_documents, config.documents_root,
                                                             config.document_style)}

    def run(self, key: str) -> dict[str, Any]:
        from consoleagent.bench.trace import read_trace
        from consoleagent.encoder import in_use

        started = time.monotonic()
        result, lost = run_retrying(self.world.rollout, self.specs[key], env_error_retries=self.config.env_error_retries,
                                    final=is_policy_failure, before_attempt=self.judge.forget)
        record = _json_safe(result.to_dict())
        trajectory = (result.episode or {}).get("trajectory")
        record.update(worker=self.worker, attempts=len(lost) + 1, env_error_attempts=lost,
                      policy_error=is_policy_failure(result), failed_calls=self.judge.failed_calls,
                      trace=read_trace(trajectory), wall_s=round(time.monotonic() - started, 3),
                      trajectory=str(trajectory) if trajectory else None, encoder=in_use())
        return record

    def close(self) -> None:
        self.world.close()
        if self._connected is not None:
            self._connected.stop()  # a connected backend stops nothing of the console, only its clients


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# --- worker processes ----------------------------------------------------------------------


def worker_main(worker: str, config: WorkerConfig, keys: Any, results: Any, parent_pid: int) -> None:
    """A worker process: build the world, then run keys until the ``None`` sentinel (or the parent is gone).

    Ctrl-C reaches every process of the terminal's group; a worker ignores it and lets the main process
    decide (it stops the workers itself), so an interrupted run prints one line, not a traceback per worker.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        runner = EpisodeRunner(config, worker)
    except Exception:
        results.put({"type": "error", "worker": worker, "error": traceback.format_exc()})
        return
    try:
        while True:
            try:
                key = keys.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent_pid:
                    return  # the benchmark's process died: stop; its rerun resumes from the ledger
                continue
            if key is None:
                return
            results.put({"type": "started", "worker": worker, "key": key})
            try:
                record = runner.run(key)
            except Exception:  # a bug outside the lifecycle's phases: report it and let the main process decide
                results.put({"type": "error", "worker": worker, "key": key, "error": traceback.format_exc()})
                return
            results.put({"type": "record", "worker": worker, "key": key, "record": record})
    finally:
        try:
            runner.close()
        except Exception:
            pass


def run_episodes(config: WorkerConfig, keys: list[str], *, workers: int = 1, on_record: Callable[[dict[str, Any]], None],
                 playwright: Any = None, should_stop: Callable[[], bool] = lambda: False, backend: Any = None) -> None:
    """Run ``keys`` with ``workers`` processes, calling ``on_record(record)`` in this process as each finishes.

    ``backend``: the started console, used as it is by a single worker in this process.

    ``should_stop()`` is asked after every record: when true, no further episode starts (running ones finish).
    """
    if not keys:
        return
    if workers <= 1:
        runner = EpisodeRunner(config, "worker-0", playwright=playwright, backend=backend)
        try:
            for key in keys:
                on_record(runner.run(key))
                if should_stop():
                    return
        finally:
            runner.close()
        return
    if config.console is None:
        raise BenchError("this console cannot be reached from worker processes: run it with --workers 1")
    _run_processes(config, keys, min(workers, len(keys)), on_record, should_stop)


def _run_processes(config: WorkerConfig, keys: list[str], workers: int, on_record: Callable[[dict[str, Any]], None],
                   should_stop: Callable[[], bool]) -> None:
    ctx = multiprocessing.get_context("spawn")  # never fork a process that runs stratus's threads
    key_queue, result_queue = ctx.Queue(), ctx.Queue()
    for key in keys:
        key_queue.put(key)
    procs: dict[str, Any] = {}
    running: dict[str, str] = {}  # worker -> the key it runs
    counter = 0

    def spawn() -> None:
        nonlocal counter
        name = f"worker-{counter}"
        counter += 1
        proc = ctx.Process(target=worker_main, args=(name, config, key_queue, result_queue, os.getpid()), daemon=True,
                           name=f"consoleagent-bench-{name}")
        proc.start()
        procs[name] = proc

    for _ in range(workers):
        spawn()
    remaining = set(keys)
    interrupted = True  # until the loop ends normally: an exception (Ctrl-C, a BenchError) stops workers at once
    try:
        _collect(result_queue, key_queue, procs, running, remaining, spawn, on_record, should_stop)
        interrupted = False
    finally:
        _stop_workers(procs, key_queue, grace_s=0.0 if interrupted else 10.0)


def _collect(result_queue: Any, key_queue: Any, procs: dict[str, Any], running: dict[str, str], remaining: set[str],
             spawn: Callable[[], None], on_record: Callable[[dict[str, Any]], None], should_stop: Callable[[], bool]) -> None:
    """Receive the workers' messages until every key has a record (or a stop was asked and the running finish)."""
    stopping = False
    restarts = 0
    while remaining:
        try:
            message = result_queue.get(timeout=1.0)
        except queue.Empty:
            for name, proc in list(procs.items()):
                if proc.is_alive():
                    continue
                del procs[name]
                key = running.pop(name, None)
                if stopping:
                    continue
                if restarts >= MAX_WORKER_RESTARTS:
                    raise BenchError(f"{name} exited with code {proc.exitcode}; {restarts} workers were already replaced")
                restarts += 1
                if key is not None:
                    key_queue.put(key)  # hand the lost episode out again
                spawn()
            if stopping and not procs:
                return
            continue
        kind, name = message["type"], message["worker"]
        if kind == "started":
            running[name] = message["key"]
        elif kind == "record":
            running.pop(name, None)
            remaining.discard(message["key"])
            on_record(message["record"])
            if not stopping and should_stop():
                stopping = True
                _drain(key_queue)  # no further episode starts; the running ones finish and are recorded
            if stopping and not running:
                return
        elif kind == "error":
            raise BenchError(f"{name} failed" + (f" on {message['key']}" if message.get("key") else " to start")
                             + f":\n{message['error']}")


def _stop_workers(procs: dict[str, Any], key_queue: Any, grace_s: float) -> None:
    """Send every worker the stop sentinel and wait up to ``grace_s`` before terminating it (0: at once,
    after an interruption: the episodes in flight are lost and run again on resume)."""
    for _ in procs:
        key_queue.put(None)
    deadline = time.monotonic() + grace_s
    for proc in procs.values():
        if grace_s:
            proc.join(timeout=max(0.1, deadline - time.monotonic()))
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=5.0)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=2.0)


def _drain(key_queue: Any) -> None:
    while True:
        try:
            key_queue.get_nowait()
        except queue.Empty:
            return
