"""GRPO's checkpoint choice: greedy success first, equal ones told apart by sampled rollouts; or pooled.

The rollouts are scripted here (which checkpoint succeeds on which draw); a live stratus episode per
rollout is what the GRPO tests in test_training_grpo.py run end to end through the same ``validate``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from consoleagent.training.config import GRPORunConfig
from consoleagent.training.grpo import EpisodeOutcome, StepGRPOTrainer

SPECS = [SimpleNamespace(id=f"val-{i}") for i in range(3)]


class ScriptedRollouts:
    """Each checkpoint's greedy and sampled successes; records what validation asked for."""

    def __init__(self, trainer: StepGRPOTrainer, script: dict[int, tuple[int, int]]) -> None:
        self.trainer, self.script = trainer, script  # step -> (greedy tasks solved, sampled rollouts solved)
        self.calls: list[tuple[int, str, int, float, int | None]] = []
        self.saved: list[int] = []
        self.paths: list[Path] = []

    def rollout(self, spec: Any, run_index: int, *, temperature: float, seed: int | None, trajectories: Path) -> EpisodeOutcome:
        step = self.trainer.step
        self.calls.append((step, spec.id, run_index, temperature, seed))
        greedy, sampled = self.script[step]
        if temperature == 0.0:
            solved = SPECS.index(spec) < greedy
        else:
            solved = sum(1 for c in self.calls if c[0] == step and c[3] > 0) <= sampled
        return EpisodeOutcome(spec.id, f"{spec.id}-{run_index}", "completed", 1.0 if solved else 0.0, True, [])

    def save_model(self, path: Path) -> Path:
        self.saved.append(self.trainer.step)
        self.paths.append(path)
        return path


def _trainer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: dict[int, tuple[int, int]],
             **fields: Any) -> tuple[StepGRPOTrainer, ScriptedRollouts]:
    config = GRPORunConfig(model="m", output_dir=str(tmp_path / "grpo"), temperature=0.7, seed=5, **fields)
    trainer = StepGRPOTrainer(config, train_specs=SPECS, val_specs=SPECS)
    trainer.model = SimpleNamespace(eval=lambda: None)
    scripted = ScriptedRollouts(trainer, script)
    monkeypatch.setattr(trainer, "rollout", scripted.rollout)
    monkeypatch.setattr(trainer, "save_model", scripted.save_model)
    return trainer, scripted


def _losing(rollout: Callable[..., EpisodeOutcome], lost: Callable[[str], bool]) -> Callable[..., EpisodeOutcome]:
    """``rollout``, except that the environment loses the episode of a task whenever ``lost(task id)`` says so."""
    def losing(spec: Any, run_index: int, **kwargs: Any) -> EpisodeOutcome:
        outcome = rollout(spec, run_index, **kwargs)
        return EpisodeOutcome(spec.id, outcome.key, "env_error", None, False, []) if lost(spec.id) else outcome
    return losing


def _validate_at(trainer: StepGRPOTrainer, steps: list[int]) -> list[dict[str, Any]]:
    rows = []
    for step in steps:
        trainer.step = step
        rows.append(trainer.validate())
    return rows


def test_sampled_rollouts_break_ties_of_the_greedy_success(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # greedy: 2 of 3 tasks at every step; sampled (2 per task, 6 in all): 2, 5, 3 solved
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (2, 2), 8: (2, 5), 12: (2, 3)}, val_samples=2)
    rows = _validate_at(trainer, [4, 8, 12])
    assert [r["val_success"] for r in rows] == [pytest.approx(2 / 3)] * 3
    assert [r["val_sampled_success"] for r in rows] == [pytest.approx(2 / 6), pytest.approx(5 / 6), pytest.approx(3 / 6)]
    assert [r["val_sampled_episodes"] for r in rows] == [6, 6, 6] and [r["val_episodes"] for r in rows] == [3, 3, 3]
    assert [r.get("new_best", False) for r in rows] == [True, True, False]
    assert scripted.saved == [4, 8] and trainer.best_step == 8 and trainer.best_val_sampled == pytest.approx(5 / 6)

    # sampled at the training temperature, with the same seeds at every validation (paired draws),
    # distinct across tasks and draws; greedy rollouts carry no seed
    sampled = [c for c in scripted.calls if c[3] > 0]
    assert {c[3] for c in sampled} == {0.7}
    assert all(c[4] is None for c in scripted.calls if c[3] == 0.0)
    seeds_by_step = {step: [c[4] for c in sampled if c[0] == step] for step in (4, 8, 12)}
    assert seeds_by_step[4] == seeds_by_step[8] == seeds_by_step[12] and len(set(seeds_by_step[4])) == 6


def test_greedy_success_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (1, 6), 8: (2, 0), 12: (2, 1)}, val_samples=2)
    _validate_at(trainer, [4, 8, 12])
    assert scripted.saved == [4, 8, 12] and trainer.best_step == 12


def test_without_samples_the_first_of_equal_scores_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (2, 0), 8: (2, 6)})
    rows = _validate_at(trainer, [4, 8])
    assert "val_sampled_success" not in rows[0] and all(c[3] == 0.0 for c in scripted.calls)
    assert scripted.saved == [4] and trainer.best_step == 4


def test_equal_scores_keep_the_later_checkpoint_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Session 49: validation was flat from step 16 to 24 in three runs whose step 24 was the best held-out one."""
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (1, 0), 8: (2, 0), 12: (2, 0), 16: (1, 0)}, val_ties="later")
    _validate_at(trainer, [4, 8, 12, 16])
    assert scripted.saved == [4, 8, 12] and trainer.best_step == 12  # a tie moves on; a lower score does not
    with pytest.raises(ValueError, match="val_ties must be one of earlier, later, not 'last'"):
        GRPORunConfig(model="m", val_ties="last").validate()


def test_pooled_selection_chooses_on_every_validation_episode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # step 4: greedy 2 of 3, sampled 1 of 6 (pooled 3 of 9); step 8: greedy 1 of 3, sampled 5 of 6 (pooled 6 of 9);
    # step 12: greedy 3 of 3, sampled 3 of 6 (pooled 6 of 9, equal to step 8: the earlier is kept)
    script = {4: (2, 1), 8: (1, 5), 12: (3, 3)}
    trainer, scripted = _trainer(tmp_path, monkeypatch, script, val_samples=2, val_select="pooled")
    rows = _validate_at(trainer, [4, 8, 12])
    assert [r["val_pooled_success"] for r in rows] == [pytest.approx(3 / 9), pytest.approx(6 / 9), pytest.approx(6 / 9)]
    assert scripted.saved == [4, 8] and trainer.best_step == 8
    assert (trainer.best_val, trainer.best_val_pooled) == (pytest.approx(1 / 3), pytest.approx(6 / 9))

    greedy_trainer, greedy_scripted = _trainer(tmp_path, monkeypatch, script, val_samples=2)
    _validate_at(greedy_trainer, [4, 8, 12])
    assert greedy_scripted.saved == [4, 12], "the default rule chooses on the greedy success first"


def test_every_validated_model_is_kept_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Session 48: a larger validation split could not be applied to earlier runs, whose other checkpoints were gone."""
    script = {4: (2, 0), 8: (1, 0), 12: (3, 0)}
    trainer, scripted = _trainer(tmp_path, monkeypatch, script, keep_validated=True)
    _validate_at(trainer, [4, 8, 12])
    out = tmp_path / "grpo"
    validated = [out / "validated" / f"step-{step:04d}" for step in (4, 8, 12)]
    assert [p for p in scripted.paths if p.parent.name == "validated"] == validated
    assert [p for p in scripted.paths if p.name == "best"] == [out / "best"] * 2 and trainer.best_step == 12

    plain, plain_scripted = _trainer(tmp_path, monkeypatch, script)
    _validate_at(plain, [4, 8, 12])
    assert plain_scripted.paths == [out / "best"] * 2, "by default only the best model is kept"


def test_negative_samples_and_unknown_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="val_samples must be at least 0"):
        GRPORunConfig(model="m", val_samples=-1).validate()
    with pytest.raises(ValueError, match="val_select must be one of greedy, pooled, not 'best'"):
        GRPORunConfig(model="m", val_select="best").validate()


def test_an_invalid_validation_episode_is_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Session 43: one excluded greedy episode made 9 of 18 beat 9 of 19 without a task more."""
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (2, 0)}, oversample=1)
    lost = {"val-2"}

    def first_try(task_id: str) -> bool:
        if task_id in lost:
            lost.discard(task_id)
            return True
        return False

    monkeypatch.setattr(trainer, "rollout", _losing(scripted.rollout, first_try))
    row = _validate_at(trainer, [4])[0]
    assert (row["val_episodes"], row["val_kept"]) == (3, 3) and row["val_success"] == pytest.approx(2 / 3)
    assert (row["val_failed"], row["val_lost"]) == (["val-2"], []), "the task that failed is named, not the lost try"
    assert [c[1] for c in scripted.calls] == ["val-0", "val-1", "val-2", "val-2"], "the lost episode ran again, once"


def test_validation_names_the_tasks_it_failed_and_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rate alone hides which tasks a checkpoint swapped; a lost episode is named apart from a failed one."""
    trainer, scripted = _trainer(tmp_path, monkeypatch, {4: (1, 0), 8: (2, 0)}, oversample=0)
    monkeypatch.setattr(trainer, "rollout", _losing(scripted.rollout, lambda task: task == "val-1" and trainer.step == 8))
    first, second = _validate_at(trainer, [4, 8])
    assert (first["val_failed"], first["val_lost"]) == (["val-1", "val-2"], [])
    assert (second["val_failed"], second["val_lost"]) == (["val-2"], ["val-1"])
    assert second["val_kept"] == 2 and second["val_success"] == pytest.approx(1 / 2)
