"""Finding a place the document does not say how to reach: a bounded best-first walk of the console.

Reference pages describe a dialog and never say how to open it; a console may move a page. A
person then looks around: the menu entry, tree node, tab or link whose name is closest to what
they want, then the next, going back when a branch has nothing. This does the same with the
sentence encoder's closeness (lexical fallback without it) between each clickable name and the
target ("Create Security Group") or, for an unnamed place, the goal. It remembers what it clicked
on each page, never clicks anything destructive or that leaves the console, and stops after
``MAX_HOPS`` clicks or when nothing on any page of its trail is close enough (``MIN_SCORE``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from consoleagent.actions.spec import Action
from consoleagent.encoder import get_encoder
from consoleagent.observation.types import Mark

MAX_HOPS = 8
MIN_SCORE = 0.2
WALK_ROLES = {"link", "menuitem", "treeitem", "tab", "button"}
# Never clicked while looking around: they change or end things, or leave the console.
UNSAFE = re.compile(r"\b(delete|release|remove|stop|reboot|restart|reset|detach|unassociate|disassociate|revoke|leave|"
                    r"terminate|unbind|sign out|log out|logout|sign off|cancel|close|disable|renew|pay|buy|confirm|"
                    r"submit|save|ok|language|help|docs?|documentation|feedback|next page|previous page)\b", re.I)


def page_key(url: str) -> str:
    parsed = urlparse(url)
    return parsed.path + (f"?{parsed.query}" if parsed.query else "")


@dataclass
class Explorer:
    """One search for one target; ``move`` says the next click, a way back, or None (nothing left)."""

    target: str
    goal: str = ""
    max_hops: int = MAX_HOPS
    tried: dict[str, set[str]] = field(default_factory=dict)  # page → names clicked there
    trail: list[str] = field(default_factory=list)  # pages we clicked away from, for going back
    hops: int = 0

    def move(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        here = page_key(url)
        tried = self.tried.setdefault(here, set())
        if self.hops < self.max_hops:
            candidates = [m for m in marks if m.role in WALK_ROLES and m.name.strip() and m.name not in tried
                          and "disabled" not in m.states and not UNSAFE.search(m.name) and not m.frame]
            best = self._best(candidates)
            if best is not None:
                mark, score = best
                tried.add(mark.name)
                if not self.trail or self.trail[-1] != here:
                    self.trail.append(here)
                self.hops += 1
                return Action("click", (mark.id,)), f"looking for {self.target or 'the page'!r}: [{mark.id}] {mark.name!r} ({score:.2f})"
        while self.trail:
            back = self.trail.pop()
            if back != here:
                return Action("goto", (back,)), f"nothing closer to {self.target or 'the goal'!r} here; back to {back}"
        return None

    def _best(self, marks: list[Mark]) -> tuple[Mark, float] | None:
        if not marks:
            return None
        names = [m.name for m in marks]
        encoder = get_encoder()
        wanted = [q for q in (self.target, self.goal) if q]
        graded = [max(s) for s in zip(*(encoder.similarities(q, names) for q in wanted))] if wanted else [0.0] * len(marks)
        order = max(range(len(marks)), key=lambda i: (graded[i], marks[i].in_viewport, -i))
        return (marks[order], graded[order]) if graded[order] >= MIN_SCORE else None
