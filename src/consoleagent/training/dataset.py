"""From a collection's results directory to train and val samples: task filter, step filters,
conversion, and a split by task so that validation tasks are never seen in training."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.training.filters import Episode, StepItem, apply_step_filters, episode_steps, ground_truth, load_ledger, task_filter
from consoleagent.training.samples import make_sample


@dataclass
class SampleSet:
    train: list[dict[str, Any]] = field(default_factory=list)
    val: list[dict[str, Any]] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)  # one per filter, in order
    val_tasks: list[str] = field(default_factory=list)


def build_samples(results_dir: str | Path, *, specs: dict[str, Any] | None = None, val_fraction: float = 0.1,
                  seed: int = 0, system: str | None = None) -> SampleSet:
    """Filter the episodes of ``results_dir`` and cut the kept steps into samples, split by task.

    ``specs`` (task id → TaskSpec) gives the discrepancy ground truth; by default the shipped suite's.
    ``system`` is the samples' system message (``samples.system_text(profile)``; the full prompt when None)."""
    episodes = load_ledger(results_dir)
    if specs is None:
        from consoleagent.suite.catalog import shipped_tasks

        specs = shipped_tasks()
    truth = ground_truth({e.task_id: specs[e.task_id] for e in episodes if e.task_id in specs})
    kept, task_report = task_filter(episodes, truth)
    steps = [item for episode in kept for item in episode_steps(episode)]
    steps, step_reports = apply_step_filters(steps)
    samples = [sample_of(item, system) for item in steps]
    val_tasks = split_tasks(sorted({e.task_id for e in kept}), val_fraction, seed)
    result = SampleSet(reports=[task_report, *step_reports], val_tasks=val_tasks)
    for sample in samples:
        (result.val if sample["task_id"] in val_tasks else result.train).append(sample)
    return result


def sample_of(item: StepItem, system: str | None = None) -> dict[str, Any]:
    episode: Episode = item.episode
    return make_sample(task_id=episode.task_id, trajectory=str(episode.trajectory), run=episode.run, record=item.record,
                       reward=episode.reward if episode.reward is not None else 0.0, system=system)


def split_tasks(task_ids: list[str], val_fraction: float, seed: int = 0) -> list[str]:
    """A seeded choice of round(n × fraction) tasks for validation (at least one when the fraction is
    positive and there are two tasks or more)."""
    if val_fraction <= 0 or len(task_ids) < 2:
        return []
    count = min(len(task_ids) - 1, max(1, round(len(task_ids) * val_fraction)))
    shuffled = sorted(task_ids)
    random.Random(seed).shuffle(shuffled)
    return sorted(shuffled[:count])
