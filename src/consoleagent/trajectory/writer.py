"""Write one episode to a trajectory file (JSONL) as it happens.

Each record is one line written with a single ``write`` and made durable with ``fsync`` before
the writer returns, so a crash of the browser, the policy or the machine loses nothing already
recorded: the file then lacks its footer, which readers take to mean "interrupted". Screenshots
go to ``<stem>_screens/step-0003.png`` beside the file and the record names them by a relative
path, so a folder of trajectories can be moved or archived whole.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from consoleagent.trajectory.records import EpisodeFooter, EpisodeHeader, StepRecord


class TrajectoryWriter:
    """Appends the header, the steps and the footer of one episode; refuses to overwrite a file."""

    def __init__(self, path: str | os.PathLike[str], header: EpisodeHeader) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.screens_dir = self.path.with_name(f"{self.path.stem}_screens")
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        _fsync_dir(self.path.parent)  # the new file's directory entry survives a crash too
        self.steps = 0
        self.finished = False
        self._write(header.to_dict())

    def step(self, record: StepRecord, screenshot: bytes | None = None) -> StepRecord:
        """Record one step; ``screenshot`` (PNG bytes) is saved and ``record.screenshot`` set to it."""
        if screenshot is not None:
            record.screenshot = self._save_screenshot(record.step, screenshot)
        self._write(record.to_dict())
        self.steps += 1
        return record

    def finish(self, footer: EpisodeFooter) -> None:
        """Write the footer and close: the episode is complete."""
        self._write(footer.to_dict())
        self.finished = True
        self.close()

    def close(self) -> None:
        """Close the file; without :meth:`finish` first it stays footerless (an interrupted episode)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _save_screenshot(self, step: int, data: bytes) -> str:
        self.screens_dir.mkdir(exist_ok=True)
        name = f"step-{step:04d}.png"
        target = self.screens_dir / name
        partial = target.with_suffix(".png.partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(partial, target)  # a reader never sees half an image under the final name
        return f"{self.screens_dir.name}/{name}"

    def _write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            raise ValueError(f"{self.path}: the trajectory is closed" + (" (finished)" if self.finished else ""))
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        _write_all(self._fd, line.encode("utf-8"))
        os.fsync(self._fd)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` may write less than asked (signals, full pipes); finish the job."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # not possible on every platform; the data itself is still synced
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
