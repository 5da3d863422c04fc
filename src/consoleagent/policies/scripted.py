"""A policy that plays a fixed list of actions: for environment tests, where the point is what the
environment does with each action, not how it was chosen."""

from __future__ import annotations

from consoleagent.observation.types import Observation
from consoleagent.policies.base import Decision


class ScriptedPolicy:
    """Return ``actions`` in order, then ``task_complete("script finished")`` forever.

    The action texts are passed through unparsed, so a test can script malformed actions too.
    Each decision records the observation it was given in ``meta["observation_step"]``, and
    ``observations`` keeps every observation seen, for tests to inspect.
    """

    name = "scripted"

    def __init__(self, actions: list[str] | None = None, final: str = 'task_complete("script finished")') -> None:
        self.actions = list(actions or [])
        self.final = final
        self.reset("")

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal = goal
        self.document = list(document or [])
        self.position = 0
        self.observations: list[Observation] = []

    def act(self, observation: Observation) -> Decision:
        self.observations.append(observation)
        if self.position < len(self.actions):
            action = self.actions[self.position]
            self.position += 1
        else:
            action = self.final
        return Decision(action=action, thought=f"scripted action {self.position}", raw=action,
                        document_step=observation.document_step, meta={"observation_step": observation.step})
