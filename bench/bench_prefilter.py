"""Recall of the ranker's lexical prefilter on a teacher collection, and the head's top-1 with and without it.

Usage: python bench/bench_prefilter.py COLLECTION [--keep 16 24 32 40 48 64] [--model HEAD] [--top1 N]
       [--out FILE.json]

COLLECTION is a results directory of ``consoleagent collect`` (ledger.jsonl + trajectories). Its
episodes go through the SFT filters (task filter, errors, no-ops, loops, detours), exactly as
``train sft --policy ranker`` reads them; each kept step's observation is turned back into the
ranker's candidates and the teacher's action located among them (steps whose action is no
candidate are counted as unmatched, as in training). For each step the prefilter's rank of the
teacher's action gives recall@K: the share of steps whose action survives ``prefilter(keep=K)``.
Page actions and ``task_complete`` are always kept (they count as recalled).

``--top1 N`` also scores the first N matched steps with the head (``--model``, default the base
head) over all candidates and over the kept ones: the share whose best candidate is the teacher's
action, both ways. That needs the neural encoder (seconds per step on a busy CPU).
The split does not matter here (the prefilter is not trained), so any collection will do.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def kept_steps(results: Path) -> list[Any]:
    from consoleagent.suite.catalog import load_suite
    from consoleagent.training.filters import apply_step_filters, episode_steps, ground_truth, load_ledger, task_filter

    episodes = load_ledger(results)
    specs = {s.id: s for s in load_suite(None)}
    episodes = [e for e in episodes if e.task_id in specs]
    kept, _ = task_filter(episodes, ground_truth({e.task_id: specs[e.task_id] for e in episodes}))
    steps, _ = apply_step_filters([s for e in kept for s in episode_steps(e)])
    wanted = {(str(s.episode.trajectory), s.number) for s in steps}
    return [(e, specs[e.task_id], episode_steps(e), wanted) for e in kept]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collection", type=Path)
    parser.add_argument("--keep", type=int, nargs="+", default=[16, 24, 32, 40, 48, 64])
    parser.add_argument("--model", default=None)
    parser.add_argument("--top1", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from consoleagent.policies.prefilter import label_rank
    from consoleagent.training.ranker_data import replayed_steps

    ranks: list[int] = []
    sizes: list[int] = []
    counts: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    scored: list[tuple[Any, Any, list[Any], int, list[str], int]] = []
    started = time.process_time()
    for episode, spec, steps, wanted in kept_steps(args.collection):
        for step in replayed_steps(episode, spec, steps):
            if (str(episode.trajectory), step.number) not in wanted:
                continue
            if step.index is None:
                counts[f"unmatched {step.action.name}"] += 1
                continue
            candidates, index = step.candidates, step.index
            rank = label_rank(step.context, step.observation, candidates, index, step.history)
            ranks.append(rank)
            sizes.append(sum(1 for c in candidates if c.mark is not None))
            if rank >= min(args.keep):
                misses.append({"task": episode.task_id, "step": step.number, "action": step.record["action"],
                               "candidate": candidates[index].text, "rank": rank,
                               "context": candidates[index].mark.context if candidates[index].mark else ""})
            if len(scored) < args.top1:
                scored.append((step.context, step.observation, candidates, index, step.history, len(step.history)))
    lexical_cpu = time.process_time() - started
    n = len(ranks)
    results: dict[str, Any] = {
        "collection": str(args.collection), "steps": n, "unmatched": dict(counts),
        "element_candidates": {"median": sorted(sizes)[n // 2] if n else 0, "max": max(sizes, default=0)},
        "recall": {str(k): round(sum(1 for r in ranks if r < k) / n, 4) if n else None for k in args.keep},
        "prefilter_cpu_ms_per_step": round(1000 * lexical_cpu / max(n, 1), 2),
        "misses_at_min_keep": misses[:40],
    }
    if scored:
        results["top1"] = top1(scored, args.model, args.keep)
    text = json.dumps(results, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


def top1(scored: list[Any], model: str | None, keeps: list[int]) -> dict[str, Any]:
    """The head's top-1 over all candidates and over each prefiltered set, on the same steps."""
    import torch

    from consoleagent.encoder import neural_encoder
    from consoleagent.policies.prefilter import prefilter
    from consoleagent.policies.ranker import build_head, load_head
    from consoleagent.policies.ranker_features import features

    encoder = neural_encoder()
    head = load_head(model) if model else build_head()
    hits: Counter[str] = Counter()
    for context, observation, candidates, label, history, step in scored:
        rows = features(encoder, context, observation, candidates, history[-12:], step)
        with torch.no_grad():
            logits = head(rows)
        hits["all"] += int(int(torch.argmax(logits)) == label)
        for keep in keeps:
            kept = prefilter(context, observation, candidates, keep, history)
            if label in kept:
                best = max(kept, key=lambda i: (float(logits[i]), -i))
                hits[str(keep)] += int(best == label)
    return {"model": model or "base", "steps": len(scored),
            "top1": {k: round(v / len(scored), 4) for k, v in sorted(hits.items())}}


if __name__ == "__main__":
    main()
