"""The rows a batch operation acts on: the goal's resources, never those the goal says to leave alone.

"Select the check boxes of the instances" names no instance; the goal does ("Stop shop-web-a,
shop-web-b, leaving shop-web-c as it is"). A person ticks the rows of the resources to act on and
none other, so a name written after "keep", "leaving", "except" or "without" is never selected.
"""

from __future__ import annotations

import re

from consoleagent.observation.types import Mark
from consoleagent.policies.docfollow.goal_fields import goal_identifiers, names

_KEEP = re.compile(r"\b(?:keep|keeping|leave|leaving|except|excluding|but not|without|other than|do not|don't)\b", re.I)


def acted_on(goal: str) -> list[str]:
    """The names and ids of the goal's resources to act on: those before its first "keep ..." clause."""
    cut = _KEEP.search(goal or "")
    return goal_identifiers((goal or "")[:cut.start()] if cut else goal or "")


def row_boxes(marks: list[Mark], goal: str) -> list[Mark]:
    """The check boxes of the rows of the goal's resources, one per resource, in page order: the box
    whose name says which row (``Select shop-web-a``), else the one whose row holds the name."""
    boxes = [m for m in marks if m.role == "checkbox"]
    found: dict[int, Mark] = {}
    for name in acted_on(goal):
        by_name = [m for m in boxes if names(m.name, name)]
        by_row = [m for m in boxes if not by_name and not goal_identifiers(m.name) and names(m.context, name)]
        chosen = (by_name or by_row)[:1]
        if chosen and all(not names(chosen[0].name + " " + chosen[0].context, other)
                          for other in goal_identifiers(goal) if other not in acted_on(goal)):
            found[chosen[0].id] = chosen[0]
    return sorted(found.values(), key=lambda m: marks.index(m))
