"""Teacher collections from any console: a collection made with ``collect --console pgadmin`` trains the ranker as a
stratus one does, and the split rule holds there too (a held-out pgAdmin task is refused, by name). No browser:
the ledgers are written here, as ``collect`` writes them, and only their task ids and outcomes are read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consoleagent.suite.catalog import shipped_tasks
from consoleagent.training.ranker_data import preferred_episodes


def ledger(directory: Path, key: str) -> Path:
    """A collection of one episode, as ``collect`` records a finished one. Its trajectory file must exist for the
    episode to be kept, but its steps are not read here."""
    (directory / "trajectories").mkdir(parents=True)
    trajectory = directory / "trajectories" / f"{key.replace('#', '-run')}.jsonl"
    trajectory.write_text("", encoding="utf-8")
    record = {"key": key, "status": "completed", "reward": 1.0,
              "episode": {"status": "completed", "discrepancies": [], "trajectory": str(trajectory)}}
    (directory / "ledger.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return directory


def test_every_consoles_tasks_are_known_with_their_splits() -> None:
    specs = shipped_tasks()
    assert specs["ecs-keypair-create-01"].console == "stratus"
    assert specs["pgadmin-cast-create-01"].console == "pgadmin" and specs["pgadmin-cast-create-01"].split == "train"
    assert specs["pgadmin-backup-create-01"].split == "test"


def test_a_pgadmin_collection_trains_and_its_held_out_tasks_are_refused(tmp_path: Path) -> None:
    train = ledger(tmp_path / "train", "pgadmin-cast-create-01#0")
    stratus = ledger(tmp_path / "stratus", "ecs-keypair-create-01#0")
    episodes, taught, _ = preferred_episodes([stratus, train])
    assert taught == {"ecs-keypair-create-01": str(stratus), "pgadmin-cast-create-01": str(train)}
    assert [e.task_id for e in episodes] == ["ecs-keypair-create-01", "pgadmin-cast-create-01"]
    held_out = ledger(tmp_path / "held-out", "pgadmin-backup-create-01#0")
    with pytest.raises(ValueError, match="outside the train split .*pgadmin-backup-create-01"):
        preferred_episodes([train, held_out])


def test_a_task_no_console_ships_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="tasks the suite does not have: nowhere-task-01"):
        preferred_episodes([ledger(tmp_path / "unknown", "nowhere-task-01#0")])


def test_a_task_id_two_consoles_ship_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """One map serves every console only while ids are unique: two consoles shipping the same task files (here
    pgAdmin's folder answered for every console) are refused, naming the id and both consoles."""
    import consoleagent.consoles as consoles

    pgadmin_root = consoles.tasks_root_of("pgadmin")
    monkeypatch.setattr(consoles, "tasks_root_of", lambda console: pgadmin_root)
    with pytest.raises(ValueError, match=r"task id 'pgadmin-[\w-]+' is shipped by two consoles \(pgadmin, stratus\)"):
        shipped_tasks()
