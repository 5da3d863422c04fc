"""Read a trajectory file back, accepting what a crash can leave behind and nothing else.

A crash can leave two things: no footer (the episode was interrupted) and a torn last line (the
write in progress). Both are accepted and flagged. Anything else wrong (a missing header, a
corrupt line in the middle, a record after the footer) is an error naming the file and line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.trajectory.records import FORMAT_VERSION


class TrajectoryFormatError(ValueError):
    """The file is not a readable trajectory; the message names the file and the line."""


@dataclass
class Trajectory:
    path: Path
    header: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] | None = None
    interrupted: bool = True  # no footer: the episode did not finish writing
    truncated_line: bool = False  # a torn last line was ignored

    def screenshot_path(self, step: dict[str, Any]) -> Path | None:
        """Where a step's screenshot lies (its record holds a path relative to the file)."""
        relative = step.get("screenshot")
        return self.path.parent / relative if relative else None


def read_trajectory(path: str | os.PathLike[str]) -> Trajectory:
    """Read one trajectory file; raise :class:`TrajectoryFormatError` when it is damaged."""
    path = Path(path)
    data = path.read_bytes()
    lines = data.split(b"\n")
    last = max((i for i, line in enumerate(lines) if line.strip(b" \t\r\x00")), default=-1)
    if last < 0:
        raise TrajectoryFormatError(f"{path}: empty file; a trajectory starts with its header line")
    records: list[tuple[int, dict[str, Any]]] = []
    truncated = False
    for index in range(last + 1):
        raw = lines[index]
        if not raw.strip(b" \t\r"):
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            if index == last:  # the line being written when the episode stopped
                truncated = True
                break
            raise TrajectoryFormatError(f"{path}:{index + 1}: not a JSON record ({exc})") from None
        if not isinstance(record, dict):
            raise TrajectoryFormatError(f"{path}:{index + 1}: a record must be a JSON object, got {type(record).__name__}")
        records.append((index + 1, record))
    return _assemble(path, records, truncated)


def _assemble(path: Path, records: list[tuple[int, dict[str, Any]]], truncated: bool) -> Trajectory:
    if not records or records[0][1].get("type") != "header":
        lineno, kind = (records[0][0], records[0][1].get("type")) if records else (1, None)
        raise TrajectoryFormatError(f"{path}:{lineno}: the first record must be the episode header (type \"header\"), got "
                                    f"{'type ' + repr(kind) if kind else 'a torn line'}")
    header = records[0][1]
    version = header.get("format_version", FORMAT_VERSION)
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise TrajectoryFormatError(f"{path}:{records[0][0]}: format_version {version!r} is newer than this reader "
                                    f"({FORMAT_VERSION}); upgrade consoleagent")
    trajectory = Trajectory(path, header, truncated_line=truncated)
    for lineno, record in records[1:]:
        kind = record.get("type")
        if trajectory.footer is not None:
            raise TrajectoryFormatError(f"{path}:{lineno}: a {kind!r} record after the footer")
        if kind == "step":
            trajectory.steps.append(record)
        elif kind == "footer":
            trajectory.footer = record
        else:
            raise TrajectoryFormatError(f"{path}:{lineno}: unknown record type {kind!r} (expected \"step\" or \"footer\")")
    trajectory.interrupted = trajectory.footer is None
    return trajectory
