"""The task an episode runs: what the environment and the policy see (goal, start page, document
steps, limits) and, for a task of a suite, what the rollout needs after the episode (its reward
rule, its task file, the console release it runs on).

The environment reads only the first group; the rollout's judge reads ``reward``, the oracle policy
reads ``spec.oracle`` and the trajectory header records ``release``. They are typed fields rather
than a free mapping so that nothing is serialised on the way and parsed again by the reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # names for the type checker only: the environment imports Task and needs neither module
    from consoleagent.rewards.rules import RewardRule
    from consoleagent.tasks.spec import TaskSpec  # which builds Tasks (TaskSpec.to_task)


@dataclass
class Task:
    goal: str
    start_url: str = "/"  # a path of the console, or an absolute URL
    id: str = "adhoc"
    document: list[str] = field(default_factory=list)  # the procedure's steps, when verifying a document
    # the procedures the document refers its reader to ("see Attach a data disk"), by title: the goal may go on
    related: dict[str, list[str]] = field(default_factory=dict)
    # of those, the titles it cites as another way to do its own operation ("... with the rule form instead")
    alternatives: list[str] = field(default_factory=list)
    max_steps: int = 30
    time_limit_s: float = 600.0
    upload_dir: str | None = None  # files the agent may upload
    reward: RewardRule | None = None  # the audit-log rule the judge applies (None: an ad-hoc goal, not judged)
    spec: TaskSpec | None = None  # the task file it came from (the oracle plays spec.oracle)
    release: str | None = None  # the console release the task runs on (recorded in the trajectory header)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "goal": self.goal, "start_url": self.start_url, "document": self.document,
                "related": self.related, "alternatives": self.alternatives, "max_steps": self.max_steps, "time_limit_s": self.time_limit_s}
