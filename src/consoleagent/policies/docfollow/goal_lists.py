"""Fields that take several of the goal's values: a list written the way the page says, and boxes ticked.

Reference pages describe such fields in a sentence a person reads to the end: "Use the *When TAG in* field to
enter filter values for TAG ... The values must be in single quotes separated by comma." The goal names the
values in its own words ("only for the tags CREATE TABLE and ALTER TABLE"), and a person types them as the page
asks: ``'CREATE TABLE','ALTER TABLE'``. Another field opens a list of check boxes when clicked ("Click inside
the *Privileges* field. Check the boxes to the left of one or more privileges ..."); a person ticks those the
goal names ("grant the USAGE privilege").
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import STOPWORDS, bold_labels, strip_markup
from consoleagent.observation.types import Mark
from consoleagent.policies.docfollow.goal_fields import names

# "The values must be in single quotes separated by comma": how a list is written in the field
_QUOTES = re.compile(r"\bin\s+(?P<kind>single|double)\s+quotes\b", re.I)
_SEPARATOR = re.compile(r"\bseparated\s+by\s+(?:an?\s+)?(?P<sep>commas?|semicolons?|spaces?)\b", re.I)
_SEPARATORS = {"comma": ",", "semicolon": ";", "space": " "}
# where a list the goal gives ends, and how its items are joined ("A, B and C", "A or B")
_LIST_END = re.compile(r"[.;:]|,\s+(?:then|and then|so that|which|that)\b|\s+(?:that|which|so that|with|in|on|from)\s", re.I)
_ITEMS = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.I)
# "Click inside the **Privileges** field. Check the boxes ...": a field that opens check boxes
_TICK_BOXES = re.compile(r"\bcheck\s+the\s+boxes\b|\bselect\s+the\s+check\s*boxes\b", re.I)
_FUNCTION = STOPWORDS | {"when", "field", "value", "values"}  # words of a label that name no value


def description(field: str, step: str) -> str:
    """The document's whole description of ``field`` in a step: the lines (a bullet and the sentences after it)
    from the one that names it in bold to the next line naming another field."""
    lines, found = step.splitlines(), []
    for line in lines:
        labels = bold_labels(line)
        if found and labels and field not in labels:
            break
        if found or field in labels:
            found.append(line)
    return strip_markup(" ".join(found))


def listed_in_goal(field: str, goal: str) -> list[str]:
    """The values the goal lists after the field's noun, or its plural ("the tags CREATE TABLE and ALTER TABLE"
    for **When TAG in**): split at commas, "and" and "or"; none when the goal names no such list."""
    for word in [w for w in re.findall(r"[A-Za-z]{3,}", field) if w.casefold() not in _FUNCTION]:  # not the s of "Table(s)"
        found = re.search(rf"\b{re.escape(word)}s?\s+(?P<list>.+)", goal, re.I)
        if found is None:
            continue
        text = _LIST_END.split(found.group("list"), maxsplit=1)[0].strip()
        items = [item.strip() for item in _ITEMS.split(text) if item and item.strip()]
        if items:
            return items
    return []


def written_as(items: list[str], how: str) -> str | None:
    """The items as the description says to write them ("in single quotes separated by comma"), or None when it
    prescribes no way: then the field is not a list of that kind."""
    quotes, separator = _QUOTES.search(how), _SEPARATOR.search(how)
    if not items or (quotes is None and separator is None):
        return None
    mark = "" if quotes is None else ("'" if quotes.group("kind").casefold() == "single" else '"')
    sep = "," if separator is None else _SEPARATORS[separator.group("sep").casefold().rstrip("s")]
    return sep.join(f"{mark}{item}{mark}" for item in items)


def opens_boxes(how: str) -> bool:
    """Whether a field's description says it opens check boxes to tick ("Click inside ... Check the boxes")."""
    return bool(_TICK_BOXES.search(how))


def boxes_to_tick(marks: list[Mark], goal: str) -> list[Mark]:
    """The enabled, unticked check boxes whose whole name the goal writes ("USAGE" of "grant the USAGE
    privilege"), in page order. A name in capitals is a keyword the goal writes in capitals too: the "Create" of
    "Create a foreign server" is no **CREATE** privilege."""
    return [m for m in marks if m.role == "checkbox" and m.name.strip() and "disabled" not in m.states
            and "checked" not in m.states and _written(goal, m.name)]


def _written(goal: str, name: str) -> bool:
    if name.isupper():
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", goal) is not None
    return names(goal, name)
