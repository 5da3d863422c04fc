"""Comparing benchmark results: the difference in pass@1, B − A, paired by task, with a paired
bootstrap 95% confidence interval, overall and per product.

Each task's pass@1 is the mean of its scored runs; only tasks scored in every result count (the
others are listed). Tasks are resampled with replacement, each keeping its (A, B) pair, so the
interval reflects which tasks the suite holds, and a fixed seed makes it reproducible. B may be
several results of one recipe (models trained with different seeds): B's pass@1 is then their mean,
and the results are resampled too (``stats.paired_bootstrap_over_results``), so a gain that one seed
shows and another does not gets the wide interval it deserves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from consoleagent.bench.results import task_pass1
from consoleagent.bench.stats import paired_bootstrap_over_results


def compare(a: dict[str, Any], b: dict[str, Any] | Sequence[dict[str, Any]], *, resamples: int = 10_000, seed: int = 0,
            level: float = 0.95) -> dict[str, Any]:
    bs = [b] if isinstance(b, dict) else list(b)
    pa, pbs = task_pass1(a), [task_pass1(one) for one in bs]
    products = {row["id"]: row["product"] for one in [*bs, a] for row in one["tasks"]}
    in_every_b, in_some_b = set(pbs[0]).intersection(*pbs[1:]), set().union(*pbs)
    shared = sorted(set(pa) & in_every_b)

    def b_mean(task_id: str) -> float:
        return sum(pb[task_id] for pb in pbs) / len(pbs)

    def row(label: str, ids: list[str]) -> dict[str, Any]:
        interval = paired_bootstrap_over_results({t: pa[t] for t in ids}, [{t: pb[t] for t in ids} for pb in pbs],
                                                 resamples=resamples, seed=seed, level=level)
        return {"group": label, "tasks": len(ids),
                "a": sum(pa[t] for t in ids) / len(ids) if ids else None,
                "b": sum(b_mean(t) for t in ids) / len(ids) if ids else None,
                "difference": interval.to_dict() if interval else None}

    rows = [row("all", shared)]
    for product in sorted({products[t] for t in shared}):
        rows.append(row(f"product {product}", [t for t in shared if products[t] == product]))
    return {
        "a": {"policy": a["policy"], "created_at": a.get("created_at"), "tasks": len(pa)},
        "b": {"policy": bs[0]["policy"], "created_at": bs[0].get("created_at"), "tasks": len(in_every_b),
              "results": len(bs)},
        "difference": "pass@1 of B minus pass@1 of A, paired by task" + (
            f"; B is the mean of {len(bs)} results, resampled as well as the tasks" if len(bs) > 1 else ""),
        "level": level, "resamples": resamples, "seed": seed,
        "only_in_a": sorted(set(pa) - in_some_b),
        "only_in_b": sorted(in_some_b - set(pa)),
        "not_in_every_b": sorted((set(pa) & in_some_b) - in_every_b),
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
    over = f"tasks and B's {results} results" if results > 1 else "tasks"
    lines.append(f"Paired by task; bootstrap over {over} ({comparison['resamples']} resamples, seed {comparison['seed']}); "
                 "* the interval excludes 0.")
    for where, ids in (("Only in A", comparison["only_in_a"]), ("Only in B", comparison["only_in_b"]),
                       ("In A but not in every B result", comparison["not_in_every_b"])):
        if ids:
            lines.append(f"{where} (left out): {', '.join(ids)}")
    return "\n".join(lines) + "\n"
