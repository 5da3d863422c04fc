"""SFT with TRL on real samples: an oracle episode collected through the harness, cut into samples,
a tiny model trained on them until it overfits, its checkpoint reloaded, action accuracy scored;
then the LoRA variant, and resuming from a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory, playwright_instance: Any) -> tuple[Path, list[dict[str, Any]]]:
    """Samples from one real oracle episode (collected with the bench harness, then filtered and converted)."""
    from consoleagent.suite.catalog import load_suite
    from consoleagent.training.collect import collect
    from consoleagent.training.dataset import build_samples
    from consoleagent.policies.prompts import system_text
    from consoleagent.training.samples import write_samples

    root = tmp_path_factory.mktemp("sft-data")
    tasks = load_suite("vpc-create-vpc-01")
    collect(tasks, root / "collect", runs=1, playwright=playwright_instance)
    built = build_samples(root / "collect", specs={t.id: t for t in tasks}, val_fraction=0.0, system=system_text("compact"))
    assert len(built.train) >= 3, built.reports
    path = root / "train.jsonl"
    write_samples(built.train, path)
    return path, built.train


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, samples: tuple[Path, list[dict[str, Any]]]) -> Path:
    from consoleagent.training.tiny_model import build_tiny_model

    texts = [m["content"] for s in samples[1] for m in s["prompt"] + s["completion"]]
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", corpus_texts=texts, vocab_size=1024, hidden_size=64,
                            layers=2, heads=4, kv_heads=2)


def test_sft_overfits_checkpoints_and_scores_action_accuracy(samples: tuple[Path, list[dict[str, Any]]], tiny_model: Path,
                                                              tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    from consoleagent.policies.hf import HFPolicy
    from consoleagent.policies.prompts import model_system_prompt, system_text
    from consoleagent.training.samples import write_samples
    from consoleagent.training.checkpoints import latest_checkpoint
    from consoleagent.training.config import SFTRunConfig
    from consoleagent.training.sft import run_sft

    rows = samples[1][:3]  # three real steps (about 2,000 tokens each): enough to overfit, quick on a CPU
    path = tmp_path / "three.jsonl"
    write_samples(rows, path)
    out = tmp_path / "sft"
    config = SFTRunConfig(model=str(tiny_model), train_file=str(path), val_file=str(path), output_dir=str(out), epochs=8,
                          learning_rate=5e-3, batch_size=3, max_length=4096, accuracy_samples=3, accuracy_max_new_tokens=16)
    metrics = run_sft(config)
    assert metrics["last_loss"] < metrics["first_loss"] * 0.9, metrics  # a handful of samples: it must overfit
    assert metrics["eval_loss"] is not None and metrics["train_samples"] == len(rows)
    accuracy = metrics["action_accuracy"]
    assert accuracy["samples"] == 3 and 0.0 <= accuracy["exact"] <= accuracy["same_name"] <= 1.0
    assert all(row["expected"] for row in accuracy["examples"])
    assert json.loads((out / "metrics.json").read_text())["steps"] == metrics["steps"]
    assert (out / "loss.png").stat().st_size > 1000
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert any("loss" in row for row in log) and any("eval_loss" in row for row in log)
    checkpoint = latest_checkpoint(out)
    assert checkpoint is not None and (checkpoint / "trainer_state.json").exists()
    reloaded = AutoModelForCausalLM.from_pretrained(checkpoint)
    final = AutoModelForCausalLM.from_pretrained(out / "final")
    assert sum(p.numel() for p in reloaded.parameters()) == sum(p.numel() for p in final.parameters())
    # the compact system message the samples carry is recorded with the model, so the policy prompts it the same way
    assert model_system_prompt(out / "final") == model_system_prompt(checkpoint) == system_text("compact")
    policy = HFPolicy(str(out / "final"), max_new_tokens=4)
    assert policy.system == system_text("compact") and policy.render_prompt("## Goal\nx").count(system_text("compact")) == 1

    # Resume from the last checkpoint with one more epoch: training continues from its global step.
    more = run_sft(SFTRunConfig(**{**config.__dict__, "epochs": 9, "resume_from": "last", "accuracy_samples": 0}))
    assert more["resumed_from"] == str(checkpoint) and more["steps"] > metrics["steps"]


def test_lora_variant_runs_and_merges(samples: tuple[Path, list[dict[str, Any]]], tiny_model: Path, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    from consoleagent.training.config import SFTRunConfig
    from consoleagent.training.sft import run_sft

    out = tmp_path / "lora"
    metrics = run_sft(SFTRunConfig(model=str(tiny_model), train_file=str(samples[0]), output_dir=str(out), max_steps=1,
                                   batch_size=2, learning_rate=1e-2, lora={"r": 4, "alpha": 8, "dropout": 0.0},
                                   accuracy_samples=2, accuracy_max_new_tokens=8))
    assert metrics["steps"] == 1 and metrics["action_accuracy"]["samples"] == 2
    assert (out / "adapter" / "adapter_config.json").exists()
    merged = AutoModelForCausalLM.from_pretrained(out / "final")  # LoRA merged: a plain model
    assert not any("lora" in name for name, _ in merged.named_parameters())


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    from consoleagent.training.config import ConfigError, SFTRunConfig, load_config

    bad = tmp_path / "sft.yaml"
    bad.write_text("model: m\ntrain_file: t.jsonl\nepochz: 3\n")
    with pytest.raises(ConfigError, match=r"sft.yaml: unknown field\(s\) 'epochz'"):
        load_config(SFTRunConfig, bad)
    bad.write_text("model: m\nbatch_size: four\n")
    with pytest.raises(ConfigError, match="field 'batch_size' must be int"):
        load_config(SFTRunConfig, bad)
    config = load_config(SFTRunConfig, None, {"model": "m", "train_file": str(bad), "epochs": 2})
    assert config.epochs == 2.0
    with pytest.raises(ValueError, match="lora has unknown key"):
        SFTRunConfig(model="m", train_file=str(bad), lora={"rank": 4}).validate()


def test_train_sft_command_with_a_config_file_and_overrides(samples: tuple[Path, list[dict[str, Any]]], tiny_model: Path,
                                                             tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from consoleagent.cli import app

    config = tmp_path / "sft.yaml"
    config.write_text(f"model: {tiny_model}\ntrain_file: {samples[0]}\noutput_dir: {tmp_path / 'ignored'}\nepochs: 5\n")
    out = tmp_path / "cli-sft"
    result = CliRunner().invoke(app, ["train", "sft", "--config", str(config), "--out", str(out), "--max-steps", "1",
                                      "--set", "accuracy_samples=1", "--set", "accuracy_max_new_tokens=4"])
    assert result.exit_code == 0, result.output
    assert "SFT done: 1 steps" in result.output and "action accuracy on 1 train samples" in result.output
    assert json.loads((out / "metrics.json").read_text())["steps"] == 1
    assert not (tmp_path / "ignored").exists()  # the flag overrode the file

    config.write_text("model: m\ngroup_size: two\n")
    bad = CliRunner().invoke(app, ["train", "grpo", "--config", str(config)])
    assert bad.exit_code == 2 and "field 'group_size' must be int" in " ".join(bad.output.split())
