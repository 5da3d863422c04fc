"""Comparing two benchmark results: the difference in pass@1, B − A, paired by task, with a paired
bootstrap 95% confidence interval, overall and per product.

Each task's pass@1 is the mean of its scored runs; only tasks scored in both results count (the
others are listed). Tasks are resampled with replacement, each keeping its (A, B) pair, so the
interval reflects which tasks the suite holds, and a fixed seed makes it reproducible.
"""

from __future__ import annotations

from typing import Any

from consoleagent.bench.results import task_pass1
from consoleagent.bench.stats import paired_bootstrap


def compare(a: dict[str, Any], b: dict[str, Any], *, resamples: int = 10_000, seed: int = 0,
            level: float = 0.95) -> dict[str, Any]:
    pa, pb = task_pass1(a), task_pass1(b)
    products = {row["id"]: row["product"] for row in [*b["tasks"], *a["tasks"]]}
    shared = sorted(set(pa) & set(pb))

    def row(label: str, ids: list[str]) -> dict[str, Any]:
        interval = paired_bootstrap({t: pa[t] for t in ids}, {t: pb[t] for t in ids}, resamples=resamples, seed=seed,
                                    level=level)
        return {"group": label, "tasks": len(ids),
                "a": sum(pa[t] for t in ids) / len(ids) if ids else None,
                "b": sum(pb[t] for t in ids) / len(ids) if ids else None,
                "difference": interval.to_dict() if interval else None}

    rows = [row("all", shared)]
    for product in sorted({products[t] for t in shared}):
        rows.append(row(f"product {product}", [t for t in shared if products[t] == product]))
    return {
        "a": {"policy": a["policy"], "created_at": a.get("created_at"), "tasks": len(pa)},
        "b": {"policy": b["policy"], "created_at": b.get("created_at"), "tasks": len(pb)},
        "difference": "pass@1 of B minus pass@1 of A, paired by task",
        "level": level, "resamples": resamples, "seed": seed,
        "only_in_a": sorted(set(pa) - set(pb)), "only_in_b": sorted(set(pb) - set(pa)),
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
    lines.append(f"Paired by task; bootstrap over tasks ({comparison['resamples']} resamples, seed {comparison['seed']}); "
                 "* the interval excludes 0.")
    for side, ids in (("A", comparison["only_in_a"]), ("B", comparison["only_in_b"])):
        if ids:
            lines.append(f"Only in {side} (left out): {', '.join(ids)}")
    return "\n".join(lines) + "\n"
