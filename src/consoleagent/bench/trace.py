"""What the benchmark keeps of an episode's trajectory: a compact list of its steps (the action, how
the environment took it, tokens and policy time), enough for costs and the failure taxonomy without
the observations and screenshots of the full file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ACTION_CHARS = 160
RESULT_CHARS = 240


def compact_step(step: dict[str, Any]) -> dict[str, Any]:
    """One trajectory step (a ``step`` record, see docs/formats.md) reduced to what the bench reads."""
    parsed = step.get("parsed")
    usage = step.get("usage") or {}
    return {
        "action": str(step.get("action") or "")[:ACTION_CHARS],
        "name": parsed.get("name") if isinstance(parsed, dict) else None,  # None: the action did not parse
        "result": str(step.get("result") or "ok")[:RESULT_CHARS],
        "prompt_tokens": int(usage.get("prompt_tokens") or 0),
        "completion_tokens": int(usage.get("completion_tokens") or 0),
        "policy_s": float((step.get("timings") or {}).get("policy") or 0.0),
        "policy_cpu_s": (step.get("timings") or {}).get("policy_cpu"),  # None: recorded before it was measured
    }


def read_trace(path: Path | str | None) -> list[dict[str, Any]]:
    """The compact steps of a trajectory file; [] when there is none or it cannot be read."""
    if not path:
        return []
    from consoleagent.trajectory.reader import TrajectoryFormatError, read_trajectory

    try:
        return [compact_step(step) for step in read_trajectory(path).steps]
    except (OSError, TrajectoryFormatError):
        return []


def usage_of(trace: list[dict[str, Any]]) -> dict[str, Any]:
    """Tokens and policy seconds of an episode; ``policy_cpu_s`` is None unless every step measured it."""
    return {
        "prompt_tokens": sum(s.get("prompt_tokens", 0) for s in trace),
        "completion_tokens": sum(s.get("completion_tokens", 0) for s in trace),
        "policy_s": round(sum(s.get("policy_s", 0.0) for s in trace), 4),
        "policy_cpu_s": (round(sum(float(s["policy_cpu_s"]) for s in trace), 4)
                         if all(s.get("policy_cpu_s") is not None for s in trace) else None),
    }
