"""The run configurations of ``consoleagent train sft | grpo``, and how YAML files and flags fill them.

Both trainers are configured by a plain dataclass in TRL's style (``SFTRunConfig``, ``GRPORunConfig``):
the YAML keys are the field names, and each field is documented in the class docstring with its
meaning, its default and the reason for that default. "The reference" is the system this project
reproduces, AliyunConsoleAgent (arXiv 2606.09447, summarised in ``shared/reference/paper.md``):
SFT with full fine-tuning at lr 1e-5 for one epoch; GRPO with group size 16, 1.25 x oversampling,
clip 0.2, KL coefficient 0.1, lr 5e-7 and validation every 5 steps. Our defaults differ where a
tiny model on a CPU needs them to, and say so.

A YAML mapping fills a dataclass through ``load_config``: an unknown key or a value of the wrong
type is an error that names the file and the field, so a typo never silently falls back to a
default. The checks that need several fields at once are each config's ``validate()``.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from consoleagent.documents.restyle import AS_WRITTEN, STYLES
from consoleagent.training.curriculum import TaskCurriculum

T = TypeVar("T")
GENERATORS = ("auto", "transformers")  # where GRPO's rollout actions come from (training.grpo.select_generator)
VAL_SELECT_RULES = ("greedy", "pooled")  # how GRPO's best checkpoint is chosen (training.grpo._selection_key)
VAL_TIES = ("earlier", "later")  # which of equally validated checkpoints is kept
LORA_KEYS = {"r", "alpha", "dropout", "target_modules"}


class ConfigError(ValueError):
    pass


@dataclass
class SFTRunConfig:
    """What ``consoleagent train sft`` runs: TRL's ``SFTTrainer`` on single-step samples.

    Data and output:
        model (str, required): a Hugging Face model directory or hub id (the tiny model:
            ``consoleagent tiny-model``).
        train_file (str, required): the samples JSONL (``consoleagent samples``).
        val_file (str | None, default None): held-out samples, for the validation loss and the action
            accuracy; None measures the accuracy on the training samples (labelled ``"on": "train"``).
        output_dir (str, default "runs/sft"): checkpoints, ``final/``, ``metrics.json``, ``log.jsonl``.

    Optimisation:
        epochs (float, default 1.0): passes over the samples; the reference trains one epoch.
        max_steps (int, default -1): optimiser steps; > 0 overrides ``epochs`` (smoke runs).
        learning_rate (float, default 1e-4): the reference uses 1e-5 for a 32B model with full
            fine-tuning; this default is for the tiny model of the CPU runs (set the reference's for
            a large pretrained model).
        batch_size (int, default 4): samples per device per step.
        grad_accum (int, default 1): steps whose gradients accumulate before the optimiser steps.
        lr_scheduler (str, default "linear"): transformers' scheduler name.
        warmup_steps (float, default 0): warm-up steps, or a fraction of all steps when below 1
            (transformers' convention).
        weight_decay (float, default 0.0): AdamW's decoupled weight decay.
        seed (int, default 0): the data order and the initialisation of new weights (LoRA).
        bf16 (bool, default False): bf16 autocast, on a GPU or a CPU with AVX512-BF16 (faster on this
            project's EPYC, docs/training.md "SFT"); the reference trains in bf16. Off by default:
            fp32 runs everywhere.
        gradient_checkpointing (bool, default False): TRL's default is on, which saves memory on big
            models but made the tiny model's steps 2.5 x slower.

    Samples:
        max_length (int, default 4096): tokens per sample (prompt + completion); keep it above the hf
            policy's ``max_prompt_tokens`` (3072) plus the completion, or samples lose their answer.
        truncation_mode (str, default "keep_start"): TRL's; a sample over ``max_length`` loses its end.
        lora (dict | None, default None): ``{r, alpha, dropout, target_modules}`` for PEFT LoRA
            (``target_modules`` defaults to ``all-linear``); None is full fine-tuning, as the reference.

    Logging, checkpoints, evaluation:
        logging_steps (int, default 1): a log row per optimiser step (the runs are short).
        save_steps (int | None, default None): a checkpoint every N steps; None: at the end of each epoch.
        save_total_limit (int | None, default 3): checkpoints kept (transformers deletes older ones).
        eval_steps (int | None, default None): validation every N steps; None: at the end of each epoch.
        accuracy_samples (int, default 64): held-out samples scored for single-step action accuracy,
            the reference's first table (0: skip).
        accuracy_max_new_tokens (int, default 96): the longest answer generated when scoring (a
            Thought/Step/Action answer of the compact prompt fits).
        accuracy_batch_size (int, default 8): samples generated together when scoring.
        progress (bool, default True): a progress bar over the optimiser steps (off for scripts).
        resume_from (str | None, default None): a checkpoint directory, "last" for the newest one
            under ``output_dir``, or "auto": the newest if there is one, else a fresh start (``training.checkpoints``).
    """

    model: str = ""
    train_file: str = ""
    output_dir: str = "runs/sft"
    val_file: str | None = None
    epochs: float = 1.0
    max_steps: int = -1
    learning_rate: float = 1e-4
    batch_size: int = 4
    grad_accum: int = 1
    max_length: int = 4096
    truncation_mode: str = "keep_start"
    lr_scheduler: str = "linear"
    warmup_steps: float = 0
    weight_decay: float = 0.0
    lora: dict[str, Any] | None = None
    logging_steps: int = 1
    save_steps: int | None = None
    save_total_limit: int | None = 3
    eval_steps: int | None = None
    accuracy_samples: int = 64
    accuracy_max_new_tokens: int = 96
    accuracy_batch_size: int = 8
    seed: int = 0
    bf16: bool = False
    gradient_checkpointing: bool = False
    progress: bool = True
    resume_from: str | None = None

    def validate(self) -> None:
        missing = [name for name in ("model", "train_file") if not getattr(self, name)]
        if missing:
            raise ValueError(f"SFT config: missing {', '.join(missing)}")
        for name in ("train_file", "val_file"):
            value = getattr(self, name)
            if value and not Path(value).exists():
                raise ValueError(f"SFT config: {name} {value} does not exist")
        if self.lora is not None:
            unknown = set(self.lora) - LORA_KEYS
            if unknown:
                raise ValueError(f"SFT config: lora has unknown key(s) {sorted(unknown)}; use r, alpha, dropout, target_modules")


@dataclass
class GRPORunConfig:
    """What ``consoleagent train grpo`` runs: step-level GRPO in the live console (``training.grpo``).

    Model and output:
        model (str, default ""): the SFT model directory (``final/`` of ``train sft``); for the ranker,
            its head directory, or "" for an untrained head. Required for ``policy: hf``.
        policy (str, default "hf"): ``hf`` (a causal LM generating actions) or ``ranker`` (scores
            candidate actions); anything else is refused.
        output_dir (str, default "runs/grpo"): ``log.jsonl``, ``curves.png``, ``checkpoint-N/``,
            ``best/``, ``final/``, ``world/``.
        console (str, default "stratus"): the console backend (``consoleagent.consoles``) or a console
            YAML file; it is started fresh for each run (the checkpoint is what carries over).
        time_scale (float, default 50.0): the in-process stratus's virtual seconds per real second, so
            that asynchronous resources settle within an episode.

    Tasks:
        tasks (str, default "split=train"): the task selector to train on (``consoleagent tasks list``).
        val_tasks (str | None, default "split=val"): validated every ``val_every`` steps; None: no
            validation (and no ``best/``).
        val_limit (int | None, default None): validate on the first N val tasks only (CPU budgets).
        val_samples (int, default 0): besides the greedy rollout, this many sampled rollouts per val
            task at ``temperature``, with the same seeds at every validation; their success rate breaks
            ties of the greedy success rate when the best checkpoint is chosen (a few val tasks often
            tie greedily across checkpoints). 0: greedy only (``val_ties`` says which of equal scores is kept).
        val_select (str, default "greedy"): how ``best/`` is chosen. ``greedy``: greedy success, ties
            broken by the sampled success; ``pooled``: the success rate over every validation episode,
            greedy and sampled together (1 + ``val_samples`` per task).
        val_ties (str, default "earlier"): which of equal scores is kept: the ``earlier`` checkpoint, or the
            ``later`` one (more training at the same validation; session 49 set it for the runs after it).
        tasks_root (str | None, default None): a folder of task files; None: the console's own suite.
        document_style (str, default "as_written"): the documents' steps as the policy reads them in
            training and validation rollouts: ``as_written`` or ``plain`` (``documents.restyle``).

    Rollouts:
        steps (int, default 10): training steps.
        tasks_per_step (int, default 2): B, the tasks of one step (seeded by the step, so a resumed run
            picks the same ones).
        task_sampling (str, default "uniform"): how the B tasks are picked: ``uniform``, or
            ``informative``: weighted by whether a task's latest group had a spread of rewards
            (``training.curriculum``), so that fewer groups are spent on tasks that teach nothing.
        signal_weight (float, default 4.0): ``informative``'s weight of a task whose latest group had
            a spread (a task never tried weighs 1).
        settled_weight (float, default 0.25): ``informative``'s weight of a task whose latest group
            had none (all solved or all failed); above 0, because the policy changes.
        group_size (int, default 4): G, the rollouts per task, all from the task's snapshot. The
            reference uses 16; 4 keeps a CPU step within minutes. A larger group gives more groups with
            a spread of rewards, the only ones that carry signal.
        oversample (int, default 1): extra rollouts a group may run to replace episodes lost to the
            environment (excluded, never scored 0); the reference runs 1.25 x G.
        temperature (float, default 1.0): the sampling temperature of the rollouts, and of the
            log-probabilities the loss compares (validation is greedy).
        top_p (float, default 1.0): nucleus sampling of the hf policy; 1.0 samples the full
            distribution at ``temperature``, which is the one the loss's log-probabilities are of.
        max_new_tokens (int, default 96): the longest answer of one step (Thought/Step/Action).
        max_prompt_tokens (int, default 3072): the hf policy's prompt budget (head and tail kept).
        max_episode_steps (int | None, default None): caps every task's step limit (CPU runs).
        skip_futile (bool, default True): the ranker's rollouts and validations withhold an action
            already tried on an identical page (``policies.futile``); False acts as runs before
            session 49 did.
        episode_timeout_s (float | None, default None): the supervisor's deadline per episode; None:
            the longest task time limit + 120 s, as the benchmark.
        generator (str, default "auto"): where rollout actions come from: ``transformers`` (the model
            being trained, in process); ``auto`` picks it (there is no other generator yet).

    Loss and optimisation:
        learning_rate (float, default 1e-6): AdamW's; the reference uses 5e-7 for a 32B model; this
            default is for the tiny model of the CPU runs.
        weight_decay (float, default 0.0): AdamW's decoupled weight decay.
        clip_eps (float, default 0.2): the PPO clip of the probability ratio, as the reference
            (Schulman et al., 2017); 0 < clip_eps < 1.
        beta (float, default 0.1): the KL coefficient to the reference policy (the model the run
            started from), as the reference; 0 drops the KL term and the reference model.
        adv_eps (float, default 1e-4): ε in the advantage normalisation (r − mean) / (std + ε), per
            task then over the batch (DeepSeekMath's GRPO, Shao et al., 2024, as the reference).
        updates_per_step (int, default 1): optimiser steps on one batch; the old log-probs stay fixed
            across them (1: the ratio is 1 at the first step, GRPO's on-policy case).
        micro_batch (int, default 4): step samples per forward pass (gradients accumulate over the batch).
        max_grad_norm (float, default 1.0): gradient clipping.
        skip_without_signal (bool, default True): no optimiser step when every advantage is 0; Adam
            would otherwise turn the near-zero KL gradient into a full-size step (docs/training.md).
        lora (dict | None, default None): ``{r, alpha, dropout, target_modules}``; the reference model
            is then the same network with the adapter disabled.
        seed (int, default 0): task picks, rollout seeds, and the torch/Python RNGs.

    Validation and checkpoints:
        val_every (int, default 5): steps between validations (success on the val tasks, chosen on by
            ``val_select``; the best model is kept in ``best/``), as the reference, whose best checkpoint came at
            step 25 of an oscillating run.
        save_every (int, default 1): steps between checkpoints (a step takes minutes: lose at most one).
        keep_checkpoints (int, default 2): the newest checkpoints kept (at least 1: the one to resume from).
        keep_validated (bool, default False): also keep the model of every validation under
            ``validated/step-N/``, so that another selection rule (or a larger validation split) can be
            applied later without training again. A ranker head is about 15 KB; an hf model is its full size.
        resume_from (str | None, default None): a checkpoint directory, "last" for the newest
            complete one under ``output_dir``, or "auto": the newest if there is one, else a fresh start
            (``training.checkpoints``). Without it, an ``output_dir`` that holds a run is refused.
    """

    model: str = ""
    policy: str = "hf"
    output_dir: str = "runs/grpo"
    tasks: str = "split=train"
    val_tasks: str | None = "split=val"
    val_limit: int | None = None
    val_samples: int = 0
    val_select: str = "greedy"
    val_ties: str = "earlier"
    tasks_root: str | None = None
    document_style: str = AS_WRITTEN
    steps: int = 10
    tasks_per_step: int = 2
    task_sampling: str = "uniform"
    signal_weight: float = 4.0
    settled_weight: float = 0.25
    group_size: int = 4
    oversample: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 96
    max_prompt_tokens: int = 3072
    max_episode_steps: int | None = None
    skip_futile: bool = True
    episode_timeout_s: float | None = None
    learning_rate: float = 1e-6
    weight_decay: float = 0.0
    clip_eps: float = 0.2
    beta: float = 0.1
    adv_eps: float = 1e-4
    updates_per_step: int = 1
    micro_batch: int = 4
    max_grad_norm: float = 1.0
    skip_without_signal: bool = True
    lora: dict[str, Any] | None = None
    val_every: int = 5
    save_every: int = 1
    keep_checkpoints: int = 2
    keep_validated: bool = False
    seed: int = 0
    time_scale: float = 50.0
    console: str = "stratus"
    generator: str = "auto"
    resume_from: str | None = None

    def validate(self) -> None:
        if self.policy not in ("hf", "ranker"):
            raise ValueError(f"GRPO config: policy must be hf or ranker, not {self.policy!r}")
        if not self.model and self.policy == "hf":
            raise ValueError("GRPO config: missing model")
        for name in ("steps", "tasks_per_step", "group_size", "updates_per_step", "micro_batch", "val_every", "save_every",
                     "keep_checkpoints"):
            if getattr(self, name) < 1:
                raise ValueError(f"GRPO config: {name} must be at least 1, got {getattr(self, name)}")
        if self.val_samples < 0:
            raise ValueError(f"GRPO config: val_samples must be at least 0, got {self.val_samples}")
        if self.val_select not in VAL_SELECT_RULES:
            raise ValueError(f"GRPO config: val_select must be one of {', '.join(VAL_SELECT_RULES)}, not {self.val_select!r}")
        if self.val_ties not in VAL_TIES:
            raise ValueError(f"GRPO config: val_ties must be one of {', '.join(VAL_TIES)}, not {self.val_ties!r}")
        if self.oversample < 0 or not 0 < self.clip_eps < 1 or self.beta < 0:
            raise ValueError("GRPO config: oversample >= 0, 0 < clip_eps < 1 and beta >= 0 are required")
        if self.document_style not in STYLES:
            raise ValueError(f"GRPO config: document_style must be one of {', '.join(STYLES)}, not {self.document_style!r}")
        try:  # the curriculum checks its own settings; one rule, stated once
            TaskCurriculum(self.task_sampling, signal_weight=self.signal_weight, settled_weight=self.settled_weight)
        except ValueError as exc:
            raise ValueError(f"GRPO config: {exc}") from None
        if self.generator not in GENERATORS:
            raise ValueError(f"GRPO config: generator must be one of {', '.join(GENERATORS)}, not {self.generator!r} "
                             "(rollouts are generated by the model being trained, in this process)")


# --- YAML and flags -> a config ------------------------------------------------------------------


def _check(cls: type, name: str, value: Any, where: str) -> Any:
    hints = typing.get_type_hints(cls)
    annotation = hints.get(name, Any)
    args = typing.get_args(annotation)
    optional = type(None) in args
    if value is None:
        if optional or annotation is Any:
            return None
        raise ConfigError(f"{where}: field {name!r} may not be null")
    target = [a for a in args if a is not type(None)][0] if optional and len(args) == 2 else annotation
    origin = typing.get_origin(target) or target
    if origin is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if origin in (int, float, str, bool, list, dict) and not isinstance(value, origin):
        raise ConfigError(f"{where}: field {name!r} must be {origin.__name__}, not {type(value).__name__} ({value!r})")
    if origin is int and isinstance(value, bool):
        raise ConfigError(f"{where}: field {name!r} must be int, not bool")
    return value


def from_mapping(cls: type[T], values: dict[str, Any], where: str = "config") -> T:
    """Build ``cls`` from a mapping, checking every key against the dataclass's fields."""
    if not isinstance(values, dict):
        raise ConfigError(f"{where}: expected a mapping of fields, got {type(values).__name__}")
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - fields)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(fields))}")
    checked = {k: _check(cls, k, v, where) for k, v in values.items()}
    try:
        return cls(**checked)
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_yaml(path: Path) -> dict[str, Any]:
    """A YAML file holding one mapping (an empty file is an empty mapping); errors name the line."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    return data or {}


def load_config(cls: type[T], path: Path | None, overrides: dict[str, Any] | None = None) -> T:
    """The file's mapping (if any), then the overrides (``None`` values are ignored: flags not given)."""
    values = load_yaml(path) if path is not None else {}
    where = str(path) if path is not None else "flags"
    if not isinstance(values, dict):
        raise ConfigError(f"{where}: expected a mapping of fields at the top level")
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return from_mapping(cls, values, where)
