"""An ensemble of ranker heads: one head whose score for a candidate is the mean of its members' scores.

Plain-document SFT heads trained on the same collection with different seeds pass different shares of the held-out
tasks (35 to 44% for three heads `train select` chose; BENCHMARKS.md, session 56). Averaging the members' scores is
averaging their log-probabilities up to a constant per step (``log_softmax(s_k) = s_k - logsumexp(s_k)``), so the
ensemble's policy is the normalised product of the members' policies: an action one member is sure is wrong stays
unlikely. The members run on the same feature rows, so an ensemble of K heads costs K small MLPs per step, not K
encoders. Measured, it did not help: the seeds fail the same tasks (BENCHMARKS.md, session 59).

An ensemble is saved like any head (``policies.ranker.save_ensemble``: ``ranker.json`` with ``members``, one
``head.safetensors`` holding every member's weights), so ``-O model=DIR``, ``train select``, ``train sft --model``
and GRPO (which trains the members together through the mean) take it unchanged.
"""

from __future__ import annotations

from typing import Any

MEMBERS_KEY = "members"
SHARED_KEYS = ("hidden", "n_features", "prior", "read_unmarked")  # what the members must agree on


def build_ensemble(members: list[Any]) -> Any:
    """A head over ``members`` (heads from ``policies.ranker.build_head``/``load_head``) scoring their mean.

    Members must read the same features the same way and share the follower prior; a clear error names the first
    key where two differ."""
    import torch

    if len(members) < 2:
        raise ValueError(f"an ensemble needs at least 2 heads, got {len(members)}")
    first = members[0].config
    for index, member in enumerate(members[1:], start=1):
        if MEMBERS_KEY in member.config:
            raise ValueError(f"head {index + 1} is itself an ensemble; give its members instead")
        for key in SHARED_KEYS:
            if member.config.get(key) != first.get(key):
                raise ValueError(f"heads 1 and {index + 1} differ in {key}: {first.get(key)!r} and {member.config.get(key)!r}")

    class EnsembleHead(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.members = torch.nn.ModuleList(members)
            self.config = {**{key: first.get(key) for key in SHARED_KEYS}, MEMBERS_KEY: len(members)}

        def forward(self, rows: Any) -> Any:
            return torch.stack([member(rows) for member in self.members]).mean(dim=0)

    return EnsembleHead()
