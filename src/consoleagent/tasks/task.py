"""The part of a task the environment needs. The benchmark issue adds the YAML schema, splits,
resource requirements and reward rules on top of this."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Task:
    goal: str
    start_url: str = "/"  # a path of the console, or an absolute URL
    id: str = "adhoc"
    document: list[str] = field(default_factory=list)  # the procedure's steps, when verifying a document
    max_steps: int = 30
    time_limit_s: float = 600.0
    upload_dir: str | None = None  # files the agent may upload
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "goal": self.goal, "start_url": self.start_url, "document": self.document,
                "max_steps": self.max_steps, "time_limit_s": self.time_limit_s}
