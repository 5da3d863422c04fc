"""Getting an account into a task's starting state: by snapshot restore where the console can, by
provisioning (and later destroying) where it cannot.

Provisioning a task's resources takes seconds to minutes and can fail; restoring a snapshot takes
milliseconds and gives every episode of the task (every rollout of a GRPO group, every one of k
benchmark runs) the identical backend state, down to the resource ids.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement, ResourceReport


@dataclass
class Prepared:
    outputs: dict[str, dict[str, Any]]
    report: ResourceReport
    source: str  # "snapshot" | "provisioned"
    seconds: float
    handle: Any = None  # what cleanup needs (the engine's Provisioned, for provision/destroy)


class Preparer(Protocol):
    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared: ...

    def cleanup(self, account: PooledAccount, prepared: Prepared) -> None: ...


def requirements_key(task_id: str, requirements: list[Requirement]) -> str:
    """Snapshots are per task *and* per requirement set: editing a task's requires invalidates them."""
    body = json.dumps([r.__dict__ for r in requirements], sort_keys=True, default=str)
    return f"{task_id}:{hashlib.sha256(body.encode()).hexdigest()[:12]}"


class ProvisionAndDestroy:
    """For consoles without snapshots: provision before each episode, destroy after."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared:
        started = time.monotonic()
        provisioned = self.engine.provision(account, requirements)
        return Prepared(provisioned.outputs, provisioned.report(), "provisioned", time.monotonic() - started, provisioned)

    def cleanup(self, account: PooledAccount, prepared: Prepared) -> None:
        self.engine.destroy(prepared.handle)


class SnapshotReset:
    """Provision a task once per account, snapshot it, and restore that snapshot for every later episode.

    The snapshot index (task key, account → snapshot id and outputs) is kept in a JSON file, so a
    restarted run reuses the snapshots it already made.
    """

    def __init__(self, engine: Any, admin: Any, index_path: Path | None = None) -> None:
        self.engine = engine
        self.admin = admin
        self.index_path = index_path
        self._lock = threading.Lock()
        self._index: dict[str, dict[str, Any]] = {}
        if index_path and index_path.exists():
            self._index = json.loads(index_path.read_text(encoding="utf-8"))

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared:
        started = time.monotonic()
        key = f"{requirements_key(task_id, requirements)}@{account.account_id}"
        entry = self._index.get(key)
        if entry is not None:
            try:
                self.admin.restore(entry["snapshot_id"])
            except Exception as exc:  # a snapshot that vanished (new database): provision again
                if "NotFound" not in str(getattr(exc, "code", exc)):
                    raise ProvisioningError(f"restoring snapshot {entry['snapshot_id']} failed: {exc}", phase="restore") from exc
                self._forget(key)
            else:
                report = ResourceReport(entry["resources"], "snapshot")
                return Prepared(entry["outputs"], report, "snapshot", time.monotonic() - started)
        self.admin.reset_account(account.account_id)  # start from an empty account, whatever the last episode did
        provisioned = self.engine.provision(account, requirements)
        snapshot = self.admin.snapshot(account.account_id, name=task_id)
        report = provisioned.report()
        self._remember(key, {"snapshot_id": snapshot["snapshot_id"], "outputs": provisioned.outputs,
                             "resources": report.resources})
        return Prepared(provisioned.outputs, report, "provisioned", time.monotonic() - started, provisioned)

    def cleanup(self, account: PooledAccount, prepared: Prepared) -> None:
        """Nothing to destroy: the next episode restores the snapshot; the pool cleans the account on release."""

    def _remember(self, key: str, entry: dict[str, Any]) -> None:
        with self._lock:
            self._index[key] = entry
            self._save()

    def _forget(self, key: str) -> None:
        with self._lock:
            self._index.pop(key, None)
            self._save()

    def _save(self) -> None:
        if self.index_path is None:
            return
        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.index_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._index, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(self.index_path)
