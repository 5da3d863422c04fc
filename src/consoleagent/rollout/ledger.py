"""The run ledger: which episodes of a run are finished, so an interrupted benchmark or data
collection continues where it stopped without repeating any.

An append-only JSONL file, one line per finished episode, fsynced; an episode that was running
when the process died has no line and runs again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator


class RunLedger:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._done: dict[str, dict[str, Any]] = {}
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # a line torn by a crash: that episode runs again
                raise ValueError(f"{self.path}:{number}: not a JSON line") from None
            self._done[record["key"]] = record

    def done(self, key: str) -> bool:
        return key in self._done

    def record(self, key: str, result: dict[str, Any]) -> None:
        line = json.dumps({"key": key, **result}, sort_keys=True, default=str) + "\n"
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        self._done[key] = {"key": key, **result}

    def results(self) -> Iterator[dict[str, Any]]:
        return iter(self._done.values())

    def __len__(self) -> int:
        return len(self._done)
