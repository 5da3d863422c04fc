"""Actions already tried on a page exactly like the current one, withheld from the ranker.

A console answers an action on its page: it navigates, opens a dialog, shows a message. Its pages are
deterministic in what they show, so an action taken on a page identical to one it was taken on before
(the same address, the same outline with the same marks, values and messages, the same error) gets the
answer it got then: it either changed nothing or led somewhere the agent has already been and come
back from. Heads trained on teacher trajectories never saw such a loop and fall into it. With the
seed-5 GRPO head of session 48, 94 of 513 training rollouts and 14 of 44 validation episodes did (943 of
5,979 and 278 of 631 steps), mostly clicking OK on a dialog that refused it until the step budget ran
out (``bench/repeated_actions.py``; BENCHMARKS.md, session 49).

Three exceptions. Finishing and giving up are never withheld. Waiting is how a page that changes on its
own (a status going from Creating to Running) is watched, so it is withheld only after ``WAITS_PER_PAGE``
waits on the same unchanged page (the documentation follower waits as often for a disabled control), and
then also when the documentation follower proposes it (sparing the follower's waits, an earlier version
of this rule left 40 of them on unchanged pages in one 44-task validation run). Any other proposal of the
follower is never withheld: its repeats are its own bounded rules (an instruction is retried once after an
error, then given up), and the residual head that ships follows it.

The rule only removes candidates, never all of them, and changes no score. The candidates a step scores
are the ones the ranker records for GRPO, so the log-probabilities GRPO re-computes are those of the
policy that acted.
"""

from __future__ import annotations

from consoleagent.observation.types import Observation
from consoleagent.policies.candidates import Candidate

NEVER_WITHHELD = ("task_complete(", "task_unachievable(")  # they end the episode
WAIT = "wait("
WAITS_PER_PAGE = 2


def page_state(observation: Observation) -> tuple[str, str, str | None]:
    """What an action could have changed: the address, the outline (marks, values, messages) and the error."""
    return observation.url, observation.text, observation.last_error


class FutileActions:
    """For each page state seen in this episode, the actions taken on it; an episode's memory."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.tried: dict[tuple[str, str, str | None], list[str]] = {}
        self.actions: set[str] = set()  # withheld at this step
        self._page: tuple[str, str, str | None] | None = None

    def observe(self, observation: Observation) -> None:
        """Called at each step before choosing: which actions were already taken on this very page?"""
        self._page = page_state(observation)
        tried = self.tried.get(self._page, [])
        waits = sum(1 for action in tried if action.startswith(WAIT))
        self.actions = {action for action in tried if not action.startswith(WAIT) or waits >= WAITS_PER_PAGE}

    def chose(self, action: str) -> None:
        if self._page is not None and not action.startswith(NEVER_WITHHELD):
            self.tried.setdefault(self._page, []).append(action)

    def allows(self, action: str, *, proposed: bool = False) -> bool:
        """May ``action`` be chosen at this step? Not if withheld, unless the follower proposed it (a wait excepted)."""
        return action not in self.actions or (proposed and not action.startswith(WAIT))

    def keep(self, candidates: list[Candidate], proposal: str | None = None) -> list[Candidate]:
        """``candidates`` that may be chosen (``proposal``: the follower's); all of them if none may."""
        kept = [c for c in candidates if self.allows(c.action, proposed=c.action == proposal)]
        return kept or candidates
