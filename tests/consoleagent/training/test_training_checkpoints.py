"""The one definition of a run's checkpoints (training.checkpoints), which SFT and GRPO share: the
newest complete one is resumed, interrupted saves are never chosen, pruning keeps the newest."""

from __future__ import annotations

from pathlib import Path

import pytest

from consoleagent.training.checkpoints import STATE_FILE, checkpoints, latest_checkpoint, prune, resume_path


def make(out: Path, name: str, complete: bool = True) -> Path:
    path = out / name
    path.mkdir(parents=True)
    if complete:
        (path / STATE_FILE).write_text("{}", encoding="utf-8")
    return path


def test_the_newest_complete_checkpoint_is_resumed(tmp_path: Path) -> None:
    assert latest_checkpoint(tmp_path) is None
    assert resume_path("auto", tmp_path) is None  # nothing to resume: a fresh start
    with pytest.raises(ValueError, match=f"resume_from=last: no checkpoint-\\* with {STATE_FILE} under"):
        resume_path("last", tmp_path)
    for step in (2, 10, 9):  # by step, not by name: checkpoint-10 is newer than checkpoint-9
        make(tmp_path, f"checkpoint-{step}")
    make(tmp_path, "checkpoint-11", complete=False)  # a save that was interrupted
    make(tmp_path, "checkpoint-12.tmp")  # a save not yet renamed
    make(tmp_path, "final")
    assert [p.name for p in checkpoints(tmp_path)] == ["checkpoint-2", "checkpoint-9", "checkpoint-10"]
    assert latest_checkpoint(tmp_path) == resume_path("last", tmp_path) == resume_path("auto", tmp_path) == tmp_path / "checkpoint-10"
    assert resume_path(None, tmp_path) is None and resume_path("", tmp_path) is None
    assert resume_path(str(tmp_path / "checkpoint-2"), tmp_path) == tmp_path / "checkpoint-2"
    with pytest.raises(ValueError, match="checkpoint-11 is not a GRPO checkpoint"):
        resume_path(str(tmp_path / "checkpoint-11"), tmp_path, kind="GRPO")


def test_pruning_keeps_the_newest(tmp_path: Path) -> None:
    for step in (1, 2, 3, 10):
        make(tmp_path, f"checkpoint-{step}", complete=step != 3)
    make(tmp_path, "best")
    deleted = prune(tmp_path, 2)
    assert [p.name for p in deleted] == ["checkpoint-1", "checkpoint-2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best", "checkpoint-10", "checkpoint-3"]
    with pytest.raises(ValueError, match="at least the newest one"):
        prune(tmp_path, 0)
