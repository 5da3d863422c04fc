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
# one item of a list the goal names: a name or a qualified name ("public.customers"), without the comma after it
_LISTED_ITEM = r"(?P<item>[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)"


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


def next_listed(goal: str, item: str) -> str | None:
    """The item after ``item`` in a list the goal names ("the tables public.orders and public.customers":
    public.customers after public.orders), or None. Only an item of the same shape counts (both qualified names,
    or both with an underscore or digit), or plain words after a plural noun ("the roles reporting and auditors"):
    "public.orders and the role reporting" joins two things, and "the role reporting and also x" is prose."""
    if not item:
        return None
    found = re.search(rf"(?<![\w.]){re.escape(item)}(?:\s*,\s*(?:and\s+)?|\s+and\s+){_LISTED_ITEM}", goal or "")
    if found is None:
        return None
    following = found.group("item")
    if _shape(following) != _shape(item):
        return None
    return following if _shape(item) != "word" or _after_plural(goal, found.start(), item) else None


def listed_from(goal: str, item: str) -> list[str]:
    """Every item after ``item`` in the goal's list, in order."""
    items: list[str] = []
    following = next_listed(goal, item)
    while following is not None and following not in items and following != item:
        items.append(following)
        following = next_listed(goal, following)
    return items


def _after_plural(goal: str, start: int, item: str) -> bool:
    """Whether the list's first item follows a plural noun ("roles" of "the roles reporting and auditors"),
    or an item before it does (the chain's earlier items)."""
    before = re.findall(r"[A-Za-z_][\w.$]*", goal[:start])
    if not before:
        return False
    noun = before[-1].casefold()
    if noun != singular(noun):
        return True
    earlier = re.search(rf"(?<![\w.])(?P<item>[\w.$]+)(?:\s*,\s*(?:and\s+)?|\s+and\s+){re.escape(item)}\b", goal)
    return earlier is not None and _shape(earlier.group("item")) == "word" and _after_plural(goal, earlier.start(), earlier.group("item"))


def _shape(item: str) -> str:
    if "." in item:
        return "qualified"
    return "identifier" if re.search(r"[_\d]", item) else "word"
