"""Supervised training of the ranker's head: a listwise loss over each step's candidates.

Each example is one teacher step (``ranker_data``): the feature rows of every candidate the ranker
would have listed and the index of the teacher's action. The loss is the cross-entropy of the
softmax over that step's candidates (listwise: every other candidate of the page is a negative,
never a sampled few). The encoder stays frozen, so features are computed once per episode and
cached in ``output_dir/examples.pt``, and an epoch over a thousand steps takes seconds on a CPU.

Validation is on documents no training example comes from: a seeded share of the collection's, and those of the
validation split's collections (``val_collection``). It reports the loss and top-1 accuracy, the share of steps where
the head's best candidate is the teacher's action. The head with the lowest validation loss (with ``ema_decay``, the
moving average of the weights) is kept as ``final/`` (the last one without validation data). The heads of
``keep_epochs`` are kept beside it, for ``training.select_head`` to choose among by validation episodes.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.training.ranker_data import TEACHER_STEPS

EXAMPLES_FILE = "examples.pt"
EPOCHS_DIR = "epochs"  # the heads of keep_epochs


@dataclass
class RankerSFTConfig:
    """What ``consoleagent train sft --policy ranker`` runs (YAML keys are these field names)."""

    collection: str | list[str] = ""  # a teacher collection directory (consoleagent collect --tasks split=train),
    # or a list of them, teachers in order of preference (a task's episodes come from the first that succeeded)
    output_dir: str = "runs/ranker-sft"
    model: str | None = None  # a head to start from (default: the untrained base)
    epochs: int = 30
    learning_rate: float = 3e-3
    weight_decay: float = 1e-4
    batch_size: int = 16  # steps per optimiser step (each its own softmax)
    hidden: int = 64
    follower_prior: float = 0.0  # > 0: a residual head over the documentation follower (policies.ranker.build_head)
    teacher_steps: str = "all"  # "until_divergence": a teacher's episode ends, for training, at its first step
    # away from the follower's proposal (ranker_data.until_divergence)
    read_unmarked: bool = False  # a new head reads a document that marks no label with the labels its wording shows
    # (policies.ranker.build_head); measured no better on plain documents (BENCHMARKS.md, session 49)
    val_fraction: float = 0.15  # share of the collection's documents held out for validation
    val_collection: str | list[str] = ""  # teacher collections of the validation split (consoleagent collect --tasks
    # split=val): their steps validate too, on documents no training task uses (ranker_data.build_ranker_data)
    ema_decay: float = 0.0  # > 0: the head validated and kept is an exponential moving average of the weights, updated
    # after every optimiser step with this decay (torch.optim.swa_utils); no better on validation (BENCHMARKS.md,
    # session 55)
    keep_epochs: list[int] = field(default_factory=list)  # these epochs' heads are kept too, as epochs/epoch-NNN/, for
    # choosing one by validation episodes (consoleagent train select), which step-level loss cannot (session 56)
    seed: int = 0

    @property
    def collections(self) -> list[str]:
        """The teacher collections, in order of preference."""
        return _directories(self.collection)

    @property
    def val_collections(self) -> list[str]:
        """The validation split's teacher collections, in order of preference."""
        return _directories(self.val_collection)

    def validate(self) -> None:
        if not self.collections:
            raise ValueError("ranker SFT config: missing collection (a directory written by consoleagent collect)")
        for key, collections in (("collection", self.collections), ("val_collection", self.val_collections)):
            for collection in collections:
                if not (Path(collection) / "ledger.jsonl").is_file():
                    raise ValueError(f"ranker SFT config: {key} {collection}: no ledger.jsonl there")
        for name in ("epochs", "batch_size", "hidden"):
            if getattr(self, name) < 1:
                raise ValueError(f"ranker SFT config: {name} must be at least 1, got {getattr(self, name)}")
        if self.follower_prior < 0:
            raise ValueError(f"ranker SFT config: follower_prior must be >= 0, got {self.follower_prior}")
        if self.teacher_steps not in TEACHER_STEPS:
            raise ValueError(f"ranker SFT config: teacher_steps must be one of {', '.join(TEACHER_STEPS)}, "
                             f"got {self.teacher_steps!r}")
        if self.read_unmarked and self.model:
            raise ValueError("ranker SFT config: read_unmarked goes with a new head (model: null); a head keeps the "
                             "reading it was trained with (read_unmarked in its ranker.json)")
        if not 0 <= self.ema_decay < 1:
            raise ValueError(f"ranker SFT config: ema_decay must be in [0, 1), got {self.ema_decay}")
        if not 0 <= self.val_fraction < 1:
            raise ValueError(f"ranker SFT config: val_fraction must be in [0, 1), got {self.val_fraction}")
        outside = [epoch for epoch in self.keep_epochs if not 1 <= epoch <= self.epochs]
        if outside:
            raise ValueError(f"ranker SFT config: keep_epochs {outside} outside the run's epochs 1 to {self.epochs}")


def _directories(value: str | list[str]) -> list[str]:
    return [str(c) for c in value] if isinstance(value, list) else ([str(value)] if value else [])


def listwise_loss(head: Any, examples: list[Any]) -> tuple[Any, int]:
    """Mean cross-entropy over the examples (each its own candidate set) and how many were top-1."""
    import torch

    losses, correct = [], 0
    for example in examples:
        logits = head(example.features)
        losses.append(-torch.log_softmax(logits, dim=0)[example.label])
        correct += int(int(torch.argmax(logits)) == example.label)
    return torch.stack(losses).mean(), correct


def evaluate(head: Any, examples: list[Any]) -> dict[str, float] | None:
    import torch

    if not examples:
        return None
    with torch.no_grad():
        loss, correct = listwise_loss(head, examples)
    return {"loss": round(float(loss), 4), "accuracy": round(correct / len(examples), 4), "examples": len(examples)}


def load_examples(config: RankerSFTConfig, out: Path, read_unmarked: bool = False) -> Any:
    """The collection's examples; each episode's features come from ``examples.pt`` when that file
    was written by this feature version for a head that reads documents the same way (``read_unmarked``),
    so a grown collection only encodes its new episodes."""
    import torch

    from consoleagent.encoder import neural_encoder
    from consoleagent.policies.ranker_features import FEATURES_VERSION, N_FEATURES
    from consoleagent.training.ranker_data import build_ranker_data

    path = out / EXAMPLES_FILE
    cache: dict[str, Any] = {}
    if path.is_file():
        saved = torch.load(path, weights_only=False)
        if (saved.get("n_features"), saved.get("version"), saved.get("read_unmarked", False)) == (
                N_FEATURES, FEATURES_VERSION, read_unmarked):
            cache = saved["episodes"]

    def save(episodes: dict[str, Any]) -> None:  # after every new episode: an interrupted run keeps its work
        torch.save({"n_features": N_FEATURES, "version": FEATURES_VERSION, "read_unmarked": read_unmarked,
                    "episodes": episodes}, path)

    data = build_ranker_data(config.collections, encoder=neural_encoder(), val_fraction=config.val_fraction,
                             seed=config.seed, cache=cache, on_new_episode=save, teacher_steps=config.teacher_steps,
                             read_unmarked=read_unmarked, val_dirs=config.val_collections)
    save(cache)
    return data


def run_ranker_sft(config: RankerSFTConfig) -> dict[str, Any]:
    """Train the head; write ``final/``, ``metrics.json``, ``log.jsonl`` and ``run_config.json``."""
    import torch
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    from consoleagent.policies.ranker import build_head, load_head, save_head

    config.validate()
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run_config.json").write_text(json.dumps(asdict(config), indent=1), encoding="utf-8")
    started = time.monotonic()
    start = load_head(config.model) if config.model else None  # a head is trained further as it reads documents
    read_unmarked = start.config["read_unmarked"] if start is not None else config.read_unmarked
    data = load_examples(config, out, read_unmarked=read_unmarked)
    if not data.train:
        raise ValueError(f"{', '.join(config.collections)}: no training examples after filtering ({data.counts})")
    features_s = time.monotonic() - started
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    head = start if start is not None else build_head(hidden=config.hidden, prior=config.follower_prior,
                                                      read_unmarked=read_unmarked)
    base = {"train": evaluate(head, data.train), "val": evaluate(head, data.val)}
    optimizer = torch.optim.AdamW(head.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    averaged = AveragedModel(head, multi_avg_fn=get_ema_multi_avg_fn(config.ema_decay), use_buffers=True) \
        if config.ema_decay else None
    best: tuple[float, int] | None = None
    rows = []
    log = (out / "log.jsonl").open("w", encoding="utf-8")
    train_started = time.monotonic()
    for epoch in range(1, config.epochs + 1):
        head.train()
        order = list(data.train)
        random.Random(config.seed * 1000 + epoch).shuffle(order)
        for start in range(0, len(order), config.batch_size):
            loss, _ = listwise_loss(head, order[start:start + config.batch_size])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if averaged is not None:
                averaged.update_parameters(head)
        head.eval()
        kept = averaged.module if averaged is not None else head
        row = {"epoch": epoch, "train": evaluate(kept, data.train), "val": evaluate(kept, data.val)}
        rows.append(row)
        log.write(json.dumps(row) + "\n")
        log.flush()
        score = -(row["val"] or row["train"])["loss"]  # a hundred validation steps move accuracy in 1% jumps; loss is smooth
        about = {"trained": "sft", "epoch": epoch, "collection": ", ".join(Path(c).name for c in config.collections),
                 **({"ema_decay": config.ema_decay} if averaged is not None else {})}
        if best is None or score > best[0] or not data.val:
            best = (score, epoch)
            save_head(kept, out / "final", about)
        if epoch in config.keep_epochs:
            save_head(kept, out / EPOCHS_DIR / f"epoch-{epoch:03d}", about)
    log.close()
    final = load_head(out / "final")
    metrics = {"examples": data.counts, "val_documents": data.val_documents, "base": base,
               "best_epoch": best[1] if best else None, "final": {"train": evaluate(final, data.train), "val": evaluate(final, data.val)},
               "epochs": config.epochs, "features_seconds": round(features_s, 2),
               "train_seconds": round(time.monotonic() - train_started, 2), "final_model": str(out / "final")}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1), encoding="utf-8")
    return metrics
