"""A row for each further item the goal lists.

A reference page describes one row of a grid and then says how to add more: "Click the *Add* icon (+)
to specify each additional option/value pair". A goal that names two options ("the option language set
to english and the option stopwords set to english") needs one more row for each option after the
first. Each further item is the goal's text from its noun on, up to the next ("option stopwords set to
english"): the new row's fields read their values from it, as the first row's read theirs from the
whole goal (where the first item comes first). "each additional pair" names only a row: then what the
row's first field names (**Option**) is counted.
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import singular

# "to specify each additional option/value pair", "to add another token": the noun is what is counted
_EACH_MORE = re.compile(r"\b(?:each\s+additional|each\s+further|another|additional)\s+(?P<noun>[A-Za-z]+)", re.I)
# nouns that say a row, not what is in it: "each additional pair" counts what the row's first field names
_ROW_WORDS = {"pair", "row", "entry", "item", "set", "one", "line", "clause"}


def further_items(sentence: str, goal: str, first_field: str = "") -> list[str]:
    """The goal's items after the first of the kind an "each additional <noun>" sentence adds, each as the goal's
    text from its noun to the next; [] when the sentence adds no counted noun or the goal names one item or none.
    A noun that only says "row" ("each additional pair") counts the row's ``first_field`` ("Option") instead."""
    found = _EACH_MORE.search(sentence or "")
    if found is None:
        return []
    noun = singular(found.group("noun").casefold())
    if noun in _ROW_WORDS:
        noun = singular(first_field.casefold().split()[0]) if first_field.split() else ""
    if not noun:
        return []
    starts = [m.start() for m in re.finditer(rf"\b{re.escape(noun)}s?\b", goal or "", re.I)]
    ends = starts[1:] + [len(goal)]
    return [goal[start:end].strip() for start, end in zip(starts, ends)][1:]
