"""One snapshot index file shared by the worker processes of a benchmark.

:class:`~consoleagent.rollout.reset.SnapshotReset` keeps its index in memory and rewrites the whole
file; with several processes on one file each would overwrite the others' entries. Here every read
of an entry first merges the file, and every change is a read-modify-write under an exclusive
``flock`` on a lock file beside it, written through a temporary file of its own, so all workers
see every snapshot any of them made.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from consoleagent.provisioning.types import PooledAccount, Requirement
from consoleagent.rollout.reset import Prepared, SnapshotReset


class SharedSnapshotReset(SnapshotReset):
    def __init__(self, engine: Any, admin: Any, index_path: Path) -> None:
        super().__init__(engine, admin, None)
        self.index_path = Path(index_path)
        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_path = self.index_path.with_name(self.index_path.name + ".lock")
        self._reload()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self._lock_path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _read_file(self) -> dict[str, dict[str, Any]]:
        try:
            return json.loads(self.index_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}

    def _reload(self) -> None:
        with self._locked():
            self._index = self._read_file()

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared:
        self._reload()  # another worker may have snapshotted this task on this account
        return super().prepare(account, task_id, requirements)

    def _remember(self, key: str, entry: dict[str, Any]) -> None:
        self._update(lambda index: index.__setitem__(key, entry))

    def _forget(self, key: str) -> None:
        self._update(lambda index: index.pop(key, None))

    def _update(self, change: Any) -> None:
        with self._locked():
            index = self._read_file()
            change(index)
            tmp = self.index_path.with_name(f"{self.index_path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(index, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(self.index_path)
            self._index = index
