"""One turn of an agent, as the environment receives it.

It lives with the action language, not with the policies, because both sides use it: a policy
returns it and the environment (a layer below the policies) executes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
