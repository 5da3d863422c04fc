"""How many steps of recorded episodes repeat an action on a page identical to one it was taken on before.

Usage:
  python bench/repeated_actions.py RUN_OR_TRAJECTORIES [...] [--output FILE.md]

Each argument is a `consoleagent bench` results folder (its `trajectories/`), a GRPO run folder (its `rollouts/` and
`val/` step folders, or one of them) or trajectory files. A page is what the recorded observation shows of it (address, title,
outline) with the error of the last action, as ``policies.futile.page_state`` reads it; waiting and the task's
answers are not counted, as that rule never withholds them on a first repeat. The ranker's rule withholds exactly
these repeats (session 49); this counts how many steps a policy spent on them and in how many episodes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.trajectory.reader import Trajectory, TrajectoryFormatError, read_trajectory  # noqa: E402

NOT_COUNTED = ("wait(", "task_complete(", "task_unachievable(")
KEPT_SECTIONS = ("Error from your last action", "Page")


def page_of(observation: str) -> str:
    """The sections of a rendered observation that show the page: its error and the page itself."""
    sections = ("\n\n" + observation).split("\n\n## ")
    return "\n\n".join(s for s in sections if s.startswith(KEPT_SECTIONS))


def repeats(steps: list[dict]) -> int:
    """Steps whose action was already taken on an identical page earlier in the episode."""
    tried: set[tuple[str, str, str]] = set()
    count = 0
    for step in steps:
        action = str(step.get("action") or "")
        if not action or action.startswith(NOT_COUNTED):
            continue
        key = (str(step.get("url") or ""), page_of(str(step.get("observation") or "")), action)
        count += key in tried
        tried.add(key)
    return count


def trajectories(target: Path) -> list[Trajectory]:
    """The episodes under ``target`` (or in it, a file); other JSONL files (ledgers, training logs: anything whose
    first record is no episode header) are passed over."""
    found = []
    for path in [target] if target.is_file() else sorted(target.rglob("*.jsonl")):
        try:
            found.append(read_trajectory(path))
        except TrajectoryFormatError:
            continue
    return found


def count(target: Path) -> dict[str, int]:
    episodes = trajectories(target)
    per_episode = [repeats(t.steps) for t in episodes]
    return {"episodes": len(episodes), "with_repeats": sum(1 for n in per_episode if n),
            "steps": sum(len(t.steps) for t in episodes), "repeated": sum(per_episode)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", type=Path, help="results folders, GRPO run folders or trajectory files")
    parser.add_argument("--output", type=Path, help="also write the table here (Markdown)")
    args = parser.parse_args(argv)
    lines = ["| episodes of | episodes | with a repeat | steps | repeated steps |", "|---|---:|---:|---:|---:|"]
    for target in args.targets:
        found = count(target)
        if not found["episodes"]:
            parser.error(f"{target}: no trajectory files (JSONL whose first record is an episode header)")
        lines.append(f"| {target.name} | {found['episodes']} | {found['with_repeats']} | {found['steps']} | "
                     f"{found['repeated']} |")
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if args.output:
        args.output.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
