"""Step-level GRPO: the maths on hand-made numbers, then two real steps in the live environment.

The advantage and loss checks are computed by hand in the comments. The live part builds the tiny
model, starts an in-process stratus, and runs two GRPO steps on two real tasks with G = 2 in
Chromium (rollout → audit trail → rule judge → advantages → update), validates once, checkpoints,
resumes from the checkpoint, and finally shows an update with non-zero advantages moves the
weights (the tiny model's own rollouts all score 0: zero-variance groups, which carry no signal).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch

from consoleagent.training.advantages import group_advantages, grpo_token_loss

pytestmark = pytest.mark.browser


# --- advantages ---------------------------------------------------------------------------------


def test_two_layer_normalisation_on_hand_made_rewards() -> None:
    # task a: 1, 0, 1 valid (+ one -1 excluded): mean 2/3, population std sqrt(2)/3 = 0.4714
    #   per task: +0.7071, -1.4142, +0.7071
    # task b: 0, 0 -> zero variance -> 0, 0; task c: 1 (+ an env_error, None) -> one value, zero variance -> 0
    # batch over the 6 kept: mean 0, std sqrt((0.5 + 2 + 0.5) / 6) = 0.7071 -> a: +1, -2, +1; b, c: 0
    tasks = ["a", "a", "a", "a", "b", "b", "c", "c"]
    rewards: list[float | None] = [1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, None]
    result = group_advantages(tasks, rewards, eps=1e-4)
    expected = [1.0, -2.0, 1.0, None, 0.0, 0.0, 0.0, None]
    for got, want in zip(result.advantages, expected):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want, abs=1e-3)
    assert (result.kept, result.excluded, result.groups, result.zero_variance_groups) == (6, 2, 3, 2)
    assert result.task_stats["a"]["mean"] == pytest.approx(2 / 3)
    assert result.task_stats["a"]["std"] == pytest.approx(math.sqrt(2) / 3)


def test_per_task_scale_is_removed_before_the_batch_step() -> None:
    # task x rewards 1, 0 and task y rewards 0.2, 0: after the per-task step both groups are +-1
    # (up to eps), so the easy and the hard task weigh the same in the batch.
    result = group_advantages(["x", "x", "y", "y"], [1.0, 0.0, 0.2, 0.0], eps=1e-6)
    assert result.advantages == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-4)
    assert result.zero_variance_groups == 0


def test_a_batch_without_signal_is_all_zero() -> None:
    result = group_advantages(["a", "a", "b", "b"], [0.0, 0.0, 1.0, 1.0])
    assert result.advantages == [0.0, 0.0, 0.0, 0.0]
    assert result.zero_variance_groups == 2
    with pytest.raises(ValueError, match="2 task ids but 1 rewards"):
        group_advantages(["a", "b"], [1.0])


# --- the loss ------------------------------------------------------------------------------------


def test_clipped_surrogate_kl_and_clip_fraction_by_hand() -> None:
    # row 0 (A = +1): ratios 1.5, 0.9 -> surrogates min(1.5, 1.2) = 1.2 (clipped), 0.9
    # row 1 (A = -1): ratio 0.5 (second token is padding) -> min(-0.5, -0.8) = -0.8 (clipped)
    # KL k3 with ref - logp = 0, ln 2, ln 2 -> 0, 2 - ln 2 - 1, 2 - ln 2 - 1
    logps = torch.tensor([[-1.0, -2.0], [-1.5, -9.0]], requires_grad=True)
    old = logps.detach() - torch.log(torch.tensor([[1.5, 0.9], [0.5, 1.0]]))
    ref = logps.detach() + torch.tensor([[0.0, math.log(2)], [math.log(2), 5.0]])
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    parts = grpo_token_loss(logps, old, ref, torch.tensor([1.0, -1.0]), mask, clip_eps=0.2, beta=0.1)
    kl_token = 2 - math.log(2) - 1
    assert parts.tokens == 3
    assert parts.clip_fraction == pytest.approx(2 / 3)
    assert parts.kl == pytest.approx(2 * kl_token / 3)
    assert parts.surrogate == pytest.approx((1.2 + 0.9 - 0.8) / 3)
    assert float(parts.loss.detach()) == pytest.approx(-((1.2 + 0.9 - 0.8) - 0.1 * 2 * kl_token) / 3)
    parts.loss.backward()
    assert torch.isfinite(logps.grad).all()
    assert logps.grad[1, 1] == 0.0  # padding gets no gradient
    assert logps.grad[0, 0] == pytest.approx(0.0)  # clipped with A > 0 and no KL: no gradient through the ratio


def test_token_level_aggregation_over_micro_batches() -> None:
    # two micro-batches of 1 and 3 tokens: with total_tokens=4 their losses add up to one mean over 4 tokens
    logps = torch.zeros((1, 3))
    whole = grpo_token_loss(torch.zeros((2, 3)), torch.zeros((2, 3)), None, torch.tensor([2.0, -1.0]),
                            torch.tensor([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]), beta=0.0)
    first = grpo_token_loss(logps, logps, None, torch.tensor([2.0]), torch.tensor([[0.0, 0.0, 1.0]]), beta=0.0, total_tokens=4)
    second = grpo_token_loss(logps, logps, None, torch.tensor([-1.0]), torch.tensor([[1.0, 1.0, 1.0]]), beta=0.0, total_tokens=4)
    assert float(first.loss + second.loss) == pytest.approx(float(whole.loss)) == pytest.approx(-(2 - 3) / 4)


# --- two real GRPO steps ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from consoleagent.policies.prompts import save_model_prompt, system_text
    from consoleagent.training.tiny_model import build_tiny_model

    path = build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", vocab_size=1024, hidden_size=64, layers=2, heads=4,
                            kv_heads=2)
    save_model_prompt(path, system_text("compact"))  # as SFT on compact samples leaves it
    return path


def _weights(model: Any) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _changed(before: dict[str, torch.Tensor], model: Any) -> bool:
    return any(not torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_two_grpo_steps_on_two_tasks_in_the_live_environment(tiny_model: Path, tmp_path: Path, playwright_instance: Any) -> None:
    from consoleagent.suite.catalog import load_suite
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import StepGRPOTrainer, step_samples
    from consoleagent.policies.prompts import model_system_prompt, system_text

    tasks = load_suite("vpc-create-vpc-01 vpc-create-vpc-02")
    out = tmp_path / "grpo"
    config = GRPORunConfig(model=str(tiny_model), output_dir=str(out), steps=2, tasks_per_step=2, group_size=2, oversample=1,
                           temperature=1.0, max_new_tokens=12, max_prompt_tokens=768, max_episode_steps=1,
                           learning_rate=1e-3, beta=0.1, updates_per_step=1, micro_batch=4, val_every=2, seed=3,
                           val_samples=1, skip_without_signal=False)  # exercise the update path even on all-zero rewards
    trainer = StepGRPOTrainer(config, playwright=playwright_instance, train_specs=tasks, val_specs=tasks[:1])
    trainer.setup_model()
    initial = _weights(trainer.model)
    summary = trainer.train()

    rows = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    for row in rows:
        assert sorted(row["tasks"]) == ["vpc-create-vpc-01", "vpc-create-vpc-02"]
        assert row["kept"] + row["excluded"] == row["episodes"] and row["kept"] >= 2
        assert {r["task"] for r in row["rollouts"]} == set(row["tasks"])
        assert row["updated"] and math.isfinite(row["loss"]) and math.isfinite(row["kl"]) and row["entropy"] > 0
        assert row["samples"] >= row["kept"] and row["action_tokens"] > 0
        assert 0.0 <= row["clip_fraction"] <= 1.0 and row["time_rollout_s"] > 0 and row["time_update_s"] > 0
        assert row["reward_mean"] is not None and 0.0 <= row["success"] <= 1.0
    assert "val_success" in rows[1] and rows[1]["val_episodes"] == 1
    assert rows[1]["val_sampled_episodes"] == 1 and rows[1]["val_sampled_success"] == trainer.best_val_sampled
    assert (out / "curves.png").stat().st_size > 1000
    assert (out / "final" / "config.json").exists() and (out / "best" / "config.json").exists()
    assert summary["steps"] == 2 and summary["best_step"] == 2
    checkpoint = out / "checkpoint-2"
    assert (checkpoint / "optimizer.pt").exists() and (checkpoint / "rng.pt").exists()
    assert len(list((out / "rollouts" / "step-0001").glob("*.jsonl"))) == rows[0]["episodes"]
    # rollouts are prompted with the system message the model was trained with, and its saves keep it
    compact = system_text("compact")
    assert compact in trainer.tokenizer.decode(trainer.last_episodes[0].turns[0].prompt_ids)
    assert model_system_prompt(out / "final") == model_system_prompt(out / "best") == model_system_prompt(checkpoint) == compact

    # The tiny model's junk scores 0 everywhere: every group has zero variance and, at the start, the
    # policy is the reference, so the gradient is exactly 0. When a group does differ, the weights move.
    no_signal = all(r["zero_variance_groups"] == r["groups"] for r in rows)
    assert _changed(initial, trainer.model) is not no_signal

    # An update on the real rollouts of step 2 with hand-made rewards (one success per group) moves the weights.
    episodes = [o for o in trainer.last_episodes if o.valid]
    firsts = {}
    rewards = [1.0 if firsts.setdefault(o.task_id, o.key) == o.key else 0.0 for o in episodes]
    result = group_advantages([o.task_id for o in episodes], rewards)
    assert result.zero_variance_groups == 0
    samples = step_samples(episodes, result.advantages)
    assert len(samples) == sum(len(o.turns) for o in episodes)
    assert sorted({round(s.advantage, 3) for s in samples}) == [-1.0, 1.0]
    before = _weights(trainer.model)
    trainer.compute_fixed_logps(samples)
    stats = trainer.update(samples)
    assert math.isfinite(stats["loss"]) and stats["grad_norm"] > 0
    assert _changed(before, trainer.model)

    # One directory, one run: a fresh start there is refused rather than appended to this run's log
    with pytest.raises(ValueError, match=r"holds a GRPO run \(log.jsonl, checkpoint-.*\): continue it with --resume last"):
        StepGRPOTrainer(config, train_specs=tasks, val_specs=tasks[:1]).setup_model()
    with (out / "log.jsonl").open("a", encoding="utf-8") as handle:  # a step logged, then interrupted before its save
        handle.write(json.dumps({"step": 3, "tasks": ["vpc-create-vpc-01"]}) + "\n")

    # Resume: the checkpoint restores step, best validation and optimiser; nothing is left to run.
    resumed = StepGRPOTrainer(GRPORunConfig(**{**config.__dict__, "resume_from": "last"}), train_specs=tasks, val_specs=tasks[:1])
    resumed.setup_model()
    assert (resumed.step, resumed.best_step) == (2, 2)
    assert [json.loads(line)["step"] for line in (out / "log.jsonl").read_text().splitlines()] == [1, 2]  # step 3 dropped
    best = (trainer.best_val, trainer.best_val_sampled, trainer.best_val_pooled)
    assert (resumed.best_val, resumed.best_val_sampled, resumed.best_val_pooled) == best and None not in best
    assert resumed.optimizer.state_dict()["state"], "the optimiser's moments were restored"
    assert resumed.train()["steps_this_run"] == 0

    # The same resume through the command line: a config's fields as flags and --set, nothing left to run.
    from typer.testing import CliRunner

    from consoleagent.cli import app

    result = CliRunner().invoke(app, ["train", "grpo", "--model", str(tiny_model), "--out", str(out), "--steps", "2",
                                      "--tasks", "vpc-create-vpc-01 vpc-create-vpc-02", "--val-tasks", "vpc-create-vpc-01",
                                      "--resume", "last", "--set", "max_episode_steps=1"])
    assert result.exit_code == 0, result.output
    assert "resuming at step 2 of 2" in result.output and "GRPO done: 2 steps (0 this run)" in result.output

    # "auto", for a script run again: the newest checkpoint if there is one, else a fresh start whose log is its own
    auto = StepGRPOTrainer(GRPORunConfig(**{**config.__dict__, "resume_from": "auto"}), train_specs=tasks, val_specs=tasks[:1])
    auto.setup_model()
    assert auto.step == 2
    early = tmp_path / "interrupted-in-step-1"
    early.mkdir()
    (early / "log.jsonl").write_text(json.dumps({"step": 1}) + "\n")  # logged, never saved: no checkpoint to resume
    fresh = StepGRPOTrainer(GRPORunConfig(**{**config.__dict__, "output_dir": str(early), "resume_from": "auto"}),
                            train_specs=tasks, val_specs=tasks[:1])
    fresh.setup_model()
    assert fresh.step == 0 and (early / "log.jsonl").read_text() == ""

    # By default a batch without signal (every advantage 0) makes no optimiser step: the weights stay put.
    trainer.config.skip_without_signal = True
    before = _weights(trainer.model)
    trainer.start_world()  # train() closed it
    try:
        row = trainer.train_step()
    finally:
        trainer.close()
    if row["zero_variance_groups"] == row["groups"]:
        assert row["updated"] is False and "loss" not in row and not _changed(before, trainer.model)
    else:  # a rollout happened to succeed: then there is signal and an update
        assert row["updated"] is True and _changed(before, trainer.model)


def test_an_unknown_generator_is_a_config_error(tiny_model: Path, tmp_path: Path) -> None:
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import select_generator

    with pytest.raises(ValueError, match="generator must be one of auto, transformers, not 'vllm'"):
        GRPORunConfig(model=str(tiny_model), generator="vllm").validate()
    assert select_generator(GRPORunConfig(model=str(tiny_model)), None, None).name == "transformers"
    with pytest.raises(ValueError, match="group_size must be at least 1"):
        GRPORunConfig(model="m", group_size=0).validate()
    with pytest.raises(ValueError, match="document_style must be one of as_written, plain, not 'bold'"):
        GRPORunConfig(model="m", document_style="bold").validate()


def test_lora_update_moves_only_the_adapter_and_the_reference_is_the_base(tiny_model: Path, tmp_path: Path) -> None:
    """With LoRA the reference is the same network with the adapter disabled: KL starts at 0 and grows
    as the adapter learns; the base weights never move. Samples here are real token ids of a chat prompt."""
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import StepGRPOTrainer, StepSample

    # a step small enough for three Adam updates to move each answer the way its advantage says: at 5e-2 they overshot
    # (the good answer lost 1.9 nats) once session 48's 25 task files changed the tiny model's tokenizer
    config = GRPORunConfig(model=str(tiny_model), output_dir=str(tmp_path / "lora"), lora={"r": 4, "alpha": 8, "dropout": 0.0},
                           learning_rate=1e-2, beta=0.1, updates_per_step=3, micro_batch=1, temperature=1.0)
    trainer = StepGRPOTrainer(config, train_specs=[], val_specs=[])
    trainer.setup_model()
    tok = trainer.tokenizer
    prompt = tok.apply_chat_template([{"role": "user", "content": "Goal: create a VPC"}], add_generation_prompt=True,
                                     tokenize=False)
    prompt_ids = list(tok(prompt, add_special_tokens=False)["input_ids"])
    good = list(tok("Thought: open it\nAction: click(3)", add_special_tokens=False)["input_ids"]) + [tok.eos_token_id]
    bad = list(tok("Action: back()", add_special_tokens=False)["input_ids"]) + [tok.eos_token_id]
    samples = [StepSample(prompt_ids, good, 1.0), StepSample(prompt_ids, bad, -1.0)]
    base = {k: v.detach().clone() for k, v in trainer.model.state_dict().items() if "lora_" not in k}
    adapter = {k: v.detach().clone() for k, v in trainer.model.state_dict().items() if "lora_" in k}
    trainer.compute_fixed_logps(samples)
    assert torch.allclose(samples[0].old_logps, samples[0].ref_logps)  # adapter B = 0 at the start: policy == base
    stats = trainer.update(samples)
    assert stats["kl"] > 0 and stats["clip_fraction"] > 0 and math.isfinite(stats["loss"])  # 3 updates: the ratio moved
    state = trainer.model.state_dict()
    assert all(torch.equal(v, state[k]) for k, v in base.items())
    assert any(not torch.equal(v, state[k]) for k, v in adapter.items())
    trainer.compute_fixed_logps(samples)  # the good answer became more likely than before, and gained more than the bad
    gained = [float(s.old_logps.sum()) - float(s.ref_logps.sum()) for s in samples]
    assert gained[0] > 0
    # (the two answers share tokens, "Action:" and the end of turn, that the good one's push also lifts: on
    # some tokenizers the bad answer's total rises a little too, but always less than the good one's)
    assert gained[0] > gained[1]
    trainer.save_checkpoint()
    assert (tmp_path / "lora" / "checkpoint-0" / "adapter_config.json").exists()
    final = trainer.save_model(tmp_path / "lora" / "final")
    assert not (final / "adapter_config.json").exists() and (final / "config.json").exists()  # merged
    resumed = StepGRPOTrainer(GRPORunConfig(**{**config.__dict__, "resume_from": str(tmp_path / "lora" / "checkpoint-0")}),
                              train_specs=[], val_specs=[])
    resumed.setup_model()
    restored = resumed.model.state_dict()
    assert all(torch.equal(v, restored[k]) for k, v in trainer.model.state_dict().items() if "lora_" in k)


def test_grpo_refuses_to_inherit_mixed_precision_from_an_earlier_run_in_the_process() -> None:
    """accelerate keeps one state per process: after a bf16 SFT, a plain Accelerator() silently runs
    bf16 autocast. GRPO asks for fp32 and says why it cannot have it (in a child process: the state
    must not leak into the other tests of this worker)."""
    import subprocess
    import sys

    def run(script: str) -> str:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    fresh = "from consoleagent.training.grpo import fp32_accelerator\nprint(fp32_accelerator(cpu=True).mixed_precision)\n"
    assert run(fresh).strip() == "no"
    after_bf16 = ("from accelerate import Accelerator\nAccelerator(cpu=True, mixed_precision='bf16')\n"
                  "from consoleagent.training.grpo import fp32_accelerator\n"
                  "try:\n    fp32_accelerator(cpu=True)\nexcept RuntimeError as exc:\n    print(exc)\n")
    message = run(after_bf16)
    assert "GRPO computes in fp32" in message and "run GRPO in its own process" in message
