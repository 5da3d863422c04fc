"""The policy interface: small enough that an API model, a local Hugging Face model, the
documentation follower, the oracle and a replayed trajectory all plug in the same way."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from consoleagent.actions.decision import Decision
from consoleagent.observation.types import Observation

__all__ = ["Decision", "Policy", "PolicyConfigError"]


class PolicyConfigError(ValueError):
    """A policy cannot be built as asked (no API key, a model path that does not exist...): the user's
    input to correct, told before any episode starts, never an environment error."""


@runtime_checkable
class Policy(Protocol):
    name: str

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        """Start a new episode."""

    def act(self, observation: Observation) -> Decision:
        """Choose the next action."""
