"""Training curves as PNG: one small panel per logged metric, against the step.

Read from the trainers' JSONL logs (one object per step) so a curve can be redrawn from a finished
or interrupted run without the model. matplotlib is imported here only (Agg backend, no display).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a log file; a torn last line (an interrupted write) is skipped."""
    rows = []
    if not Path(path).exists():
        return rows
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def _series(rows: list[dict[str, Any]], metric: str, x_key: str) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for row in rows:
        value = row.get(metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and x_key in row:
            xs.append(float(row[x_key]))
            ys.append(float(value))
    return xs, ys


def plot_curves(rows: list[dict[str, Any]], metrics: Sequence[str], out: Path, *, x_key: str = "step",
                title: str = "training") -> Path:
    """Draw each metric that has at least one value into a grid of panels; returns the PNG's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    present = [m for m in metrics if _series(rows, m, x_key)[0]]
    if not present:
        present = ["(no data)"]
    cols = min(3, len(present))
    nrows = math.ceil(len(present) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 2.8 * nrows), squeeze=False)
    for ax, metric in zip(axes.flat, present):
        xs, ys = _series(rows, metric, x_key)
        ax.plot(xs, ys, marker="o" if len(xs) < 30 else None, markersize=3, linewidth=1.2)
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel(x_key, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(present):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
