"""The human-readable outputs of a benchmark: a Markdown report and two PNG plots (success by product,
success against cost). matplotlib is optional (``pip install 'consoleagent[bench]'``) and imported only
when plotting, with the Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from consoleagent.bench.pricing import format_usd
from consoleagent.bench.taxonomy import CLASSES
from consoleagent.encoder import LEXICAL, LEXICAL_WARNING

MARKDOWN_FILE = "results.md"
PLOT_BY_PRODUCT = "success_by_product.png"
PLOT_VS_COST = "success_vs_cost.png"


class PlottingUnavailable(RuntimeError):
    pass


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _pass1(group: dict[str, Any]) -> str:
    p = group["pass1"]
    if p["mean"] is None:
        return "–"
    return f"{100 * p['mean']:.1f} ± {100 * (p['std'] or 0.0):.1f}%"


def format_number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def cost_label(group: dict[str, Any]) -> str:
    """US$ per task, with the CPU seconds it was priced by; policy wall seconds where no price applies."""
    cost = group["cost"]
    cpu = cost.get("policy_cpu_seconds_per_task")
    if cost["usd_per_task"] is not None:
        usd = format_usd(cost["usd_per_task"])
        return usd if cpu is None or cost.get("prompt_tokens_per_task") else f"{usd} ({cpu:.2f} CPU-s)"
    return f"{format_number(cost['policy_seconds_per_task'], 2)} policy-s"


def markdown(results: dict[str, Any]) -> str:
    summary = results["summary"]
    ks = [k for k in sorted(summary["pass_at_k"], key=int) if k != "1"]  # pass@1 has its own column
    lines = [f"# Benchmark: {results['policy']['name']} on {summary['tasks']} tasks × {results['runs']} runs", ""]
    lines += [f"- command: `{results.get('command') or ''}`", f"- machine: {results.get('machine') or ''}",
              f"- date: {results.get('created_at') or ''}", f"- tasks: `{results.get('selector') or '(all)'}`"
              + ("" if results.get("provisioning", True) else " — provisioning OFF (requires: dropped)"),
              f"- episodes: {summary['episodes']} ({summary['scored']} scored, {summary['env_errors']['episodes']} lost to "
              f"environment errors after retries; {summary['env_errors']['retried_attempts']} attempts retried)"]
    if results.get("model_sha256"):
        lines.append(f"- model: `{results.get('model')}` (sha256 {results['model_sha256'][:12]})")
    if results.get("encoders"):
        lines.append(f"- sentence encoder: {', '.join(results['encoders'])}"
                     + (f" — {LEXICAL_WARNING}" if LEXICAL in results["encoders"] else ""))
    if not results.get("complete", True):
        lines.append("- **incomplete**: some episodes have not run yet (rerun the command to resume)")
    lines += ["", "| group | tasks | episodes | pass@1 (mean ± std over runs) | "
              + "".join(f"pass@{k} | " for k in ks) + "env errors | avg steps | avg s | cost / task |",
              "|---|---:|---:|---:|" + "---:|" * len(ks) + "---:|---:|---:|---:|"]

    def row(label: str, group: dict[str, Any]) -> str:
        at_k = "".join(f"{_pct(group['pass_at_k'].get(k))} | " for k in ks)
        return (f"| {label} | {group['tasks']} | {group['episodes']} | {_pass1(group)} | {at_k}"
                f"{group['env_errors']['episodes']} | {format_number(group['avg_steps'])} | {format_number(group['avg_seconds'])} | "
                f"{cost_label(group)} |")

    lines.append(row("**all**", summary))
    lines += [row(f"product {name}", group) for name, group in results["by_product"].items()]
    lines += [row(f"difficulty {name}", group) for name, group in results["by_difficulty"].items()]
    lines += ["", "## Failure taxonomy", "", "| group | " + " | ".join(CLASSES) + " |", "|---|" + "---:|" * len(CLASSES)]
    for label, group in [("all", summary), *results["by_product"].items()]:
        lines.append(f"| {label} | " + " | ".join(str(group["failures"][c]) for c in CLASSES) + " |")
    failed = [e for e in results["episodes"] if e.get("failure")]
    if failed:
        lines += ["", "| episode | class | reason |", "|---|---|---|"]
        lines += [f"| {e['key']} | {e['failure']['class']} | {_cell(e['failure']['reason'])} |" for e in failed[:50]]
        if len(failed) > 50:
            lines.append(f"| … | | {len(failed) - 50} more in results.json |")
    phases = summary["env_errors"]["by_phase"]
    lines += ["", "## Environment errors", "",
              ("lost attempts by phase: " + ", ".join(f"{k} {v}" for k, v in phases.items())) if phases else "none"]
    lines += ["", "## Tasks", "", "| task | product | difficulty | passed / scored | env errors | failures |",
              "|---|---|---|---:|---:|---|"]
    lines += [f"| {t['id']} | {t['product']} | {t['difficulty']} | {t['passed']}/{t['scored']} | {t['env_errors']} | "
              f"{', '.join(t['failures'])} |" for t in results["tasks"]]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlottingUnavailable("the plots need matplotlib: pip install 'consoleagent[bench]' "
                                  "(or pass --no-plots)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_by_product(results: dict[str, Any], path: Path) -> Path:
    plt = _pyplot()
    groups = [("all", results["summary"]), *results["by_product"].items()]
    labels = [name for name, _ in groups]
    means = [100 * (g["pass1"]["mean"] or 0.0) for _, g in groups]
    errors = [100 * (g["pass1"]["std"] or 0.0) for _, g in groups]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(labels) + 2), 3.6), dpi=120)
    bars = ax.bar(labels, means, yerr=errors, capsize=4, color=["#555555"] + ["#3b75af"] * (len(labels) - 1))
    for bar, (_, group) in zip(bars, groups):
        ax.annotate(f"n={group['scored']}", (bar.get_x() + bar.get_width() / 2, 2), ha="center", fontsize=8, color="white")
    ax.set_ylim(0, 105)
    ax.set_ylabel("pass@1 (%) — mean ± std over runs")
    ax.set_title(f"{results['policy']['name']}: success by product")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_vs_cost(results: dict[str, Any], path: Path) -> Path:
    plt = _pyplot()
    groups = [("all", results["summary"]), *results["by_product"].items()]
    priced = results["summary"]["cost"]["usd_per_task"] is not None
    key = "usd_per_task" if priced else "policy_seconds_per_task"
    points: dict[tuple[float, float], list[str]] = {}
    for name, group in groups:
        x, y = group["cost"][key] or 0.0, 100 * (group["pass1"]["mean"] or 0.0)
        points.setdefault((x, y), []).append(name)
    fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=120)
    for (x, y), names in points.items():
        overall = "all" in names
        ax.scatter([x], [y], s=60 if overall else 36, color="#555555" if overall else "#3b75af", zorder=3)
        ax.annotate(" = ".join(names), (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    right = max(x for x, _ in points) or 1.0
    ax.set_xlim(0, right * 1.3)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    ax.grid(alpha=0.3)
    ax.set_xlabel("cost per task (US$)" if priced else "policy seconds per task")
    ax.set_ylabel("pass@1 (%)")
    ax.set_ylim(-5, 105)
    ax.set_title(f"{results['policy']['name']}: success against cost")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_reports(results: dict[str, Any], directory: Path, *, plots: bool = True) -> list[Path]:
    """results.md and, unless ``plots`` is False, the two PNG plots, in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / MARKDOWN_FILE]
    written[0].write_text(markdown(results), encoding="utf-8")
    if plots:
        written.append(plot_by_product(results, directory / PLOT_BY_PRODUCT))
        written.append(plot_vs_cost(results, directory / PLOT_VS_COST))
    return written
