"""From ledger records to benchmark results: one entry per episode, then pass@1 (mean ± std over runs),
pass@k, environment errors, steps, time, cost and failure classes, overall, per product and per difficulty.

The results document is described in docs/formats.md ("Benchmark results"); ``load_results`` reads
one back from a file or a results directory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from consoleagent.bench import stats
from consoleagent.bench.pricing import Price, PriceTable
from consoleagent.bench.taxonomy import CLASSES, classify
from consoleagent.bench.trace import usage_of
from consoleagent.tasks.spec import TaskSpec

FORMAT = "consoleagent-bench-results"
FORMAT_VERSION = 1
RESULTS_FILE = "results.json"


def split_key(key: str) -> tuple[str, int]:
    task, _, run = key.rpartition("#")
    return task, int(run)


def is_env_error(record: dict[str, Any]) -> bool:
    """The episode was lost to the environment (after its retries): never a failure of the agent. An oracle
    whose solution did not fit the page is a policy error, reported as env_error but scored as a failure."""
    return record.get("status") == "env_error" and not record.get("policy_error")


def record_passed(record: dict[str, Any]) -> bool:
    """Whether a ledger record's episode passed: a reward of 1, and not lost to the environment."""
    return not is_env_error(record) and record.get("reward") is not None and record["reward"] >= 1.0


def episode_entry(record: dict[str, Any], spec: TaskSpec | None, prices: PriceTable, model: str | None) -> dict[str, Any]:
    """One ledger record (a RolloutResult plus what the bench worker added) as a results entry."""
    task, run = split_key(record["key"])
    episode = record.get("episode") or {}
    trace = record.get("trace") or []
    usage = usage_of(trace)
    price = prices.price(model)
    policy_error = bool(record.get("policy_error"))
    env_error = is_env_error(record)
    entry = {
        "key": record["key"], "task": task, "run": run,
        "product": spec.product if spec else None, "difficulty": spec.difficulty if spec else None,
        "expected": spec.expected if spec else "complete",
        "status": record.get("status"), "reward": record.get("reward"),
        "passed": record_passed(record),
        "env_error": env_error, "policy_error": policy_error,
        "failure_phase": record.get("failure_phase"), "cause": record.get("cause"), "answer": episode.get("answer"),
        "attempts": int(record.get("attempts") or 1), "env_error_attempts": record.get("env_error_attempts") or [],
        "steps": int(episode.get("steps") or len(trace)), "seconds": float(episode.get("duration_s") or 0.0),
        "rollout_seconds": round(sum(p.get("seconds", 0.0) for p in record.get("phases") or []), 3),
        "prompt_tokens": int(usage["prompt_tokens"]), "completion_tokens": int(usage["completion_tokens"]),
        "policy_seconds": usage["policy_s"], "policy_cpu_seconds": usage["policy_cpu_s"],
        "cost_usd": _cost(price, prices, usage),
        "trajectory": record.get("trajectory"), "worker": record.get("worker"), "encoder": record.get("encoder"),
    }
    entry["failure"] = classify({**entry, "verdict": record.get("verdict"), "failed_calls": record.get("failed_calls"),
                                 "trace": trace})
    return entry


def _cost(price: Price | None, prices: PriceTable, usage: dict[str, Any]) -> float | None:
    """An API model's tokens at its price; a local policy's CPU seconds at the CPU's (None: unmeasured)."""
    if price is not None:
        return round(price.cost(int(usage["prompt_tokens"]), int(usage["completion_tokens"])), 6)
    cost = prices.cpu_cost(usage["policy_cpu_s"])
    return None if cost is None else round(cost, 9)


def summarize(episodes: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    """The numbers of one group of episode entries (all, one product, one difficulty)."""
    scored = [e for e in episodes if not e["env_error"]]
    per_run = []
    for run in range(runs):
        in_run = [e for e in scored if e["run"] == run]
        if in_run:
            per_run.append(sum(e["passed"] for e in in_run) / len(in_run))
    counts: dict[str, list[int]] = {}
    for e in scored:
        n_c = counts.setdefault(e["task"], [0, 0])
        n_c[0] += 1
        n_c[1] += int(e["passed"])
    pairs = [(n, c) for n, c in counts.values()]
    max_k = max((n for n, _ in pairs), default=0)
    lost_attempts = sum(len(e["env_error_attempts"]) for e in episodes)
    by_phase: dict[str, int] = {}
    for e in episodes:
        for attempt in e["env_error_attempts"]:
            phase = attempt.get("phase") or "episode"
            by_phase[phase] = by_phase.get(phase, 0) + 1
        if e["env_error"]:
            phase = e["failure_phase"] or "episode"
            by_phase[phase] = by_phase.get(phase, 0) + 1
    priced = [e["cost_usd"] for e in episodes if e["cost_usd"] is not None]
    failures = {kind: 0 for kind in CLASSES}
    for e in scored:
        if e["failure"]:
            failures[e["failure"]["class"]] += 1
    return {
        "tasks": len({e["task"] for e in episodes}),
        "episodes": len(episodes),
        "scored": len(scored),
        "passed": sum(e["passed"] for e in scored),
        "pass1": {"mean": stats.mean(per_run), "std": stats.std(per_run), "per_run": per_run},
        "pass_at_k": {str(k): stats.mean_pass_at_k(pairs, k) for k in range(1, max_k + 1)},
        "env_errors": {"episodes": sum(e["env_error"] for e in episodes), "retried_attempts": lost_attempts,
                       "by_phase": dict(sorted(by_phase.items()))},
        "avg_steps": _round(stats.mean([e["steps"] for e in scored])),
        "avg_seconds": _round(stats.mean([e["seconds"] for e in scored])),
        "cost": {
            # 9 digits: a CPU-priced policy costs around a thousandth of a cent per task
            "usd_per_task": _round(stats.mean(priced), 9) if priced and len(priced) == len(episodes) else None,
            "usd_total": round(sum(priced), 9) if priced else None,
            "prompt_tokens_per_task": _round(stats.mean([e["prompt_tokens"] for e in episodes])),
            "completion_tokens_per_task": _round(stats.mean([e["completion_tokens"] for e in episodes])),
            "policy_seconds_per_task": _round(stats.mean([e["policy_seconds"] for e in episodes]), 4),
            "policy_cpu_seconds_per_task": _cpu_per_task(episodes),
        },
        "failures": failures,
    }


def _cpu_per_task(episodes: list[dict[str, Any]]) -> float | None:
    """Mean CPU seconds per episode; None when an episode did not measure it (recorded before 2026-11-27)."""
    cpu = [e.get("policy_cpu_seconds") for e in episodes]
    return _round(stats.mean(cpu), 4) if cpu and all(c is not None for c in cpu) else None


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def encoders_of(episodes: Iterable[dict[str, Any]]) -> list[str]:
    """The sentence encoders the episodes' processes used (results entries or ledger records): the lexical
    fallback matches labels differently from the neural encoder, so a figure says which it was measured with
    (none: no policy needed one)."""
    return sorted({e["encoder"] for e in episodes if e.get("encoder")})


def aggregate(records: Iterable[dict[str, Any]], tasks: list[TaskSpec], runs: int, *, meta: dict[str, Any],
              prices: PriceTable | None = None, model: str | None = None) -> dict[str, Any]:
    """The results document of the episodes of ``tasks`` × ``runs`` found in ``records`` (others are ignored)."""
    prices = prices or PriceTable()
    by_id = {t.id: t for t in tasks}
    episodes = []
    for record in records:
        task, run = split_key(record["key"])
        if task in by_id and run < runs:
            episodes.append(episode_entry(record, by_id[task], prices, model))
    episodes.sort(key=lambda e: (e["task"], e["run"]))
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {"product": {}, "difficulty": {}}
    for e in episodes:
        for field in groups:
            groups[field].setdefault(e[field], []).append(e)
    task_rows = []
    for spec in tasks:
        mine = [e for e in episodes if e["task"] == spec.id]
        scored = [e for e in mine if not e["env_error"]]
        task_rows.append({
            "id": spec.id, "product": spec.product, "difficulty": spec.difficulty, "split": spec.split,
            "release": spec.release, "episodes": len(mine), "scored": len(scored), "passed": sum(e["passed"] for e in scored),
            "pass1": (sum(e["passed"] for e in scored) / len(scored)) if scored else None,
            "env_errors": sum(e["env_error"] for e in mine),
            "failures": sorted({e["failure"]["class"] for e in scored if e["failure"]}),
        })
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, **meta,
        "price": prices.to_dict(model),
        "complete": len(episodes) == len(tasks) * runs,
        "encoders": encoders_of(episodes),
        "summary": summarize(episodes, runs),
        "by_product": {k: summarize(v, runs) for k, v in sorted(groups["product"].items())},
        "by_difficulty": {k: summarize(v, runs) for k, v in sorted(groups["difficulty"].items())},
        "tasks": task_rows,
        "episodes": episodes,
    }


class ResultsError(ValueError):
    pass


def load_results(path: Path | str) -> dict[str, Any]:
    """A results document from its file, or from a results directory (its ``results.json``)."""
    path = Path(path)
    file = path / RESULTS_FILE if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(f"{file}: no such results file (run `consoleagent bench` first)") from None
    except ValueError as exc:
        raise ResultsError(f"{file}: not a JSON document: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsError(f"{file}: not a consoleagent bench results document (format {FORMAT!r})")
    if data.get("format_version", 0) > FORMAT_VERSION:
        raise ResultsError(f"{file}: format_version {data['format_version']} is newer than this consoleagent reads")
    return data


def task_pass1(results: dict[str, Any]) -> dict[str, float]:
    """Each task's pass@1 (the mean of its scored runs), the unit of paired comparisons."""
    return {row["id"]: row["pass1"] for row in results["tasks"] if row["pass1"] is not None}
