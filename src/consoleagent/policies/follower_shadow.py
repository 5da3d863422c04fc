"""The documentation follower run alongside a learned policy, as one of its features.

The ranker scores candidates; the documentation follower knows the document's order, its tables and
the goal's values by rule. Run beside the ranker on the same observations, the follower's proposal
becomes a feature (``follower_pick``), so the trained head learns when the rule is right and when the
oracle's choice differs from it (a residual policy: the rule is the prior, the head the correction).
The follower keeps its own state from its own proposals; where the ranker chose otherwise, it sees
the page that choice led to and carries on from there, as it would after a failed action. A report of
a discrepancy is proposed like any action, one per step: it becomes a candidate of its own
(``candidates.with_proposal``), so the ranker reports what the follower found (verification and the
tasks that require a report need it) and a trained head can learn which reports to drop. The follower
counts a report as made once proposed, so a dropped one is not proposed again.

A select of a value the drop-down's listed options (``Mark.options``) do not hold is refused before it is proposed:
the follower is told the refusal the console would give, and proposes what it would do next ("media-01" is the
option "media-01 (i-97jp…)", the goal's snapshot instead of the document's example), so a learned policy is never led
into a step the page shows to be wasted.
"""

from __future__ import annotations

from dataclasses import replace

from consoleagent.actions.parser import ActionParseError, parse_action
from consoleagent.env.faults import no_option_error
from consoleagent.observation.types import Observation


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
            refusal = foreseen_refusal(action, observation)
            return action if refusal is None else self.policy.act(replace(observation, last_error=refusal)).action
        except Exception:  # noqa: BLE001 - a feature must never end the learned policy's episode
            self.policy = None
            return None


def foreseen_refusal(action: str, observation: Observation) -> str | None:
    """The console's refusal of ``action`` when it selects, in a drop-down whose options the page lists, a value that
    none of them has (``Mark.offers``); None when it would be taken or is no such select."""
    try:
        parsed = parse_action(action)
    except ActionParseError:
        return None
    mark = observation.mark(parsed.element_id) if parsed.name == "select" and parsed.element_id is not None else None
    option = str(parsed.arg("option"))
    if mark is None or mark.options is None or mark.offers(option):
        return None
    return no_option_error(mark.id, option, mark.options)
