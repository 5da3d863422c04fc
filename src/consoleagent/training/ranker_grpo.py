"""The ranker inside step-level GRPO: its generator, its log-probabilities, its weights on disk.

``training.grpo`` is written against what any policy with log-probabilities of its chosen actions
provides (``PolicyBackend`` there); this module is that for the ranker. A ranker turn is one choice
among the page's candidates, so a step sample has exactly one "action token": the chosen index,
whose log-probability is ``log_softmax(head(features) / T)[chosen]``, re-scored from the feature
rows the rollout recorded (the encoder is frozen, so those rows are exactly what the head saw). The
reference for the KL term is the head the run started from (the SFT head), frozen.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any


class RankerGenerator:
    """Rollout policies over the head being trained (in memory: nothing to sync after an update)."""

    name = "ranker"

    def __init__(self, head: Any, skip_futile: bool = True) -> None:
        self.head = head
        self.skip_futile = skip_futile

    def policy(self, *, temperature: float, seed: int | None) -> Any:
        from consoleagent.policies.ranker import RankerPolicy

        return RankerPolicy.from_head(self.head, temperature=temperature, seed=seed, name="ranker:grpo",
                                      skip_futile=self.skip_futile)

    def sync(self) -> None:
        return None


class RankerBackend:
    """What ``StepGRPOTrainer`` needs from the ranker (see ``training.grpo.PolicyBackend``)."""

    name = "ranker"

    def __init__(self, model_path: str | None, skip_futile: bool = True) -> None:
        self.model_path = model_path
        self.skip_futile = skip_futile

    def load(self, resume: Path | None) -> tuple[Any, Any]:
        """``(trainable head, frozen reference head)``; a resumed run continues from the checkpoint's
        head, and the reference is still the head the run started from."""
        from consoleagent.policies.ranker import build_head, load_head

        start = load_head(self.model_path) if self.model_path else build_head()
        head = load_head(resume) if resume else copy.deepcopy(start)
        reference = copy.deepcopy(start)
        reference.requires_grad_(False)
        reference.eval()
        return head, reference

    def generator(self, head: Any) -> RankerGenerator:
        return RankerGenerator(head, self.skip_futile)

    def logps(self, model: Any, samples: list[Any], temperature: float, with_entropy: bool = False) -> tuple[Any, Any, Any, int]:
        """``(logps (B, 1), mask (B, 1), entropy (B, 1) or None, 1)`` for the chosen candidates."""
        import torch

        rows, entropies = [], []
        for sample in samples:
            logits = model(sample.turn.features.to(next(model.parameters()).device))
            if temperature > 0:
                logits = logits / temperature
            logp = torch.log_softmax(logits, dim=0)
            rows.append(logp[sample.turn.chosen])
            if with_entropy:
                entropies.append(-(logp.exp() * logp).sum())
        logps = torch.stack(rows).unsqueeze(1)
        entropy = torch.stack(entropies).unsqueeze(1) if with_entropy else None
        return logps, torch.ones_like(logps), entropy, 1

    def save(self, head: Any, path: Path, extra: dict[str, Any] | None = None) -> Path:
        from consoleagent.policies.ranker import save_head

        return save_head(head, path, {"trained": "grpo", "from": Path(self.model_path).name if self.model_path else "base",
                                      **(extra or {})})
