"""A row for each further item the goal lists.

A reference page describes one row of a grid and then says how to add more: "Click the *Add* icon (+)
to specify each additional option/value pair". A goal that names two options ("the option language set
to english and the option stopwords set to english") needs one more row for each option after the
first. Each further item is the goal's text from its noun on, up to the next ("option stopwords set to
english"): the new row's fields read their values from it, as the first row's read theirs from the
whole goal (where the first item comes first).
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import singular
# "to specify each additional option/value pair", "to add another token": the noun is what is counted
_EACH_MORE = re.compile(r"\b(?:each\s+additional|each\s+further|another|additional)\s+(?P<noun>[A-Za-z]+)", re.I)


def further_items(sentence: str, goal: str) -> list[str]:
    """The goal's items after the first of the kind an "each additional <noun>" sentence adds, each as the goal's
    text from its noun to the next; [] when the sentence adds no counted noun or the goal names one item or none."""
    found = _EACH_MORE.search(sentence or "")
    if found is None:
        return []
    noun = singular(found.group("noun").casefold())
    starts = [m.start() for m in re.finditer(rf"\b{re.escape(noun)}s?\b", goal or "", re.I)]
    ends = starts[1:] + [len(goal)]
    return [goal[start:end].strip() for start, end in zip(starts, ends)][1:]
