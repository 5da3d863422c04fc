"""The documentation follower run alongside a learned policy, as one of its features.

The ranker scores candidates; the documentation follower knows the document's order, its tables and
the goal's values by rule. Run beside the ranker on the same observations, the follower's proposal
becomes a feature (``follower_pick``), so the trained head learns when the rule is right and when the
oracle's choice differs from it (a residual policy: the rule is the prior, the head the correction).
The follower keeps its own state from its own proposals; where the ranker chose otherwise, it sees
the page that choice led to and carries on from there, as it would after a failed action. A report of
a discrepancy is no action on the page (and no candidate): the follower's next action is asked for at
once, so it stays in step with the page.
"""

from __future__ import annotations

from dataclasses import replace

from consoleagent.observation.types import Observation

MAX_REPORTS = 8  # reports in a row before the follower's next action (a step with many missing labels)


class FollowerShadow:
    """A DocFollowerPolicy that only proposes; any error of its own switches it off for the episode."""

    def __init__(self) -> None:
        self.policy = None

    def reset(self, goal: str, document: list[str] | None) -> None:
        from consoleagent.policies.docfollower import DocFollowerPolicy

        self.policy = DocFollowerPolicy() if document else None
        if self.policy is not None:
            self.policy.reset(goal, list(document or []))

    def propose(self, observation: Observation) -> str | None:
        """The follower's action for this observation (DSL text), or None without a follower."""
        if self.policy is None:
            return None
        try:
            action = self.policy.act(observation).action
            for _ in range(MAX_REPORTS):  # a report changes nothing on the page: what the follower does next is the proposal
                if not action.startswith("report_discrepancy("):
                    break
                action = self.policy.act(replace(observation, last_error=None)).action
            return action
        except Exception:  # noqa: BLE001 - a feature must never end the learned policy's episode
            self.policy = None
            return None
