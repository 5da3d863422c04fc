"""The code a goal gives for an editor.

Reference pages describe a code editor by what goes into it, never by a label ("Provide a command in
the editor that defines the action performed by the rule"; "Specify a SQL conditional expression ...
in the editor"), and the editor itself is an unnamed box of lines. The goal says what to write in
its own words, with the page's noun in front: "... also runs the command NOTIFY items_changed",
"... only when the condition `new.qty > 0` holds". An editor takes a statement or an expression,
not one word, so the value is what the goal quotes right after the noun (backticks or quotes), or
else the rest of the goal's sentence after it. A goal that never uses the noun gives nothing: the
editor is left as the console shows it.
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import terms
from consoleagent.policies.docfollow.goal_fields import related_words

_NOUN = re.compile(r"\b(?:the|a|an|this|its)\s+(?P<noun>[A-Za-z]+)\s+", re.IGNORECASE)
_QUOTED = re.compile(r"`(?P<tick>[^`]+)`|\"(?P<double>[^\"]+)\"|'(?P<single>[^']+)'")
# the goal's sentence ends at a full stop or semicolon followed by a space or the end (not the dot of "public.items")
_SENTENCE_END = re.compile(r"[.;](?=\s|$)")


def code_from_goal(what: str, goal: str) -> str | None:
    """The goal's code for the editor the page describes as ``what`` ("command", "SQL conditional expression"),
    or None when the goal does not name it."""
    nouns = terms(what)
    for found in _NOUN.finditer(goal or ""):
        if not any(related_words(found.group("noun").casefold(), noun) for noun in nouns):
            continue
        rest = goal[found.end():]
        quoted = _QUOTED.match(rest)
        if quoted:
            return next(group for group in quoted.groups() if group is not None).strip() or None
        end = _SENTENCE_END.search(rest)
        code = (rest[:end.start()] if end else rest).strip()
        return code or None
    return None
