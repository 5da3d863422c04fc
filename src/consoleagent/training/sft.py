"""Supervised fine-tuning on the single-step samples with TRL's ``SFTTrainer``.

The samples are TRL's conversational prompt-completion records (docs/formats.md, "Training
samples"), so TRL applies the model's chat template and computes the loss on the completion only
(``completion_only_loss``): the model learns to write the Thought and the Action, never to predict
the observation. LoRA (PEFT) is an option. Besides TRL's loss and checkpoints, a run reports the
reference's first table: single-step action accuracy on held-out samples (greedy decoding; the
answer parsed with the same ReAct reader the agent uses; exact action, and same action name).

The output directory holds ``checkpoint-*`` (TRL/transformers checkpoints: resumable),
``final/`` (a full model, LoRA merged, that ``AutoModelForCausalLM.from_pretrained`` and the hf
policy load by path), ``adapter/`` (the LoRA adapter alone, with LoRA), ``metrics.json``,
``log.jsonl`` (TRL's log history) and ``loss.png``. ``final/`` and every checkpoint also hold
``consoleagent-prompt.json``, the system message the samples share, which the hf policy prompts with.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.training.checkpoints import resume_path
from consoleagent.training.config import SFTRunConfig
from consoleagent.policies.prompts import save_model_prompt
from consoleagent.training.samples import shared_system_prompt

LOSS_METRICS = ("loss", "eval_loss", "learning_rate", "grad_norm", "mean_token_accuracy", "eval_mean_token_accuracy")


def lora_config(spec: dict[str, Any]) -> Any:
    """A PEFT LoraConfig from the run config's ``lora`` mapping."""
    from peft import LoraConfig

    return LoraConfig(r=int(spec.get("r", 8)), lora_alpha=int(spec.get("alpha", 16)), lora_dropout=float(spec.get("dropout", 0.05)),
                      target_modules=spec.get("target_modules") or "all-linear", task_type="CAUSAL_LM")


def training_dataset(path: str | Path) -> Any:
    """The samples as a ``datasets.Dataset`` of prompt/completion only (TRL's prompt-completion type)."""
    from consoleagent.training.samples import to_dataset

    dataset = to_dataset(str(path))
    extra = [c for c in dataset.column_names if c not in ("prompt", "completion")]
    return dataset.remove_columns(extra)


def _sft_args(config: SFTRunConfig, has_eval: bool) -> Any:
    from trl import SFTConfig

    return SFTConfig(
        output_dir=config.output_dir, num_train_epochs=config.epochs, max_steps=config.max_steps,
        learning_rate=config.learning_rate, per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size, gradient_accumulation_steps=config.grad_accum,
        lr_scheduler_type=config.lr_scheduler, warmup_steps=config.warmup_steps, weight_decay=config.weight_decay,
        max_length=config.max_length, truncation_mode=config.truncation_mode, completion_only_loss=True, packing=False,
        logging_strategy="steps", logging_steps=config.logging_steps, logging_first_step=True,
        save_strategy="steps" if config.save_steps else "epoch", save_steps=config.save_steps or 500,
        save_total_limit=config.save_total_limit,
        eval_strategy=("steps" if config.eval_steps else "epoch") if has_eval else "no", eval_steps=config.eval_steps,
        seed=config.seed, data_seed=config.seed, bf16=config.bf16,
        activation_checkpointing=config.gradient_checkpointing, report_to="none", dataloader_num_workers=0,
        use_cpu=not _cuda(), disable_tqdm=not config.progress,
    )


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def run_sft(config: SFTRunConfig) -> dict[str, Any]:
    """Train, evaluate, score action accuracy, save the final model; returns (and writes) the metrics."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTTrainer

    config.validate()
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "run_config.json").write_text(json.dumps(asdict(config), indent=1), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(config.model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(config.model)
    train = training_dataset(config.train_file)
    system = shared_system_prompt(train)
    val = training_dataset(config.val_file) if config.val_file else None
    resume = resume_path(config.resume_from, out)
    trainer = SFTTrainer(model=model, args=_sft_args(config, val is not None), train_dataset=train, eval_dataset=val,
                         processing_class=tokenizer, peft_config=lora_config(config.lora) if config.lora is not None else None,
                         callbacks=[prompt_recorder(system)] if system is not None else None)
    started = time.monotonic()
    result = trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    train_s = time.monotonic() - started
    history = list(trainer.state.log_history)
    metrics: dict[str, Any] = {"model": config.model, "train_samples": len(train), "steps": trainer.state.global_step,
                               "epochs": trainer.state.epoch, "train_seconds": round(train_s, 2),
                               "seconds_per_step": round(train_s / max(1, trainer.state.global_step), 4),
                               "train_loss": result.training_loss, "lora": config.lora, "resumed_from": str(resume) if resume else None}
    losses = [row["loss"] for row in history if "loss" in row]
    if losses:
        metrics.update(first_loss=losses[0], last_loss=losses[-1])
    if val is not None:
        metrics["eval_loss"] = trainer.evaluate().get("eval_loss")
    final = save_final(trainer, tokenizer, out, lora=config.lora is not None)
    if system is not None:
        save_model_prompt(final, system)
    metrics["final_model"] = str(final)
    if config.accuracy_samples > 0:
        from consoleagent.training.samples import load_samples

        held_out = load_samples(config.val_file or config.train_file)[:config.accuracy_samples]
        metrics["action_accuracy"] = action_accuracy(trainer.model, tokenizer, held_out,
                                                     max_new_tokens=config.accuracy_max_new_tokens,
                                                     batch_size=config.accuracy_batch_size)
        metrics["action_accuracy"]["on"] = "val" if config.val_file else "train"
    write_logs(history, out)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, default=str), encoding="utf-8")
    return metrics


def prompt_recorder(system: str) -> Any:
    """A TrainerCallback that writes the system message into every checkpoint, so that a checkpoint
    is a complete policy too (built here: transformers is an optional dependency)."""
    from transformers import TrainerCallback

    class RecordPrompt(TrainerCallback):
        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if checkpoint.is_dir():
                save_model_prompt(checkpoint, system)
            return control

    return RecordPrompt()


def save_final(trainer: Any, tokenizer: Any, out: Path, *, lora: bool) -> Path:
    """``final/``: a plain model directory (LoRA merged into the weights), plus ``adapter/`` with LoRA."""
    final = out / "final"
    model = trainer.model
    if lora:
        model.save_pretrained(out / "adapter")
        model = model.merge_and_unload()  # the trainer is done with the model; merging modifies it in place
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    return final


def write_logs(history: list[dict[str, Any]], out: Path) -> None:
    from consoleagent.training.curves import plot_curves

    with (out / "log.jsonl").open("w", encoding="utf-8") as handle:
        for row in history:
            handle.write(json.dumps(row, default=str) + "\n")
    plot_curves(history, LOSS_METRICS, out / "loss.png", title="SFT")


# --- single-step action accuracy --------------------------------------------------------------


@dataclass
class AccuracyRow:
    id: str
    expected: str
    predicted: str | None
    exact: bool
    same_name: bool
    error: str | None = None
    answer: str = ""  # the model's text (clipped), to see what it wrote


@dataclass
class _Scores:
    rows: list[AccuracyRow] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        n = len(self.rows)
        return {"samples": n, "exact": sum(r.exact for r in self.rows) / n if n else 0.0,
                "same_name": sum(r.same_name for r in self.rows) / n if n else 0.0,
                "unparsed": sum(r.predicted is None for r in self.rows),
                "examples": [asdict(r) for r in self.rows[:5]]}


def canonical_action(text: str | None) -> tuple[str | None, str | None]:
    """(canonical DSL text, action name) of an action, or (None, None) when it does not parse."""
    from consoleagent.actions.parser import ActionParseError, parse_action

    if not text:
        return None, None
    try:
        action = parse_action(text)
    except (ActionParseError, ValueError):
        return None, None
    return str(action), action.name


def score_answer(sample: dict[str, Any], answer: str) -> AccuracyRow:
    """Compare a model's answer to the sample's action: the same canonical call, and the same action name."""
    from consoleagent.actions.react import parse_react

    expected, expected_name = canonical_action(sample["action"])
    parsed = parse_react(answer)
    predicted, name = canonical_action(parsed.action)
    return AccuracyRow(str(sample.get("id")), expected or sample["action"], predicted,
                       exact=predicted is not None and predicted == expected,
                       same_name=name is not None and name == expected_name,
                       error=parsed.error if parsed.action is None else (None if predicted else "action does not parse"),
                       answer=answer[:300])


def action_accuracy(model: Any, tokenizer: Any, samples: list[dict[str, Any]], *, max_new_tokens: int = 96,
                    batch_size: int = 8, max_prompt_tokens: int = 3072) -> dict[str, Any]:
    """Greedy answers to each sample's prompt, scored against its action (the reference's first table).

    The prompts are built, cut and generated by the hf policy itself, so the score is of the model as
    it acts."""
    from consoleagent.policies.hf import HFPolicy

    policy = HFPolicy.from_loaded(model, tokenizer, max_new_tokens=max_new_tokens, max_prompt_tokens=max_prompt_tokens)
    scores = _Scores()
    was_training = model.training
    model.eval()
    try:
        for start in range(0, len(samples), batch_size):
            batch = samples[start:start + batch_size]
            prompts = []
            for sample in batch:
                policy.system = sample["prompt"][0]["content"]
                prompts.append(policy.prompt_ids(sample["prompt"][1]["content"])[0])
            answers = [tokenizer.decode(ids, skip_special_tokens=True) for ids in policy.generate(prompts)]
            scores.rows += [score_answer(s, a) for s, a in zip(batch, answers)]
    finally:
        if was_training:
            model.train()
    return scores.summary()
