"""Which training tasks a GRPO step runs: uniformly, or weighted towards tasks whose groups carried signal.

Only a group whose rewards differ teaches GRPO anything (``advantages.group_advantages``). When the
policy solves a task every time, or never, its eight rollouts are spent for nothing; on this
project's CPU runs that was 10 of 16 groups (BENCHMARKS.md, session 38). DAPO (Yu et al., 2025)
answers with dynamic sampling: drop groups without spread and sample more. Here a rollout costs
seconds of a live console, so instead of re-sampling within a step the trainer remembers, per task,
whether its latest group had signal, and weighs the next picks by it:

- a task never tried: weight 1 (it may have signal: explore it);
- a task whose latest group had a spread of rewards: ``signal_weight`` (come back while it teaches);
- a task whose latest group had none: ``settled_weight`` (kept above 0: the policy changes, and a
  task it never solved may become solvable).

Picks are weighted sampling without replacement (Efraimidis and Spirakis, 2006: the ``count``
largest keys ``u ** (1 / w)``), seeded by (seed, step) as the uniform picks are, and the memory is
rebuilt from the run's ``log.jsonl`` on resume, so a resumed run picks what the uninterrupted run would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from consoleagent.training.advantages import ZERO_TOL, group_advantages

SAMPLINGS = ("uniform", "informative")


class TaskCurriculum:
    """Per-task memory of the latest group's spread, and the weighted picks it implies."""

    def __init__(self, sampling: str = "uniform", *, signal_weight: float = 4.0, settled_weight: float = 0.25) -> None:
        if sampling not in SAMPLINGS:
            raise ValueError(f"task_sampling must be one of {', '.join(SAMPLINGS)}, not {sampling!r}")
        if signal_weight <= 0 or settled_weight <= 0:
            raise ValueError("signal_weight and settled_weight must be above 0 (a weight of 0 would never revisit a task)")
        self.sampling = sampling
        self.signal_weight = signal_weight
        self.settled_weight = settled_weight
        self.had_signal: dict[str, bool] = {}

    def record_rollouts(self, rollouts: Sequence[dict[str, Any]]) -> None:
        """One logged step's ``rollouts`` (``EpisodeOutcome.summary`` rows), grouped by task."""
        valid = [r for r in rollouts if r.get("valid")]
        self._remember(group_advantages([r["task"] for r in valid], [r.get("reward") for r in valid]).task_stats)

    def _remember(self, task_stats: dict[str, dict[str, float]]) -> None:
        """A group has signal by the rule that counts ``zero_variance_groups`` (``advantages.group_advantages``);
        fewer than two valid rewards say nothing about the spread."""
        for task_id, stats in task_stats.items():
            if stats["n"] >= 2:
                self.had_signal[task_id] = stats["std"] > ZERO_TOL

    def weight(self, task_id: str) -> float:
        if self.sampling == "uniform" or task_id not in self.had_signal:
            return 1.0
        return self.signal_weight if self.had_signal[task_id] else self.settled_weight

    def pick(self, specs: Sequence[Any], count: int, rng: random.Random) -> list[Any]:
        """``count`` distinct specs (anything with an ``id``); uniform picks are ``rng.sample``'s."""
        count = min(count, len(specs))
        if self.sampling == "uniform":
            return rng.sample(list(specs), count)
        keyed = [(rng.random() ** (1.0 / self.weight(spec.id)), index) for index, spec in enumerate(specs)]
        chosen = sorted(keyed, reverse=True)[:count]
        return [specs[index] for _, index in chosen]

    def summary(self) -> dict[str, int]:
        """How many tasks the memory holds with and without signal (logged each step)."""
        with_signal = sum(self.had_signal.values())
        return {"tasks_with_signal": with_signal, "tasks_settled": len(self.had_signal) - with_signal}
