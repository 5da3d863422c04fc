"""GRPO's task picks: uniform as before, or weighted by whether a task's latest group taught anything.

Counted over many seeds: a task whose group had a spread of rewards comes back more often than one
never tried, and one whose group had none less often; a resumed run rebuilds that memory from its log
and so picks what the uninterrupted run picked.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from consoleagent.training.config import GRPORunConfig
from consoleagent.training.curriculum import TaskCurriculum
from consoleagent.training.advantages import is_valid_reward
from consoleagent.training.grpo import StepGRPOTrainer

SPECS = [SimpleNamespace(id=f"task-{i}") for i in range(10)]


def _record(curriculum: TaskCurriculum, task_id: str, rewards: list[float | None]) -> None:
    """One group's rollouts as the trainer logs them (an invalid reward is an excluded rollout)."""
    curriculum.record_rollouts([{"task": task_id, "reward": r, "valid": is_valid_reward(r)} for r in rewards])


def _counts(curriculum: TaskCurriculum, draws: int = 3000, count: int = 2) -> Counter[str]:
    counts: Counter[str] = Counter()
    for seed in range(draws):
        picked = curriculum.pick(SPECS, count, random.Random(seed))
        assert len({spec.id for spec in picked}) == count, "a step never runs a task twice"
        counts.update(spec.id for spec in picked)
    return counts


def test_uniform_picks_are_the_plain_random_sample() -> None:
    curriculum = TaskCurriculum("uniform")
    _record(curriculum, "task-0", [1.0, 0.0])  # remembered, but uniform sampling ignores it
    for seed in range(20):
        assert curriculum.pick(SPECS, 3, random.Random(seed)) == random.Random(seed).sample(SPECS, 3)
    assert curriculum.weight("task-0") == 1.0


def test_informative_picks_favour_tasks_whose_group_had_a_spread() -> None:
    curriculum = TaskCurriculum("informative", signal_weight=4.0, settled_weight=0.25)
    _record(curriculum, "task-0", [1.0, 0.0, 0.0])   # a spread: signal
    _record(curriculum, "task-1", [0.0, 0.0, 0.0])   # all failed: settled
    _record(curriculum, "task-2", [1.0, 1.0])        # all solved: settled
    assert [curriculum.weight(f"task-{i}") for i in range(4)] == [4.0, 0.25, 0.25, 1.0]
    counts = _counts(curriculum)
    untried = [counts[f"task-{i}"] for i in range(3, 10)]
    assert counts["task-0"] > 2 * max(untried)
    assert max(counts["task-1"], counts["task-2"]) < min(untried) / 2
    assert min(counts["task-1"], counts["task-2"]) > 0, "a settled task is still revisited now and then"
    assert curriculum.summary() == {"tasks_with_signal": 1, "tasks_settled": 2}
    # the same seed gives the same picks
    assert curriculum.pick(SPECS, 4, random.Random(7)) == curriculum.pick(SPECS, 4, random.Random(7))


def test_only_valid_rewards_count_and_the_latest_group_wins() -> None:
    curriculum = TaskCurriculum("informative")
    _record(curriculum, "task-0", [1.0, -1.0, None])     # one valid reward: nothing learnt about the spread
    assert "task-0" not in curriculum.had_signal
    _record(curriculum, "task-0", [0.0, 0.0, -1.0])
    assert curriculum.had_signal["task-0"] is False
    curriculum.record_rollouts([{"task": "task-0", "reward": 1.0, "valid": True},
                                {"task": "task-0", "reward": 0.0, "valid": True},
                                {"task": "task-1", "reward": 1.0, "valid": True},
                                {"task": "task-1", "reward": 0.0, "valid": False}])  # an env_error is no reward
    assert curriculum.had_signal == {"task-0": True}


def test_bad_sampling_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="task_sampling must be one of uniform, informative"):
        GRPORunConfig(policy="ranker", task_sampling="greedy").validate()
    with pytest.raises(ValueError, match="settled_weight must be above 0"):
        GRPORunConfig(policy="ranker", task_sampling="informative", settled_weight=0.0).validate()


def test_a_resumed_run_rebuilds_the_memory_of_the_steps_it_kept(tmp_path: Path) -> None:
    config = GRPORunConfig(policy="ranker", output_dir=str(tmp_path), task_sampling="informative", tasks_per_step=3)
    rows = [{"step": 1, "rollouts": [{"task": "task-0", "reward": 1.0, "valid": True},
                                     {"task": "task-0", "reward": 0.0, "valid": True},
                                     {"task": "task-1", "reward": 0.0, "valid": True},
                                     {"task": "task-1", "reward": 0.0, "valid": True}]},
            # logged after the checkpoint the run resumes from: not part of the resumed run's past
            {"step": 2, "rollouts": [{"task": "task-5", "reward": 0.0, "valid": True},
                                     {"task": "task-5", "reward": 1.0, "valid": True}]}]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    uninterrupted = StepGRPOTrainer(config, train_specs=SPECS, val_specs=[])
    uninterrupted.curriculum.record_rollouts(rows[0]["rollouts"])
    resumed = StepGRPOTrainer(config, train_specs=SPECS, val_specs=[])
    resumed.step = 1
    resumed._recall_curriculum()
    assert resumed.curriculum.had_signal == {"task-0": True, "task-1": False}
    assert [t.id for t in resumed.pick_tasks(2)] == [t.id for t in uninterrupted.pick_tasks(2)]


@pytest.mark.parametrize("path", sorted(Path(__file__).resolve().parents[3].joinpath("configs", "train").glob("*grpo*.yaml")),
                         ids=lambda p: p.name)
def test_every_shipped_grpo_config_loads_and_validates(path: Path) -> None:
    from consoleagent.training.config import load_config

    load_config(GRPORunConfig, path).validate()  # an unknown key or a bad value raises, naming the file
