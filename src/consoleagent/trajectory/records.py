"""The records of a trajectory file (documented in docs/formats.md, "Trajectory JSONL").

A file holds one episode: a ``header`` line, one ``step`` line per action, and a ``footer`` line.
Each line is written whole and flushed, so a crash loses nothing already written; a reader
accepts a file without a footer (an interrupted episode).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FORMAT_VERSION = 1
# The environment does not judge success (the audit-log judge does): it reports how the episode ended.
Status = Literal["completed", "unachievable", "truncated", "env_error"]


@dataclass
class EpisodeHeader:
    episode_id: str
    task: dict[str, Any]  # id, goal, start_url, document
    policy: str
    seed: int | None
    console: str  # the console's base URL
    release: str | None = None
    started_at: str = ""
    format_version: int = FORMAT_VERSION
    type: str = "header"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StepRecord:
    step: int
    url: str
    title: str
    observation: str  # the rendered observation text the policy saw
    action: str  # the action text as the policy wrote it
    thought: str = ""
    raw: str = ""  # the policy's complete output
    parsed: dict[str, Any] | None = None  # Action.to_dict(), or None when it did not parse
    result: str = "ok"  # "ok", or the error the agent is told in the next observation
    document_step: int | None = None
    screenshot: str | None = None  # path relative to the trajectory file
    marks: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # policy, action, settle, observe (seconds)
    usage: dict[str, int] = field(default_factory=dict)  # prompt_tokens, completion_tokens
    discrepancy: dict[str, Any] | None = None  # set by report_discrepancy
    refused: str | None = None  # the console refused the input this action sent (its error message)
    type: str = "step"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EpisodeFooter:
    status: Status
    steps: int
    duration_s: float
    cause: str | None = None  # why an env_error or truncation happened; the final message otherwise
    answer: str | None = None  # task_complete / task_unachievable text
    discrepancies: list[dict[str, Any]] = field(default_factory=list)
    finished_at: str = ""
    type: str = "footer"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
