"""bench/repeated_actions.py: steps that repeat an action on an identical page (session 49)."""

from __future__ import annotations

import json
from pathlib import Path

from consoleagent.observation.types import HistoryEntry, Observation
from tests.consoleagent.bench.scripts import load_bench_script


def rendered(text: str, error: str | None = None, step: int = 1) -> str:
    """An observation as the environment records it (its prompt text), history included."""
    page = Observation(url="http://c/vpc/eips", title="EIPs", text=text, goal="Associate out-eip.", last_error=error,
                       history=[HistoryEntry(i, "click(2)", "ok") for i in range(1, step)])
    return page.render()


def trajectory(path: Path, steps: list[tuple[str, str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [{"type": "header", "episode_id": "e", "task": {"id": "t"}}]
    records += [{"type": "step", "step": i, "url": "http://c/vpc/eips", "observation": obs, "action": action}
                for i, (obs, action) in enumerate(steps, 1)]
    records.append({"type": "footer", "status": "completed", "steps": len(steps)})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_counts_an_action_repeated_on_the_same_page_and_nothing_else(tmp_path: Path) -> None:
    bench = load_bench_script("repeated_actions")
    dialog, refused = "[2] button OK", "[2] button OK\n! Please select an option."
    looped = [(rendered(dialog, step=1), "click(2)"), (rendered(refused, step=2), "click(2)"),
              (rendered(refused, step=3), "click(2)"), (rendered(refused, step=4), "click(2)"),
              (rendered(refused, step=5), "wait(2)"), (rendered(refused, step=6), "wait(2)"),
              (rendered(refused, "Element 9 not found", step=7), "click(2)")]
    trajectory(tmp_path / "run" / "trajectories" / "a-run0.jsonl", looped)
    trajectory(tmp_path / "run" / "trajectories" / "b-run0.jsonl", [(rendered(dialog), "click(2)")])
    (tmp_path / "run" / "ledger.jsonl").write_text('{"task": "a"}\n', encoding="utf-8")  # not an episode
    # the history differs at every step and is not the page; the waits are not counted; an error is the page
    assert bench.count(tmp_path / "run") == {"episodes": 2, "with_repeats": 1, "steps": 8, "repeated": 2}
    assert bench.main([str(tmp_path / "run"), "--output", str(tmp_path / "t.md")]) == 0
    assert "| run | 2 | 1 | 8 | 2 |" in (tmp_path / "t.md").read_text(encoding="utf-8")
