"""Comparing benchmark results: the difference in pass@1, B − A, paired by task, with a paired
bootstrap 95% confidence interval, overall and per product.

Each task's pass@1 is the mean of its scored runs; only tasks scored in every result count (the
others are listed). Tasks are resampled with replacement, each keeping its (A, B) pair, so the
interval reflects which tasks the suite holds, and a fixed seed makes it reproducible. B may be
several results of one recipe (models trained with different seeds): B's pass@1 is then their mean,
and the results are resampled too (``stats.paired_bootstrap_over_results``), so a gain that one seed
shows and another does not gets the wide interval it deserves. When each seed has its own baseline
(an SFT head and the GRPO head trained from it), the results come in pairs and each B is compared with
its own A (``compare_pairs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from consoleagent.bench.results import task_pass1
from consoleagent.bench.stats import paired_bootstrap_over_results


def compare(a: dict[str, Any], b: dict[str, Any] | Sequence[dict[str, Any]], *, resamples: int = 10_000, seed: int = 0,
            level: float = 0.95) -> dict[str, Any]:
    """B − A, with B one result or several results of one recipe over the one baseline A."""
    bs = [b] if isinstance(b, dict) else list(b)
    return compare_pairs([(a, one) for one in bs], resamples=resamples, seed=seed, level=level)


def compare_pairs(pairs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *, resamples: int = 10_000, seed: int = 0,
                  level: float = 0.95) -> dict[str, Any]:
    """B − A over pairs of results, each B paired with its own A: one pair per seed of a recipe whose
    baseline differs by seed too (an SFT head and the GRPO head trained from it). Each task's difference
    is the mean over pairs of B's pass@1 minus its own A's, so the seeds' different starting points stay out
    of it; the bootstrap draws the tasks, then the pairs. Pairs that share one A are ``compare(A, [B...])``,
    the same draws and the same interval."""
    if not pairs:
        raise ValueError("nothing to compare: no pair of results")
    as_, bs = [a for a, _ in pairs], [b for _, b in pairs]
    pas, pbs = [task_pass1(a) for a in as_], [task_pass1(b) for b in bs]
    products = {row["id"]: row["product"] for one in [*bs, *as_] for row in one["tasks"]}
    in_every_a, in_some_a = set(pas[0]).intersection(*pas[1:]), set().union(*pas)
    in_every_b, in_some_b = set(pbs[0]).intersection(*pbs[1:]), set().union(*pbs)
    shared = sorted(in_every_a & in_every_b)
    differences = [{t: pb[t] - pa[t] for t in shared} for pa, pb in zip(pas, pbs)]

    def mean_of(passes: list[dict[str, float]], ids: list[str]) -> float:
        return sum(p[t] for p in passes for t in ids) / (len(passes) * len(ids))

    def row(label: str, ids: list[str]) -> dict[str, Any]:
        interval = paired_bootstrap_over_results(dict.fromkeys(ids, 0.0), [{t: d[t] for t in ids} for d in differences],
                                                 resamples=resamples, seed=seed, level=level)
        return {"group": label, "tasks": len(ids),
                "a": mean_of(pas, ids) if ids else None,
                "b": mean_of(pbs, ids) if ids else None,
                "difference": interval.to_dict() if interval else None}

    rows = [row("all", shared)]
    for product in sorted({products[t] for t in shared}):
        rows.append(row(f"product {product}", [t for t in shared if products[t] == product]))
    one_baseline = all(a is as_[0] for a in as_)
    if one_baseline:
        what = f"; B is the mean of {len(bs)} results, resampled as well as the tasks" if len(bs) > 1 else ""
    else:
        what = f"; {len(pairs)} pairs, each B minus its own A, resampled as well as the tasks"
    return {
        "a": {"policy": as_[0]["policy"], "created_at": as_[0].get("created_at"), "tasks": len(in_every_a),
              "results": 1 if one_baseline else len(as_)},
        "b": {"policy": bs[0]["policy"], "created_at": bs[0].get("created_at"), "tasks": len(in_every_b),
              "results": len(bs)},
        "paired_baselines": not one_baseline,
        "difference": "pass@1 of B minus pass@1 of A, paired by task" + what,
        "level": level, "resamples": resamples, "seed": seed,
        "only_in_a": sorted(in_some_a - in_some_b),
        "only_in_b": sorted(in_some_b - in_some_a),
        "not_in_every_b": sorted((in_some_a & in_some_b) - set(shared)),
        "groups": rows,
    }


def markdown(comparison: dict[str, Any], label_a: str = "A", label_b: str = "B") -> str:
    level = int(round(100 * comparison["level"]))
    lines = [f"| group | tasks | pass@1 {label_a} | pass@1 {label_b} | Δ ({label_b} − {label_a}) | {level}% CI |",
             "|---|---:|---:|---:|---:|---|"]
    for row in comparison["groups"]:
        d = row["difference"]
        if d is None:
            lines.append(f"| {row['group']} | 0 | – | – | – | – |")
            continue
        mark = " *" if d["excludes_zero"] else ""
        lines.append(f"| {row['group']} | {row['tasks']} | {100 * row['a']:.1f}% | {100 * row['b']:.1f}% | "
                     f"{100 * d['estimate']:+.1f} pt{mark} | [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}] |")
    lines.append("")
    results = comparison["b"].get("results", 1)
    if comparison.get("paired_baselines"):
        over = f"tasks and the {results} (A, B) pairs"
    else:
        over = f"tasks and B's {results} results" if results > 1 else "tasks"
    lines.append(f"Paired by task; bootstrap over {over} ({comparison['resamples']} resamples, seed {comparison['seed']}); "
                 "* the interval excludes 0.")
    for where, ids in (("Only in A", comparison["only_in_a"]), ("Only in B", comparison["only_in_b"]),
                       ("In A and B but not in every result" if comparison.get("paired_baselines") else "In A but not in every B result",
                        comparison["not_in_every_b"])):
        if ids:
            lines.append(f"{where} (left out): {', '.join(ids)}")
    return "\n".join(lines) + "\n"
