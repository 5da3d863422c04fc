"""The policy interface: small enough that an API model, a local Hugging Face model, the
documentation follower, the oracle and a replayed trajectory all plug in the same way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from consoleagent.observation.types import Observation


class PolicyConfigError(ValueError):
    """A policy cannot be built as asked (no API key, a model path that does not exist...): the user's
    input to correct, told before any episode starts, never an environment error."""


@dataclass
class Decision:
    """One turn of a policy: its reasoning, the raw output, and the parsed action text.

    ``action`` is DSL text (``click(12)``); the environment parses it, so a malformed action is the
    agent's error, reported back in the next observation. ``document_step`` is the step of the
    document the policy says it is working on (shown back to it in the next observation).
    """

    action: str
    thought: str = ""
    raw: str = ""
    document_step: int | None = None
    usage: dict[str, int] = field(default_factory=dict)  # prompt_tokens, completion_tokens
    latency_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Policy(Protocol):
    name: str

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        """Start a new episode."""

    def act(self, observation: Observation) -> Decision:
        """Choose the next action."""
