"""The training pipeline end to end, then the benchmark of what it produced.

collect (oracle on training tasks) → samples (filters, split by task) → tiny model (tokenizer on the
corpus) → SFT (TRL) → step-level GRPO (live stratus, Chromium, audit rewards) → benchmark on held-out
test tasks, ``--runs`` runs each, of four policies: docfollower, oracle (the teacher), the tiny model
after SFT, after SFT + GRPO. Reports pass@1 ± std, pass@k, cost per task, the paired bootstrap of
GRPO over SFT, SFT's single-step action accuracy, and the time of each phase (per SFT step, per GRPO
step, per episode) to say how it scales.

Every phase skips what its output directory already holds, so an interrupted run resumes.

Run: python bench/bench_training.py [--train-tasks SEL] [--train-limit 0] [--test-tasks SEL] [--test-limit 10]
     [--runs 3] [--sft-steps 300] [--grpo-steps 4] [--step-cap 15] [--work DIR] [--out bench/results/DATE-training]
(``--help`` lists every knob: model size, system message, bf16, GRPO's B, G and learning rate.)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import time
from datetime import date
from pathlib import Path
from typing import Any

from common import ROOT, machine

from consoleagent.bench.compare import compare, markdown
from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.suite.catalog import load_suite


def capped(tasks: list[Any], cap: int) -> list[Any]:
    """The same tasks with their step limit capped (every policy gets the same cap: CPU budget)."""
    return [t.model_copy(update={"max_steps": min(t.max_steps, cap)}) for t in tasks]


def pick(selector: str, limit: int, cap: int) -> list[Any]:
    """``limit`` tasks spread over ``selector`` whose oracle solution fits the step cap (with 3 steps to spare)."""
    tasks = [t for t in load_suite(selector) if len(t.oracle) + 3 <= cap]
    if limit <= 0:
        return capped(tasks, cap)
    stride = max(1, len(tasks) // limit)  # spread over the families rather than the first few
    return capped(tasks[::stride][:limit], cap)


class Timer:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    def run(self, name: str, action: Any) -> Any:
        started = time.monotonic()
        print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
        value = action()
        self.phases[name] = round(time.monotonic() - started, 1)
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {self.phases[name]} s", flush=True)
        return value


def build_data(work: Path, train: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    from consoleagent.training.collect import collect
    from consoleagent.training.dataset import build_samples
    from consoleagent.policies.prompts import system_text
    from consoleagent.training.samples import write_samples

    collect(train, work / "collect", runs=args.collect_runs, workers=2, command="bench/bench_training.py")
    built = build_samples(work / "collect", specs={t.id: t for t in train}, val_fraction=args.val_fraction,
                          system=system_text(args.system))
    write_samples(built.train, work / "samples.jsonl")
    write_samples(built.val, work / "samples.val.jsonl")
    return {"train": len(built.train), "val": len(built.val), "val_tasks": built.val_tasks,
            "filters": [{k: r[k] for k in ("filter", "in", "kept", "dropped")} for r in built.reports]}


def build_model(work: Path, args: argparse.Namespace) -> dict[str, Any]:
    from consoleagent.training.samples import load_samples
    from consoleagent.training.tiny_model import build_tiny_model

    texts = [m["content"] for s in load_samples(work / "samples.jsonl") for m in s["prompt"] + s["completion"]]
    path = build_tiny_model(work / "tiny", corpus_texts=texts, vocab_size=args.vocab, hidden_size=args.hidden, layers=args.layers)
    return model_info(path)


def model_info(path: Path) -> dict[str, Any]:
    """What build_tiny_model recorded about the model (parameters, sizes), if it did."""
    found = sorted(path.glob("*build.json"))
    return json.loads(found[0].read_text()) if found else {}


def sft(work: Path, args: argparse.Namespace) -> dict[str, Any]:
    from consoleagent.training.config import SFTRunConfig
    from consoleagent.training.sft import run_sft

    if (work / "sft" / "metrics.json").exists() and (work / "sft" / "final").exists():
        return json.loads((work / "sft" / "metrics.json").read_text())
    config = SFTRunConfig(model=str(work / "tiny"), train_file=str(work / "samples.jsonl"),
                          val_file=str(work / "samples.val.jsonl"), output_dir=str(work / "sft"), epochs=args.sft_epochs,
                          max_steps=args.sft_steps, learning_rate=args.sft_lr, lr_scheduler="cosine", warmup_steps=0.05,
                          batch_size=8, bf16=args.bf16, save_steps=max(1, args.sft_steps // 4) if args.sft_steps > 0 else None,
                          eval_steps=10**6, accuracy_samples=args.accuracy_samples, accuracy_max_new_tokens=64,
                          progress=False, logging_steps=5)
    # In a process of its own: a bf16 run sets accelerate's process-wide state, which GRPO (fp32) must not inherit.
    child = multiprocessing.get_context("spawn").Process(target=run_sft, args=(config,))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"SFT failed (exit code {child.exitcode}); its output is above, its files under {work / 'sft'}")
    return json.loads((work / "sft" / "metrics.json").read_text())


def train_accuracy(work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Single-step action accuracy of the SFT model on training samples (every 4th): how well it fitted
    what it saw, beside the held-out figure SFT reports."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from consoleagent.training.samples import load_samples
    from consoleagent.training.sft import action_accuracy

    final = work / "sft" / "final"
    model, tokenizer = AutoModelForCausalLM.from_pretrained(final), AutoTokenizer.from_pretrained(final)
    samples = load_samples(work / "samples.jsonl")[::4][:args.accuracy_samples]
    scored = action_accuracy(model, tokenizer, samples, max_new_tokens=64, batch_size=8)
    return {k: v for k, v in scored.items() if k != "examples"}


def grpo(work: Path, args: argparse.Namespace, train: list[Any], val: list[Any]) -> dict[str, Any]:
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import StepGRPOTrainer

    out = work / "grpo"
    if (out / "summary.json").exists():
        return json.loads((out / "summary.json").read_text())
    config = GRPORunConfig(model=str(work / "sft" / "final"), output_dir=str(out), steps=args.grpo_steps,
                           group_size=args.group_size, oversample=1, temperature=args.grpo_temperature, max_new_tokens=64,
                           max_episode_steps=args.grpo_episode_steps, learning_rate=args.grpo_lr, beta=0.1,
                           tasks_per_step=args.grpo_tasks,
                           val_every=args.grpo_steps, seed=0, resume_from="last" if any(out.glob("checkpoint-*")) else None)
    return StepGRPOTrainer(config, train_specs=train, val_specs=val[:2]).train()


def bench(work: Path, name: str, policy: str, options: dict[str, Any], tasks: list[Any], runs: int, workers: int,
          selector: str) -> dict[str, Any]:
    return run_bench(BenchConfig(work / "bench" / name, policy=policy, policy_options=options, runs=runs, workers=workers,
                                 selector=selector, plots=False, command="bench/bench_training.py"), tasks)


def row(name: str, results: dict[str, Any], runs: int) -> str:
    s = results["summary"]
    p1 = s["pass1"]
    mean, std = 100 * (p1["mean"] or 0.0), 100 * (p1["std"] or 0.0)
    passk = s["pass_at_k"].get(str(runs))
    cost = s["cost"]
    spent = f"${cost['usd_per_task']:.4f}" if cost.get("usd_per_task") is not None else f"{cost['policy_seconds_per_task']:.1f} policy-s"
    return (f"| {name} | {s['tasks']} | {s['scored']}/{s['episodes']} | {mean:.1f} ± {std:.1f}% | "
            f"{100 * passk:.1f}% | {spent} | {s['avg_steps']} | {s['avg_seconds']} |" if passk is not None else
            f"| {name} | {s['tasks']} | {s['scored']}/{s['episodes']} | {mean:.1f} ± {std:.1f}% | – | {spent} | {s['avg_steps']} | "
            f"{s['avg_seconds']} |")


def shown(value: object) -> str:
    """An argument as recorded in the results: a path inside the repository relative to it (the results
    travel with the repository, this machine's checkout does not)."""
    if isinstance(value, Path) and value.resolve().is_relative_to(ROOT):
        return value.resolve().relative_to(ROOT).as_posix()
    return str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-tasks", default="split=train product=vpc")
    parser.add_argument("--train-limit", type=int, default=0, help="0: every training task that fits the step cap")
    parser.add_argument("--collect-runs", type=int, default=1, help="oracle runs per training task")
    parser.add_argument("--val-fraction", type=float, default=0.1, help="training tasks held out for SFT's validation")
    parser.add_argument("--system", default="compact", choices=["compact", "full"], help="the samples' system message")
    parser.add_argument("--val-tasks", default="split=val product=vpc")
    parser.add_argument("--test-tasks", default="split=test product=vpc")
    parser.add_argument("--test-limit", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--train-eval-limit", type=int, default=8, help="training tasks the trained models are also run on")
    parser.add_argument("--step-cap", type=int, default=15, help="every task's step limit is capped at this (all policies)")
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--sft-epochs", type=float, default=1.0)
    parser.add_argument("--sft-steps", type=int, default=300, help="optimiser steps of 8 samples (> 0 overrides epochs)")
    parser.add_argument("--sft-lr", type=float, default=3e-3)
    parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True,
                        help="bf16 autocast in SFT (1.5-1.8x faster on CPUs with AVX512-BF16)")
    parser.add_argument("--accuracy-samples", type=int, default=64)
    parser.add_argument("--grpo-steps", type=int, default=4)
    parser.add_argument("--grpo-tasks", type=int, default=2, help="tasks per GRPO step (B)")
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--grpo-episode-steps", type=int, default=8)
    parser.add_argument("--grpo-lr", type=float, default=2e-5)
    parser.add_argument("--grpo-temperature", type=float, default=1.0, help="sampling temperature of the rollouts")
    parser.add_argument("--workers", type=int, default=2, help="bench workers for the oracle and the docfollower")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-training"), help="models, worlds, raw results")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / f"{date.today().isoformat()}-training")
    args = parser.parse_args()
    work, out = args.work, args.out
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    timer = Timer()
    train = pick(args.train_tasks, args.train_limit, args.step_cap)
    val = pick(args.val_tasks, 4, args.step_cap)
    test = pick(args.test_tasks, args.test_limit, args.step_cap)
    print(f"machine: {machine()}\ntrain {len(train)}, val {len(val)}, test {len(test)} tasks; runs {args.runs}; step cap {args.step_cap}")
    data = timer.run("collect + samples", lambda: build_data(work, train, args))
    model = timer.run("tiny model", lambda: build_model(work, args)) if not (work / "tiny" / "config.json").exists() \
        else model_info(work / "tiny")
    sft_metrics = timer.run("sft", lambda: sft(work, args))
    fitted = timer.run("action accuracy on training samples", lambda: train_accuracy(work, args))
    grpo_summary = timer.run("grpo", lambda: grpo(work, args, train, val))
    hf = {"max_new_tokens": 64}
    selector = " ".join(t.id for t in test)
    results = {
        "docfollower": timer.run("bench docfollower", lambda: bench(work, "docfollower", "docfollower", {}, test, args.runs, args.workers, selector)),
        "oracle": timer.run("bench oracle", lambda: bench(work, "oracle", "oracle", {}, test, args.runs, args.workers, selector)),
        "tiny SFT": timer.run("bench sft", lambda: bench(work, "sft", "hf", {**hf, "model": str(work / "sft" / "final")}, test,
                                                       args.runs, 1, selector)),
        "tiny SFT+GRPO": timer.run("bench grpo", lambda: bench(work, "grpo", "hf", {**hf, "model": str(work / "grpo" / "final")},
                                                             test, args.runs, 1, selector)),
    }
    # In-distribution: the same models on training tasks (what SFT fitted and GRPO trained on), one run each.
    seen = train[::max(1, len(train) // max(1, args.train_eval_limit))][:args.train_eval_limit]
    seen_selector = " ".join(t.id for t in seen)
    on_train = {
        "tiny SFT": timer.run("bench sft (train tasks)", lambda: bench(work, "sft-train", "hf", {**hf, "model": str(work / "sft" / "final")},
                                                                     seen, 1, 1, seen_selector)),
        "tiny SFT+GRPO": timer.run("bench grpo (train tasks)", lambda: bench(work, "grpo-train", "hf",
                                                                           {**hf, "model": str(work / "grpo" / "final")}, seen, 1, 1,
                                                                           seen_selector)),
    } if seen else {}
    comparison = compare(results["tiny SFT"], results["tiny SFT+GRPO"])
    grpo_log = [json.loads(line) for line in (work / "grpo" / "log.jsonl").read_text().splitlines() if line.strip()]
    for name in ("metrics.json", "loss.png"):
        shutil.copy(work / "sft" / name, out / f"sft-{name}")
    for name in ("log.jsonl", "curves.png", "summary.json"):
        shutil.copy(work / "grpo" / name, out / f"grpo-{name}")
    for name, result in results.items():
        (out / f"bench-{name.replace(' ', '-').replace('+', '-').lower()}.json").write_text(
            json.dumps({k: v for k, v in result.items() if k != "episodes"}, indent=1, default=str))
    grpo_steps = [r for r in grpo_log if "time_step_s" in r]
    scaling = {
        "sft_seconds_per_step": sft_metrics.get("seconds_per_step"), "sft_steps": sft_metrics.get("steps"),
        "grpo_seconds_per_step": round(sum(r["time_step_s"] for r in grpo_steps) / max(1, len(grpo_steps)), 1),
        "grpo_phase_seconds_per_step": {k: round(sum(r.get(k, 0.0) for r in grpo_steps) / max(1, len(grpo_steps)), 1)
                                        for k in ("time_rollout_s", "time_logprobs_s", "time_update_s", "time_val_s")},
        "grpo_episodes_per_step": round(sum(r["episodes"] for r in grpo_steps) / max(1, len(grpo_steps)), 1),
        "seconds_per_episode": {name: r["summary"]["avg_seconds"] for name, r in results.items()},
    }
    summary = {"machine": machine(), "args": {k: shown(v) for k, v in vars(args).items()}, "phases_s": timer.phases,
               "tasks": {"train": [t.id for t in train], "val": [t.id for t in val], "test": [t.id for t in test]},
               "data": data, "model": model, "sft": {k: v for k, v in sft_metrics.items() if k != "action_accuracy"},
               "action_accuracy": {k: v for k, v in (sft_metrics.get("action_accuracy") or {}).items() if k != "examples"},
               "action_accuracy_train": fitted,
               "grpo": grpo_summary, "grpo_steps": [{k: v for k, v in r.items() if k != "rollouts"} for r in grpo_log],
               "comparison_grpo_over_sft": comparison, "scaling": scaling,
               "on_train_tasks": {name: {k: v for k, v in r.items() if k != "episodes"} for name, r in on_train.items()}}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    lines = [f"# Training pipeline benchmark ({date.today().isoformat()})", "", f"- machine: {machine()}",
             f"- command: `python bench/bench_training.py {' '.join(f'--{k.replace(chr(95), chr(45))} {v}' for k, v in vars(args).items() if k not in ('work', 'out'))}`",
             f"- test tasks ({len(test)}): {', '.join(t.id for t in test)}", "",
             "| policy | tasks | scored/episodes | pass@1 | pass@%d | cost / task | avg steps | avg s |" % args.runs,
             "|---|---:|---:|---:|---:|---:|---:|---:|", *[row(n, r, args.runs) for n, r in results.items()], "",
             f"On {len(seen)} training tasks (seen in SFT and GRPO), 1 run:", "",
             "| policy | tasks | scored/episodes | pass@1 | pass@1 | cost / task | avg steps | avg s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|", *[row(n, r, 1) for n, r in on_train.items()], "",
             "GRPO over SFT (paired by task):", "", markdown(comparison, "SFT", "SFT+GRPO"), "",
             f"SFT action accuracy: {json.dumps(summary['action_accuracy'])}; on training samples: {json.dumps(fitted)}", "",
             f"phases (s): {json.dumps(timer.phases)}",
             "", f"scaling: {json.dumps(scaling)}"]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
