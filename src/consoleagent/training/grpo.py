"""Step-level GRPO in the live environment, as in the reference system.

One training step:

1. pick B tasks (seeded by the step, so a resumed run picks the same ones);
2. for each, run G rollouts with the current policy (sampling) from the task's snapshot, through
   the same rollout lifecycle the benchmark uses (lease → restore → episode → audit → rule judge);
   up to ``G + oversample`` are run so that episodes lost to the environment do not shrink the group;
3. reward = the rule judge's reward; invalid episodes (env_error, ``-1``, no reward) are excluded;
4. advantages: per task, then over the batch (``advantages.group_advantages``); zero-variance
   groups are counted;
5. every step of an episode becomes one training sample (its own prompt and the completion the
   policy generated, ``HFPolicy.turns``; for the ranker, the candidates' features and the chosen
   index, ``RankerPolicy.turns``), carrying the episode's advantage on every action token;
6. old-policy and reference log-probs computed once; ``updates_per_step`` optimiser steps of the
   clipped surrogate with a KL penalty, aggregated over all action tokens of the batch;
7. log, checkpoint, validate every N steps (greedy success rate on the val tasks; with ``val_samples`` also
   the sampled one, which breaks greedy ties), keep the best.

Any policy that exposes the log-probabilities of its chosen actions trains here: ``policy: hf`` (a
causal LM: the action tokens are the completion's) or ``policy: ranker`` (a choice among candidate
actions: one action "token", the chosen index; ``training.ranker_grpo.RankerBackend``). Only the
model-specific parts (loading, log-probs, saving) differ; rollouts, rewards, advantages, the
clipped loss, validation and checkpoints are shared.

Why not TRL's ``GRPOTrainer``: it samples one completion per prompt from a dataset and, for agents,
treats a multi-turn episode as one growing conversation whose tokens are all trained together.
Here each step of an episode is an independent prompt (the observation of that moment) and the
reward belongs to the whole episode, which is only known after the audit trail is judged. So the
loop is ours, on transformers + PEFT + accelerate, and the pieces of TRL that fit are reused:
``selective_log_softmax``, ``entropy_from_logits`` and ``disable_dropout_in_model``.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from consoleagent.training.advantages import group_advantages, grpo_token_loss, is_valid_reward
from consoleagent.training.checkpoints import STATE_FILE, checkpoints, prune, resume_path
from consoleagent.training.config import GRPORunConfig
from consoleagent.training.curriculum import TaskCurriculum
from consoleagent.policies.prompts import model_system_prompt, save_model_prompt

LOG_FILE = "log.jsonl"
VALIDATED_DIR = "validated"  # every validated model, with ``keep_validated``
VALIDATION_STEP = -1  # the step in a validation rollout's seed (``_rollout_seed``)
CURVE_METRICS = ("reward_mean", "success", "val_success", "val_sampled_success", "val_pooled_success", "loss", "kl", "clip_fraction", "entropy", "episode_len",
                 "zero_variance_groups", "time_rollout_s", "time_logprobs_s", "time_update_s")


# --- generation ---------------------------------------------------------------------------------


class Generator(Protocol):
    """Where rollout actions come from. A policy it returns must record ``turns`` (prompt/completion ids)."""

    name: str

    def policy(self, *, temperature: float, seed: int | None) -> Any: ...

    def sync(self) -> None:
        """Make later generations use the weights just updated (a no-op when generating in-process)."""


class TransformersGenerator:
    """Generation with the trained model itself (``HFPolicy.from_loaded``): CPU, or a GPU without vLLM."""

    name = "transformers"

    def __init__(self, model: Any, tokenizer: Any, config: GRPORunConfig, system: str | None = None) -> None:
        self.model, self.tokenizer, self.config, self.system = model, tokenizer, config, system

    def policy(self, *, temperature: float, seed: int | None) -> Any:
        from consoleagent.policies.hf import HFPolicy

        return HFPolicy.from_loaded(self.model, self.tokenizer, temperature=temperature, top_p=self.config.top_p,
                                    max_new_tokens=self.config.max_new_tokens, max_prompt_tokens=self.config.max_prompt_tokens,
                                    seed=seed, name="hf:grpo", system=self.system)

    def sync(self) -> None:
        return None


def select_generator(config: GRPORunConfig, model: Any, tokenizer: Any, system: str | None = None) -> Generator:
    """The generator ``config.generator`` names (``auto`` and ``transformers``: the only one yet).

    A vLLM generator would plug in here: it would hold an ``LLM`` engine, load the policy's weights
    in ``sync()`` after each update, and return a policy whose ``act`` asks the engine and records
    the same ``turns``. ``GRPORunConfig.validate`` refuses any other name."""
    return TransformersGenerator(model, tokenizer, config, system)


# --- one step's data -----------------------------------------------------------------------------


@dataclass
class EpisodeOutcome:
    """One rollout as GRPO sees it: its reward and the token ids of each of its steps."""

    task_id: str
    key: str
    status: str
    reward: float | None
    valid: bool
    turns: list[Any] = field(default_factory=list)
    cause: str | None = None
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        return {"task": self.task_id, "key": self.key, "status": self.status, "reward": self.reward, "valid": self.valid,
                "steps": len(self.turns), "cause": (self.cause or "")[:200] or None, "seconds": round(self.seconds, 2)}


@dataclass
class StepSample:
    """One step of one episode: a prompt, the generated completion, and the episode's advantage.

    A ranker step has no token ids: ``completion_ids`` is ``[chosen index]`` (one action "token") and
    ``turn`` holds the recorded choice (``RankerTurn``) that the backend re-scores."""

    prompt_ids: list[int]
    completion_ids: list[int]
    advantage: float
    old_logps: Any = None
    ref_logps: Any = None
    turn: Any = None


def step_samples(episodes: list[EpisodeOutcome], advantages: list[float | None]) -> list[StepSample]:
    """Each kept episode's advantage broadcast to every one of its steps (and so to every action token)."""
    samples = []
    for episode, advantage in zip(episodes, advantages):
        if advantage is None:
            continue
        for t in episode.turns:
            if hasattr(t, "completion_ids"):
                if t.completion_ids:
                    samples.append(StepSample(list(t.prompt_ids), list(t.completion_ids), advantage))
            else:  # a choice among candidates (the ranker)
                samples.append(StepSample([], [int(t.chosen)], advantage, turn=t))
    return samples


# --- log-probs ----------------------------------------------------------------------------------


def batch_tensors(samples: list[StepSample], pad_id: int, device: Any) -> dict[str, Any]:
    """Left-padded prompt+completion rows, so every completion ends at the last position; the
    completion mask marks each row's own completion tokens within the last K positions."""
    import torch

    rows = [s.prompt_ids + s.completion_ids for s in samples]
    width = max(len(r) for r in rows)
    k = max(len(s.completion_ids) for s in samples)
    input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), k), dtype=torch.float32)
    for i, (row, sample) in enumerate(zip(rows, samples)):
        input_ids[i, width - len(row):] = torch.tensor(row)
        attention[i, width - len(row):] = 1
        mask[i, k - len(sample.completion_ids):] = 1.0
    positions = (attention.cumsum(1) - 1).clamp(min=0)
    return {"input_ids": input_ids.to(device), "attention_mask": attention.to(device), "position_ids": positions.to(device),
            "completion_ids": input_ids[:, width - k:].to(device), "mask": mask.to(device), "k": k}


def token_logps(model: Any, batch: dict[str, Any], temperature: float, with_entropy: bool = False) -> tuple[Any, Any]:
    """Log-probabilities of each row's last K tokens (and their entropies), at the sampling temperature."""
    from trl.trainer.utils import entropy_from_logits, selective_log_softmax

    k = batch["k"]
    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=batch["position_ids"],
                logits_to_keep=k + 1, use_cache=False)
    logits = out.logits[:, -k - 1:-1, :]
    if temperature > 0:
        logits = logits / temperature
    logps = selective_log_softmax(logits, batch["completion_ids"])
    entropy = entropy_from_logits(logits) if with_entropy else None
    return logps, entropy


# --- the trainer --------------------------------------------------------------------------------


def fp32_accelerator(*, cpu: bool) -> Any:
    """An accelerate ``Accelerator`` without mixed precision. accelerate keeps one state per process:
    after a bf16 run (a bf16 SFT earlier in the same process) a plain ``Accelerator()`` would silently
    inherit bf16 autocast, and the policy would no longer be computed like its fp32 reference."""
    from accelerate import Accelerator

    try:
        return Accelerator(cpu=cpu, mixed_precision="no")
    except ValueError as exc:
        raise RuntimeError("GRPO computes in fp32, but this process already set up accelerate with mixed precision "
                           "(a bf16 SFT run earlier in the same process?): run GRPO in its own process "
                           f"({exc})") from None


class StepGRPOTrainer:
    """Step-level GRPO against an in-process stratus with Chromium; see the module docstring."""

    def __init__(self, config: GRPORunConfig, *, playwright: Any = None, train_specs: list[Any] | None = None,
                 val_specs: list[Any] | None = None) -> None:
        config.validate()
        self.config = config
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.playwright = playwright
        self.train_specs = train_specs if train_specs is not None else self._load(config.tasks)
        self.val_specs = val_specs if val_specs is not None else (self._load(config.val_tasks) if config.val_tasks else [])
        if config.val_limit is not None:
            self.val_specs = self.val_specs[:config.val_limit]
        self.curriculum = TaskCurriculum(config.task_sampling, signal_weight=config.signal_weight,
                                         settled_weight=config.settled_weight)
        self.step = 0
        self.best_val: float | None = None
        self.best_val_sampled: float | None = None  # the tie-break of equal greedy successes (``val_samples``)
        self.best_val_pooled: float | None = None  # greedy and sampled validation episodes together (``val_select``)
        self.best_step: int | None = None
        self._server: Any = None
        self._world: Any = None
        self.backend: Any = None  # the ranker's RankerBackend; None for the hf policy (the code below)
        self.last_episodes: list[EpisodeOutcome] = []  # the latest step's rollouts (inspection, tests)

    def _load(self, selector: str | None) -> list[Any]:
        from consoleagent.suite.catalog import load_suite

        if self.config.tasks_root:
            return load_suite(selector, Path(self.config.tasks_root))
        from consoleagent.consoles import tasks_root_of

        root = tasks_root_of(self.config.console)
        if root is None:
            raise ValueError(f"console {self.config.console} ships no task files: set tasks_root in the config")
        return load_suite(selector, root)  # the console's own tasks

    # -- model ------------------------------------------------------------------------------

    def setup_model(self) -> None:
        import torch

        random.seed(self.config.seed)
        torch.manual_seed(self.config.seed)
        self.accelerator = fp32_accelerator(cpu=not torch.cuda.is_available())
        resume = resume_path(self.config.resume_from, self.out, kind="GRPO")
        self._keep_one_run(resume)
        if self.config.policy == "ranker":
            self._setup_ranker(resume)
        else:
            self._setup_hf(resume)
        if resume:
            self._restore(resume)

    def _setup_ranker(self, resume: Path | None) -> None:
        """The ranker's head (trainable), its frozen reference, and rollouts over the head in memory."""
        import torch

        from consoleagent.training.ranker_grpo import RankerBackend

        self.backend = RankerBackend(self.config.model or None, skip_futile=self.config.skip_futile)
        self.tokenizer, self.system = None, None
        head, self.reference = self.backend.load(resume)
        optimizer = torch.optim.AdamW(head.parameters(), lr=self.config.learning_rate, weight_decay=self.config.weight_decay)
        self.model, self.optimizer = self.accelerator.prepare(head, optimizer)
        self.generator = self.backend.generator(self.accelerator.unwrap_model(self.model))

    def _setup_hf(self, resume: Path | None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from trl.trainer.utils import disable_dropout_in_model

        self.tokenizer = AutoTokenizer.from_pretrained(self.config.model)
        self.system = model_system_prompt(self.config.model)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.reference = None
        if self.config.lora is not None:
            from peft import PeftModel, get_peft_model

            from consoleagent.training.sft import lora_config

            base = AutoModelForCausalLM.from_pretrained(self.config.model)
            model = (PeftModel.from_pretrained(base, str(resume), is_trainable=True) if resume
                     else get_peft_model(base, lora_config(self.config.lora)))
        else:
            model = AutoModelForCausalLM.from_pretrained(str(resume) if resume else self.config.model)
            if self.config.beta > 0:  # the reference is the model this run started from, even after a resume
                self.reference = AutoModelForCausalLM.from_pretrained(self.config.model)
                self.reference.requires_grad_(False)
                self.reference.eval()
                disable_dropout_in_model(self.reference)
        disable_dropout_in_model(model)
        params = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=self.config.learning_rate, weight_decay=self.config.weight_decay)
        self.model, self.optimizer = self.accelerator.prepare(model, optimizer)
        if self.reference is not None:
            self.reference = self.reference.to(self.accelerator.device)
        self.generator = select_generator(self.config, self.accelerator.unwrap_model(self.model), self.tokenizer,
                                          self.system)

    def _keep_one_run(self, resume: Path | None) -> None:
        """One output directory, one run: a fresh start that was not asked to resume never appends to another run's
        log and checkpoints (refused), and a resumed run drops the log rows of steps after its checkpoint (an
        interrupted step logged before it was saved, or a fresh start under ``auto``), so the log and the curves
        describe the one run the weights come from."""
        log = self.out / LOG_FILE
        held = [p.name for p in checkpoints(self.out, complete=False)]
        if not self.config.resume_from and (log.exists() or held):
            raise ValueError(f"{self.out} holds a GRPO run ({', '.join(([LOG_FILE] if log.exists() else []) + held)}): "
                             "continue it with --resume last (or --resume auto), or give another --out")
        if not log.exists():  # past the refusal, a log means a resume was asked: a checkpoint, or none under "auto"
            return
        step = json.loads((resume / STATE_FILE).read_text(encoding="utf-8"))["step"] if resume else 0
        rows = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
        kept = [line for line in rows if json.loads(line).get("step", 0) <= step]
        if len(kept) < len(rows):  # written aside and renamed: an interruption now leaves the old log whole
            trimmed = log.with_name(LOG_FILE + ".tmp")
            trimmed.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            os.replace(trimmed, log)

    def _restore(self, path: Path) -> None:
        import torch

        state = json.loads((path / STATE_FILE).read_text(encoding="utf-8"))
        self.step, self.best_val, self.best_step = state["step"], state.get("best_val"), state.get("best_step")
        self.best_val_sampled, self.best_val_pooled = state.get("best_val_sampled"), state.get("best_val_pooled")
        self._recall_curriculum()
        self.optimizer.load_state_dict(torch.load(path / "optimizer.pt", weights_only=False))
        rng = torch.load(path / "rng.pt", weights_only=False)
        random.setstate(rng["python"])
        torch.set_rng_state(rng["torch"])

    def _recall_curriculum(self) -> None:
        """The task memory of the steps up to the checkpoint, from the log (a resumed run picks as the whole run would)."""
        log = self.out / LOG_FILE
        if not log.exists():
            return
        for line in log.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("step", 0) <= self.step:
                self.curriculum.record_rollouts(row.get("rollouts", []))

    # -- the world ----------------------------------------------------------------------------

    def start_world(self) -> None:
        """The console (``config.console``, a backend started fresh each run: the world is rebuilt, the
        checkpoint carries over) and one worker, through the one world starter the benchmark uses."""
        from consoleagent.bench.episodes import build_worker
        from consoleagent.consoles import resolve_backend
        from consoleagent.consoles.world import start_world

        world = self.out / "world"
        options = {"time_scale": self.config.time_scale} if self.config.console == "stratus" else {}
        self._server = resolve_backend(self.config.console, **options)
        start_world(self._server, world, slots=1)
        tasks = self.train_specs + [s for s in self.val_specs if s not in self.train_specs]
        deadline = self.config.episode_timeout_s or max(t.time_limit_s for t in tasks) + 120.0
        self._world = build_worker(backend=self._server, world=world, tasks=tasks, policy=self.config.policy,
                                   episode_deadline_s=deadline, playwright=self.playwright, lease_ttl_s=deadline + 300.0,
                                   make_policy=_policy_passed_per_rollout)

    def close(self) -> None:
        if self._world is not None:
            self._world.close()
            self._world = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    # -- rollouts -----------------------------------------------------------------------------

    def _episode_spec(self, task_spec: Any, run_index: int) -> Any:
        from consoleagent.bench.episodes import episode_specs

        roots = {"documents_root": self._server.documents_root} if self._server is not None else {}
        spec = episode_specs([task_spec], 1, **roots, document_style=self.config.document_style)[0]
        task = spec.task
        if self.config.max_episode_steps:
            task = replace(task, max_steps=min(task.max_steps, self.config.max_episode_steps))
        return replace(spec, task=task, run_index=run_index)

    def rollout(self, task_spec: Any, run_index: int, *, temperature: float, seed: int | None, trajectories: Path) -> EpisodeOutcome:
        """One episode through the lifecycle; valid when the environment held and the judge gave a usable reward."""
        policy = self.generator.policy(temperature=temperature, seed=seed)
        self._world.rollout.trajectory_dir = trajectories
        started = time.monotonic()
        result = self._world.rollout.run(self._episode_spec(task_spec, run_index), policy=policy)
        turns = list(getattr(policy, "turns", []) or [])  # what it generated, step by step: the training samples
        valid = result.status != "env_error" and is_valid_reward(result.reward)
        return EpisodeOutcome(task_spec.id, result.key, result.status, result.reward, valid, turns, result.cause,
                              time.monotonic() - started)

    def run_group(self, task_spec: Any, step: int, index: int, trajectories: Path) -> list[EpisodeOutcome]:
        """G valid rollouts if the environment allows, running at most G + oversample."""
        outcomes: list[EpisodeOutcome] = []
        for i in range(self.config.group_size + self.config.oversample):
            if sum(o.valid for o in outcomes) >= self.config.group_size:
                break
            outcomes.append(self.rollout(task_spec, i, temperature=self.config.temperature,
                                         seed=self._rollout_seed(step, index, i), trajectories=trajectories))
        return outcomes

    def pick_tasks(self, step: int) -> list[Any]:
        """B tasks for a step, seeded by (seed, step) and weighted by ``config.task_sampling``."""
        rng = random.Random(self.config.seed * 7919 + step)
        return self.curriculum.pick(self.train_specs, self.config.tasks_per_step, rng)

    # -- the update ---------------------------------------------------------------------------

    def _micro_batches(self, samples: list[StepSample]) -> list[list[StepSample]]:
        size = self.config.micro_batch
        return [samples[i:i + size] for i in range(0, len(samples), size)]

    def _logps(self, model: Any, chunk: list[StepSample], with_entropy: bool = False) -> tuple[Any, Any, Any, int]:
        """``(logps, mask, entropy, k)`` of each sample's action tokens (the last ``k`` positions)."""
        if self.backend is not None:
            return self.backend.logps(model, chunk, self.config.temperature, with_entropy)
        batch = batch_tensors(chunk, self.tokenizer.pad_token_id, self.accelerator.device)
        logps, entropy = token_logps(model, batch, self.config.temperature, with_entropy=with_entropy)
        return logps, batch["mask"], entropy, batch["k"]

    def compute_fixed_logps(self, samples: list[StepSample]) -> None:
        """The old policy's and the reference's log-probs, once, before any update of this step."""
        import torch

        model = self.model
        with torch.no_grad():
            for chunk in self._micro_batches(samples):
                old, _, _, _ = self._logps(model, chunk)
                ref = None
                if self.config.beta > 0:
                    if self.backend is not None:
                        ref, _, _, _ = self._logps(self.reference, chunk)
                    elif self.config.lora is not None:
                        with self.accelerator.unwrap_model(model).disable_adapter():
                            ref, _, _, _ = self._logps(model, chunk)
                    else:
                        ref, _, _, _ = self._logps(self.reference, chunk)
                for i, sample in enumerate(chunk):
                    n = len(sample.completion_ids)
                    sample.old_logps = old[i, -n:].detach()
                    sample.ref_logps = ref[i, -n:].detach() if ref is not None else None

    def update(self, samples: list[StepSample]) -> dict[str, float]:
        """``updates_per_step`` optimiser steps, each one token-level mean over every action token of the batch."""
        import torch

        total = sum(len(s.completion_ids) for s in samples)
        sums = {"loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "entropy": 0.0, "ratio": 0.0, "grad_norm": 0.0}
        self.model.train()
        for _ in range(self.config.updates_per_step):
            self.optimizer.zero_grad(set_to_none=True)
            for chunk in self._micro_batches(samples):
                logps, mask, entropy, k = self._logps(self.model, chunk, with_entropy=True)
                old = _right_aligned([s.old_logps for s in chunk], k, logps)
                ref = _right_aligned([s.ref_logps for s in chunk], k, logps) if self.config.beta > 0 else None
                advantages = torch.tensor([s.advantage for s in chunk], device=logps.device)
                parts = grpo_token_loss(logps, old, ref, advantages, mask, clip_eps=self.config.clip_eps,
                                        beta=self.config.beta, total_tokens=total)
                self.accelerator.backward(parts.loss)
                share = parts.tokens / total
                sums["loss"] += float(parts.loss.detach())
                sums["kl"] += parts.kl * share
                sums["clip_fraction"] += parts.clip_fraction * share
                sums["ratio"] += parts.ratio_mean * share
                with torch.no_grad():
                    sums["entropy"] += float((entropy * mask).sum()) / total
            norm = self.accelerator.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
            sums["grad_norm"] += float(norm)
            self.optimizer.step()
        self.generator.sync()
        n = self.config.updates_per_step
        return {k: v / n for k, v in sums.items()}

    # -- one step, validation, checkpoints ------------------------------------------------------

    def train_step(self) -> dict[str, Any]:
        step = self.step + 1
        started = time.monotonic()
        trajectories = self.out / "rollouts" / f"step-{step:04d}"
        tasks = self.pick_tasks(step)
        self.model.eval()
        episodes: list[EpisodeOutcome] = []
        for index, task_spec in enumerate(tasks):
            episodes += [o for o in self.run_group(task_spec, step, index, trajectories)]
        rollout_s = time.monotonic() - started
        kept = [o for o in episodes if o.valid]
        self.last_episodes = episodes
        summaries = [o.summary() for o in episodes]
        self.curriculum.record_rollouts(summaries)
        result = group_advantages([o.task_id for o in kept], [o.reward for o in kept], eps=self.config.adv_eps)
        samples = step_samples(kept, result.advantages)
        row: dict[str, Any] = {"step": step, "tasks": [t.id for t in tasks], "episodes": len(episodes), "kept": len(kept),
                               "env_errors": sum(o.status == "env_error" for o in episodes),
                               "excluded": len(episodes) - len(kept), "groups": result.groups,
                               "zero_variance_groups": result.zero_variance_groups,
                               "zero_variance_share": (round(result.zero_variance_groups / result.groups, 4)
                                                       if result.groups else None),
                               "reward_mean": _mean([o.reward for o in kept]),
                               "success": _success_rate(kept),
                               "episode_len": _mean([float(len(o.turns)) for o in kept]),
                               "samples": len(samples), "action_tokens": sum(len(s.completion_ids) for s in samples),
                               **self.curriculum.summary()}
        t = time.monotonic()
        signal = any(s.advantage != 0.0 for s in samples)
        if samples and (signal or not self.config.skip_without_signal):
            # With every advantage 0 only the KL term is left. Its gradient is ~0 while the policy is
            # near the reference, but Adam rescales even tiny gradients to steps of the learning rate's
            # size, so such a step moves the weights on noise: skipped unless asked for.
            self.compute_fixed_logps(samples)
            row["time_logprobs_s"] = round(time.monotonic() - t, 3)
            t = time.monotonic()
            row.update(self.update(samples))
            row["time_update_s"] = round(time.monotonic() - t, 3)
            row["updated"] = True
        else:  # all excluded (nothing to learn from), or no signal (see above)
            row.update(updated=False, time_logprobs_s=0.0, time_update_s=0.0)
        row["time_rollout_s"] = round(rollout_s, 3)
        row["rollouts"] = summaries
        self.step = step
        if self.val_specs and step % self.config.val_every == 0:
            row.update(self.validate())
        row["time_step_s"] = round(time.monotonic() - started, 3)
        self._log(row)
        if step % self.config.save_every == 0 or step == self.config.steps:
            self.save_checkpoint()
        return row

    def validate(self) -> dict[str, Any]:
        """Greedy success rate on the val tasks, and with ``val_samples`` the sampled and pooled ones; the
        best so far by ``val_select`` is kept under ``best/``.

        Greedy success is what the benchmark measures, but on a few tasks it moves in whole tasks and
        often ties across checkpoints; the sampled success rate (``val_samples`` rollouts per task at
        the training temperature, with the same seeds at every validation, so checkpoints are compared
        on the same draws) moves with the whole distribution. ``greedy`` lets it break ties only;
        ``pooled`` chooses on every validation episode at once, greedy and sampled."""
        started = time.monotonic()
        self.model.eval()
        trajectories = self.out / "val" / f"step-{self.step:04d}"
        greedy = [self._valid_rollout(spec, 0, 0.0, None, trajectories) for spec in self.val_specs]
        kept = [o for o in greedy if o.valid]
        success = _success_rate(kept)
        row = {"val_success": success, "val_reward": _mean([o.reward for o in kept]), "val_episodes": len(greedy),
               "val_kept": len(kept),
               # which tasks, so that checkpoints can be compared task by task (a rate alone hides a swap)
               "val_failed": [o.task_id for o in kept if not _succeeded(o)],
               "val_lost": [o.task_id for o in greedy if not o.valid]}
        sampled_success, pooled_success = None, success
        if self.config.val_samples:
            sampled = [self._valid_rollout(spec, 1 + i, self.config.temperature,
                                           self._rollout_seed(VALIDATION_STEP, index, i), trajectories)
                       for index, spec in enumerate(self.val_specs) for i in range(self.config.val_samples)]
            sampled_kept = [o for o in sampled if o.valid]
            sampled_success, pooled_success = _success_rate(sampled_kept), _success_rate(kept + sampled_kept)
            row.update(val_sampled_success=sampled_success, val_sampled_episodes=len(sampled),
                       val_sampled_kept=len(sampled_kept), val_pooled_success=pooled_success)
        row["time_val_s"] = round(time.monotonic() - started, 3)
        if self.config.keep_validated:
            (self.out / VALIDATED_DIR).mkdir(parents=True, exist_ok=True)
            self.save_model(self.out / VALIDATED_DIR / f"step-{self.step:04d}")
        scores = (success, sampled_success, pooled_success)
        best = (self.best_val, self.best_val_sampled, self.best_val_pooled)
        if success is not None and (self.best_val is None or self._better(scores, best)):
            (self.best_val, self.best_val_sampled, self.best_val_pooled), self.best_step = scores, self.step
            self.save_model(self.out / "best")
            row["new_best"] = True
        return row

    def _better(self, scores: tuple[Any, ...], best: tuple[Any, ...]) -> bool:
        """Whether a validation's scores beat the best so far (``val_select``; an equal one by ``val_ties``)."""
        key, best_key = _selection_key(self.config.val_select, *scores), _selection_key(self.config.val_select, *best)
        return key > best_key or (key == best_key and self.config.val_ties == "later")

    def _valid_rollout(self, spec: Any, run_index: int, temperature: float, seed: int | None,
                       trajectories: Path) -> EpisodeOutcome:
        """A validation episode, run again (up to ``oversample`` times) when the environment lost it: an
        excluded episode would shrink one checkpoint's denominator, and 9 of 18 beats 9 of 19 without a
        task more (session 43)."""
        outcome = self.rollout(spec, run_index, temperature=temperature, seed=seed, trajectories=trajectories)
        for retry in range(self.config.oversample):
            if outcome.valid:
                break
            outcome = self.rollout(spec, run_index + 100 * (retry + 1), temperature=temperature, seed=seed,
                                   trajectories=trajectories)
        return outcome

    def _rollout_seed(self, step: int, task_index: int, rollout: int) -> int:
        """A sampled rollout's seed: a training group's at ``step``; validation's at step -1, so the same
        at every validation (common random numbers) and apart from every training rollout's."""
        return self.config.seed * 1_000_003 + step * 10_007 + task_index * 101 + rollout

    def save_model(self, path: Path) -> Path:
        """A plain model directory (LoRA merged into a copy), loadable by path (the hf policy, the benchmark)."""
        import copy

        model = self.accelerator.unwrap_model(self.model)
        if self.backend is not None:
            tmp = path.with_name(path.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            self.backend.save(model, tmp, {"step": self.step})
            shutil.rmtree(path, ignore_errors=True)
            tmp.rename(path)
            return path
        if self.config.lora is not None:
            model = copy.deepcopy(model).merge_and_unload()
        tmp = path.with_name(path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        model.save_pretrained(tmp)
        self._save_tokenizer_and_prompt(tmp)
        shutil.rmtree(path, ignore_errors=True)
        tmp.rename(path)
        return path

    def _save_tokenizer_and_prompt(self, path: Path) -> None:
        """The tokenizer, and the system message the model was trained with (when SFT recorded one)."""
        self.tokenizer.save_pretrained(path)
        if self.system is not None:
            save_model_prompt(path, self.system)

    def save_checkpoint(self) -> Path:
        """Model (or adapter) + optimiser + step + RNG, written to a temporary name then renamed."""
        import torch

        path = self.out / f"checkpoint-{self.step}"
        tmp = path.with_name(path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        if self.backend is not None:
            self.backend.save(self.accelerator.unwrap_model(self.model), tmp, {"step": self.step})
        else:
            self.accelerator.unwrap_model(self.model).save_pretrained(tmp)
            self._save_tokenizer_and_prompt(tmp)
        torch.save(self.optimizer.state_dict(), tmp / "optimizer.pt")
        torch.save({"python": random.getstate(), "torch": torch.get_rng_state()}, tmp / "rng.pt")
        state = {"step": self.step, "best_val": self.best_val, "best_val_sampled": self.best_val_sampled,
                 "best_val_pooled": self.best_val_pooled, "best_step": self.best_step, "config": asdict(self.config)}
        (tmp / STATE_FILE).write_text(json.dumps(state, indent=1, default=str), encoding="utf-8")
        shutil.rmtree(path, ignore_errors=True)
        tmp.rename(path)
        prune(self.out, self.config.keep_checkpoints)
        return path

    def _log(self, row: dict[str, Any]) -> None:
        with (self.out / LOG_FILE).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, default=str) + "\n")
            handle.flush()

    def write_curves(self) -> Path:
        from consoleagent.training.curves import plot_curves, read_jsonl

        return plot_curves(read_jsonl(self.out / LOG_FILE), CURVE_METRICS, self.out / "curves.png", title="step-level GRPO")

    def train(self) -> dict[str, Any]:
        """Run up to ``config.steps`` (resuming from ``resume_from``), then save ``final/`` and the curves."""
        if not hasattr(self, "model"):
            self.setup_model()
        (self.out / "run_config.json").write_text(json.dumps(asdict(self.config), indent=1), encoding="utf-8")
        started = time.monotonic()
        first = self.step
        try:
            if self.step < self.config.steps:
                self.start_world()
            while self.step < self.config.steps:
                self.train_step()
        finally:
            self.close()
        final = self.save_model(self.out / "final")
        curves = self.write_curves()
        summary = {"steps": self.step, "steps_this_run": self.step - first, "seconds": round(time.monotonic() - started, 2),
                   "best_val": self.best_val, "best_val_sampled": self.best_val_sampled,
                   "best_val_pooled": self.best_val_pooled, "val_select": self.config.val_select, "best_step": self.best_step,
                   "final_model": str(final),
                   "best_model": str(self.out / "best") if self.best_step else None, "curves": str(curves),
                   "generator": self.generator.name}
        (self.out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
        return summary


def _policy_passed_per_rollout(spec: Any) -> Any:
    """The worker's default policy factory, never used: every GRPO rollout is handed its own policy."""
    raise RuntimeError(f"GRPO hands each rollout its policy (Rollout.run(spec, policy=...)); {spec.key} got none")


def _right_aligned(rows: list[Any], k: int, like: Any) -> Any:
    """Per-row 1-D tensors placed at the end of a (rows, k) tensor of zeros (the completion layout)."""
    import torch

    out = torch.zeros((len(rows), k), dtype=like.dtype, device=like.device)
    for i, row in enumerate(rows):
        out[i, k - row.shape[0]:] = row.to(like.device)
    return out


def _succeeded(outcome: EpisodeOutcome) -> bool:
    return (outcome.reward or 0) >= 1.0


def _success_rate(outcomes: list[EpisodeOutcome]) -> float | None:
    return _mean([1.0 if _succeeded(o) else 0.0 for o in outcomes])


def _selection_key(rule: str, success: float, sampled_success: float | None,
                   pooled_success: float | None) -> tuple[float, ...]:
    """What ``best/`` is chosen on (the larger key wins; an equal one keeps the checkpoint ``val_ties`` says).

    ``greedy``: greedy success first, equal ones told apart by the sampled success (absent: no
    tie-break). ``pooled``: the success rate over every kept validation episode, greedy and sampled
    (a checkpoint restored from before this rule existed counts by its greedy success)."""
    if rule == "pooled":
        return (success if pooled_success is None else pooled_success,)
    return success, -1.0 if sampled_success is None else sampled_success


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None and math.isfinite(v)]
    return sum(present) / len(present) if present else None
