"""Which teacher data is worth learning from, with counts for every decision.

Task level: an episode is kept when its reward is 1, or when the discrepancies it reported are the
task's ground truth (changelog kinds at the expected document steps): a genuine documentation defect
found is what the agent is for, even where the goal could not be reached. Step level, within kept
episodes: actions that errored, actions that changed nothing (same URL and page before and after),
loops (the same action on the same page again) and detours (navigating away and back to the same
page without doing anything there) are dropped. The observation of a later step still shows them in
its history: only the sample for the dropped step itself goes.

Each filter returns the kept items and a report ``{"filter", "in", "kept", "dropped", "reasons"}``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAGE_HEADING = "## Page\n"
TERMINAL = {"task_complete", "task_unachievable"}
# Actions that may change the account or the agent's report even when the page looks the same.
EFFECTFUL = TERMINAL | {"report_discrepancy", "request_resource", "type", "select", "check", "uncheck", "upload"}
NAVIGATION = {"goto", "back", "click", "dblclick", "hover", "press", "scroll", "wait"}
TEACHER_GAVE_UP = 'task_complete("oracle failed'  # the oracle ends an unplayable solution so; not an answer to learn


@dataclass
class Episode:
    """A finished episode of a collection run (one ledger line)."""

    key: str
    task_id: str
    run: int
    status: str | None
    reward: float | None
    trajectory: Path | None
    discrepancies: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_ledger(cls, record: dict[str, Any], results_dir: Path | None = None) -> "Episode":
        task_id, _, run = str(record["key"]).rpartition("#")
        episode = record.get("episode") or {}
        path = record.get("trajectory") or episode.get("trajectory")
        trajectory = Path(path) if path else None
        if trajectory is not None and not trajectory.exists() and results_dir is not None:
            moved = Path(results_dir) / "trajectories" / trajectory.name  # the results directory was moved
            trajectory = moved if moved.exists() else trajectory
        reward = record.get("reward")
        return cls(key=str(record["key"]), task_id=task_id or str(record["key"]), run=int(run) if run.isdigit() else 0,
                   status=record.get("status"), reward=float(reward) if reward is not None else None,
                   trajectory=trajectory, discrepancies=list(episode.get("discrepancies") or []))


@dataclass
class StepItem:
    """One step of a kept episode, with the page it acted on and the page it led to (None for the last)."""

    episode: Episode
    record: dict[str, Any]
    page_before: str
    page_after: str | None

    @property
    def name(self) -> str:
        parsed = self.record.get("parsed") or {}
        return str(parsed.get("name") or "")

    @property
    def number(self) -> int:
        return int(self.record["step"])


def report(name: str, total: int, kept: int, reasons: Counter[str], **extra: Any) -> dict[str, Any]:
    return {"filter": name, "in": total, "kept": kept, "dropped": total - kept, "reasons": dict(sorted(reasons.items())),
            **extra}


def page_of(observation_text: str) -> str:
    """The page part of a rendered observation (URL, title, outline): what an action can change."""
    index = observation_text.rfind(PAGE_HEADING)
    return observation_text[index + len(PAGE_HEADING):] if index >= 0 else observation_text


# --- task level ----------------------------------------------------------------------------------


def ground_truth(specs: dict[str, Any], change_kinds: dict[str, str] | None = None) -> dict[str, set[tuple[int, str]]]:
    """Each task's expected discrepancies as (document step, kind), the kind read from the changelog
    (``change_kinds``, else the ground truth of each task's console backend)."""
    kinds_of: dict[str, dict[str, str]] = {}
    truth: dict[str, set[tuple[int, str]]] = {}
    for task_id, spec in specs.items():
        pairs = set()
        kinds = change_kinds
        for expected in spec.discrepancies:
            if kinds is None:
                kinds = _console_change_kinds(getattr(spec, "console", None), kinds_of)
            if expected.change not in kinds:
                raise ValueError(f"task {task_id}: discrepancies: no changelog entry {expected.change!r}")
            pairs.add((expected.step, kinds[expected.change]))
        truth[task_id] = pairs
    return truth


def _console_change_kinds(console: str | None, cache: dict[str, dict[str, str]]) -> dict[str, str]:
    """Change id → kind from the console backend's ground truth (none when it publishes no changelog)."""
    from consoleagent.consoles import DEFAULT_CONSOLE, resolve_class

    name = console or DEFAULT_CONSOLE
    if name not in cache:
        source = resolve_class(name)
        truth = (source() if isinstance(source, type) else source).ground_truth()
        cache[name] = {c.id: c.kind for c in truth.changes} if truth is not None else {}
    return cache[name]


def discrepancies_confirmed(reported: list[dict[str, Any]], expected: set[tuple[int, str]]) -> bool:
    """Every expected discrepancy reported at its step with its kind, and nothing reported that is not expected."""
    found = {(int(d.get("step") or 0), str(d.get("kind"))) for d in reported}
    return bool(expected) and found == expected


def task_filter(episodes: list[Episode], truth: dict[str, set[tuple[int, str]]] | None = None) -> tuple[list[Episode], dict[str, Any]]:
    """Keep episodes with reward 1, or whose reported discrepancies are the task's ground truth."""
    kept: list[Episode] = []
    reasons: Counter[str] = Counter()
    kept_by: Counter[str] = Counter()
    for episode in episodes:
        if episode.trajectory is None or not episode.trajectory.exists():
            reasons["trajectory missing"] += 1
        elif episode.reward is not None and episode.reward >= 1.0:
            kept.append(episode)
            kept_by["reward 1"] += 1
        elif truth is not None and discrepancies_confirmed(episode.discrepancies, truth.get(episode.task_id, set())):
            kept.append(episode)
            kept_by["discrepancies confirmed by the changelog"] += 1
        elif episode.status == "env_error":
            reasons["environment error"] += 1
        elif episode.reward is not None and episode.reward < 0:
            reasons["invalid reward (-1)"] += 1
        else:
            reasons["reward 0, no confirmed discrepancy"] += 1
    return kept, report("task", len(episodes), len(kept), reasons, kept_by=dict(sorted(kept_by.items())))


# --- step level ----------------------------------------------------------------------------------


def episode_steps(episode: Episode) -> list[StepItem]:
    """The steps of an episode's trajectory, each with its page before and after."""
    from consoleagent.trajectory.reader import read_trajectory

    records = read_trajectory(episode.trajectory).steps  # type: ignore[arg-type]
    pages = [page_of(r.get("observation", "")) for r in records]
    return [StepItem(episode, r, pages[i], pages[i + 1] if i + 1 < len(pages) else None) for i, r in enumerate(records)]


def _per_episode(steps: list[StepItem], decide: Callable[[list[StepItem]], list[tuple[StepItem, str | None]]],
                 name: str) -> tuple[list[StepItem], dict[str, Any]]:
    """Run ``decide`` on each episode's steps (in order); it returns (step, drop reason or None)."""
    groups: dict[str, list[StepItem]] = {}
    for step in steps:
        groups.setdefault(step.episode.key, []).append(step)
    kept: list[StepItem] = []
    reasons: Counter[str] = Counter()
    for group in groups.values():
        for step, reason in decide(group):
            if reason is None:
                kept.append(step)
            else:
                reasons[reason] += 1
    return kept, report(name, len(steps), len(kept), reasons)


def error_filter(steps: list[StepItem]) -> tuple[list[StepItem], dict[str, Any]]:
    """Drop actions that did not parse, that the console refused (the agent was told an error), or
    with which the teacher gave up (the oracle's ``task_complete("oracle failed: ...")``)."""
    def reason(step: StepItem) -> str | None:
        if step.record.get("parsed") is None:
            return "did not parse"
        if step.record.get("result", "ok") != "ok":
            return "action failed"
        if str(step.record.get("action", "")).startswith(TEACHER_GAVE_UP):
            return "teacher gave up"
        return None

    def decide(group: list[StepItem]) -> list[tuple[StepItem, str | None]]:
        return [(s, reason(s)) for s in group]

    return _per_episode(steps, decide, "errors")


def noop_filter(steps: list[StepItem]) -> tuple[list[StepItem], dict[str, Any]]:
    """Drop actions after which the URL and the page were exactly as before (a wait that saw no change...)."""
    def decide(group: list[StepItem]) -> list[tuple[StepItem, str | None]]:
        return [(s, f"no change: {s.name}" if s.name not in EFFECTFUL and s.page_after == s.page_before else None)
                for s in group]

    return _per_episode(steps, decide, "no-ops")


def loop_filter(steps: list[StepItem]) -> tuple[list[StepItem], dict[str, Any]]:
    """Drop an action repeated on the same page as an earlier step of the episode."""
    def decide(group: list[StepItem]) -> list[tuple[StepItem, str | None]]:
        seen: set[tuple[str, str]] = set()
        decisions: list[tuple[StepItem, str | None]] = []
        for s in group:
            key = (" ".join(str(s.record.get("action", "")).split()), s.page_before)
            repeated = key in seen and s.name not in TERMINAL
            seen.add(key)
            decisions.append((s, "repeated action on the same page" if repeated else None))
        return decisions

    return _per_episode(steps, decide, "loops")


def detour_filter(steps: list[StepItem]) -> tuple[list[StepItem], dict[str, Any]]:
    """Drop runs of navigation that came back to the page they left (goto X then back, open and cancel a dialog)."""
    def decide(group: list[StepItem]) -> list[tuple[StepItem, str | None]]:
        decisions: list[tuple[StepItem, str | None]] = []
        i = 0
        while i < len(group):
            end = _detour_end(group, i)
            if end is None:
                decisions.append((group[i], None))
                i += 1
                continue
            decisions += [(s, "detour: came back to the same page") for s in group[i:end]]
            i = end
        return decisions

    return _per_episode(steps, decide, "detours")


def _detour_end(group: list[StepItem], start: int) -> int | None:
    """The furthest step after ``start`` that acts on ``start``'s page again, reached by navigation only."""
    end = None
    for j in range(start, len(group)):
        if j > start and group[j].page_before == group[start].page_before:
            end = j
        if group[j].name not in NAVIGATION:
            break
    return end


STEP_FILTERS: list[Callable[[list[StepItem]], tuple[list[StepItem], dict[str, Any]]]] = [
    error_filter, noop_filter, loop_filter, detour_filter]


def apply_step_filters(steps: list[StepItem]) -> tuple[list[StepItem], list[dict[str, Any]]]:
    """Every step filter in turn; returns the kept steps and one report per filter."""
    reports = []
    for step_filter in STEP_FILTERS:
        steps, counts = step_filter(steps)
        reports.append(counts)
    return steps, reports


def load_ledger(results_dir: str | Path) -> list[Episode]:
    """The episodes of a collection (or benchmark) results directory, in ledger order."""
    directory = Path(results_dir)
    path = directory / "ledger.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no ledger; run `consoleagent collect --out {directory}` first")
    episodes = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                episodes.append(Episode.from_ledger(json.loads(line), directory))
            except (json.JSONDecodeError, KeyError) as exc:
                raise ValueError(f"{path}:{number}: not a ledger record ({exc})") from None
    return episodes
