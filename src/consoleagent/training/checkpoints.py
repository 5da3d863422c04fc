"""The ``checkpoint-N`` directories of a training run: finding the newest, resolving ``resume_from``,
pruning old ones. SFT's checkpoints are transformers' and GRPO's are its own, but both are
``<output_dir>/checkpoint-<step>`` holding ``trainer_state.json`` once complete, so one definition
serves both trainers.

A checkpoint is written under a temporary name and renamed (GRPO) or has its state file written
last (transformers), so a directory without the state file, or with a suffix that is not a step
number (``checkpoint-3.tmp``), is an interrupted save and never chosen to resume from.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PREFIX = "checkpoint-"
STATE_FILE = "trainer_state.json"  # transformers' name, which GRPO's own checkpoints reuse


def step_of(path: Path) -> int | None:
    """The step of a ``checkpoint-N`` directory name, None for anything else."""
    suffix = path.name.removeprefix(PREFIX)
    return int(suffix) if path.name.startswith(PREFIX) and suffix.isdigit() else None


def checkpoints(output_dir: Path, *, complete: bool = True) -> list[Path]:
    """The run's checkpoint directories, oldest first (by step); ``complete``: only those holding the state file."""
    found = [p for p in Path(output_dir).glob(f"{PREFIX}*") if p.is_dir() and step_of(p) is not None]
    if complete:
        found = [p for p in found if (p / STATE_FILE).exists()]
    return sorted(found, key=lambda p: step_of(p) or 0)


def latest_checkpoint(output_dir: Path) -> Path | None:
    """The newest complete checkpoint under ``output_dir``, or None."""
    found = checkpoints(output_dir)
    return found[-1] if found else None


def resume_path(resume_from: str | None, output_dir: Path, *, kind: str = "trainer") -> Path | None:
    """What a run's ``resume_from`` names: nothing (None or ""), the newest complete checkpoint ("last"),
    the newest one if there is one and else a fresh start ("auto": what a script that is simply run again
    wants), or a checkpoint directory. A ValueError says why when there is none (``kind`` names the trainer)."""
    if not resume_from:
        return None
    if resume_from == "auto":
        return latest_checkpoint(output_dir)
    if resume_from == "last":
        found = latest_checkpoint(output_dir)
        if found is None:
            raise ValueError(f"resume_from=last: no {PREFIX}* with {STATE_FILE} under {output_dir}")
        return found
    path = Path(resume_from)
    if not (path / STATE_FILE).exists():
        raise ValueError(f"resume_from: {path} is not a {kind} checkpoint (no {STATE_FILE})")
    return path


def prune(output_dir: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` checkpoints (complete or not); returns those deleted."""
    if keep < 1:
        raise ValueError(f"keep {keep} checkpoints: at least the newest one is needed to resume")
    stale = checkpoints(output_dir, complete=False)[:-keep]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return stale
