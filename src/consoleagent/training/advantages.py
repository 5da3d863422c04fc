"""The maths of step-level GRPO, kept apart from rollouts and models so it can be checked by hand.

Two-layer advantage normalisation (the reference's): each task's valid episode rewards are
normalised within the task, ``(r - mean_task) / (std_task + eps)``, then the whole batch is
normalised again over all kept episodes. Invalid episodes (reward ``-1`` from disagreeing judges,
``None``, or an environment error) are excluded before anything is computed: an environment fault
must never become a training signal. A group whose rewards are all equal carries no signal (every
advantage is 0); such groups are counted, because many of them mean the batch taught nothing.

The loss is the clipped surrogate with a KL penalty to a reference policy, aggregated per token
over every action token of the batch (token-level aggregation: a long completion weighs as many
tokens as it has, not as one sample). Standard deviations are population ones (ddof 0): with G = 2
and rewards 1, 0 the advantages are +1 and -1 (up to eps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

INVALID_REWARD = -1.0
ZERO_TOL = 1e-12  # a group whose rewards' standard deviation is at most this carries no signal


def is_valid_reward(reward: float | None) -> bool:
    """A reward that may train: present, finite, and not the judges' ``-1`` (invalid sample)."""
    return reward is not None and math.isfinite(reward) and reward != INVALID_REWARD


@dataclass
class AdvantageResult:
    """Per-episode advantages (``None`` where the episode was excluded) and what the batch held."""

    advantages: list[float | None]
    kept: int
    excluded: int
    groups: int
    zero_variance_groups: int
    task_stats: dict[str, dict[str, float]] = field(default_factory=dict)  # task -> mean, std, n


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def group_advantages(task_ids: Sequence[str], rewards: Sequence[float | None], eps: float = 1e-4,
                     zero_tol: float = ZERO_TOL) -> AdvantageResult:
    """Advantages for one batch of episodes given as parallel lists (task id, reward).

    Per task: ``(r - mean_task) / (std_task + eps)``; then over all kept episodes of the batch:
    ``(a - mean_batch) / (std_batch + eps)``. A batch with no spread at all (every group had zero
    variance) yields zeros rather than dividing noise by ``eps``.
    """
    if len(task_ids) != len(rewards):
        raise ValueError(f"{len(task_ids)} task ids but {len(rewards)} rewards")
    by_task: dict[str, list[int]] = {}
    for index, (task, reward) in enumerate(zip(task_ids, rewards)):
        if is_valid_reward(reward):
            by_task.setdefault(task, []).append(index)
    per_task: dict[int, float] = {}
    stats: dict[str, dict[str, float]] = {}
    zero = 0
    for task, indices in by_task.items():
        values = [float(rewards[i]) for i in indices]  # type: ignore[arg-type]
        mean, std = _mean_std(values)
        stats[task] = {"mean": mean, "std": std, "n": float(len(values))}
        if std <= zero_tol:
            zero += 1
        for i, value in zip(indices, values):
            per_task[i] = (value - mean) / (std + eps)
    advantages: list[float | None] = [None] * len(rewards)
    if per_task:
        mean, std = _mean_std(list(per_task.values()))
        for i, value in per_task.items():
            advantages[i] = 0.0 if std <= zero_tol else (value - mean) / (std + eps)
    kept = len(per_task)
    return AdvantageResult(advantages, kept, len(rewards) - kept, len(by_task), zero, stats)


# --- the loss (torch) -------------------------------------------------------------------------


@dataclass
class LossParts:
    """The batch's loss and the numbers the trainer logs (tensors detached into floats)."""

    loss: Any  # a scalar tensor, with grad
    tokens: int
    kl: float
    clip_fraction: float
    ratio_mean: float
    surrogate: float


def grpo_token_loss(logps: Any, old_logps: Any, ref_logps: Any | None, advantages: Any, mask: Any, *,
                    clip_eps: float = 0.2, beta: float = 0.1, total_tokens: int | None = None) -> LossParts:
    """Clipped surrogate minus ``beta`` x KL, summed over masked tokens and divided by ``total_tokens``.

    Shapes: ``logps``, ``old_logps``, ``ref_logps`` and ``mask`` are (batch, tokens); ``advantages``
    is (batch,) and is broadcast to every token of its row. The KL is the k3 estimator
    ``exp(ref - logp) - (ref - logp) - 1`` (non-negative, unbiased; the one GRPO and TRL use).
    ``total_tokens`` is the number of action tokens in the whole batch when this call sees one
    micro-batch of it, so that accumulated gradients equal one token-level mean over the batch.
    A token counts as clipped when the clip is the active branch of the min: ratio above 1 + eps
    with a positive advantage, or below 1 - eps with a negative one.
    """
    import torch

    mask = mask.to(logps.dtype)
    adv = advantages.to(logps.dtype).unsqueeze(1)
    ratio = torch.exp(logps - old_logps)
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps)
    surrogate = torch.min(ratio * adv, clipped_ratio * adv)
    if ref_logps is not None and beta != 0.0:
        delta = ref_logps - logps
        kl = torch.exp(delta) - delta - 1.0
    else:
        kl = torch.zeros_like(logps)
    per_token = -(surrogate - beta * kl)
    count = int(mask.sum().item())
    denominator = float(total_tokens if total_tokens is not None else max(count, 1))
    loss = (per_token * mask).sum() / denominator
    with torch.no_grad():
        is_clipped = ((ratio > 1.0 + clip_eps) & (adv > 0)) | ((ratio < 1.0 - clip_eps) & (adv < 0))
        n = max(count, 1)
        return LossParts(loss=loss, tokens=count, kl=float((kl * mask).sum() / n),
                         clip_fraction=float((is_clipped.to(mask.dtype) * mask).sum() / n),
                         ratio_mean=float((ratio * mask).sum() / n), surrogate=float((surrogate * mask).sum() / n))
