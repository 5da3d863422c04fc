"""The code a goal gives for an editor.

Reference pages describe a code editor by what goes into it, never by a label ("Provide a command in
the editor that defines the action performed by the rule"; "Specify a SQL conditional expression ...
in the editor"), and the editor itself is an unnamed box of lines. The goal says what to write in
its own words, with the page's noun in front: "... also runs the command NOTIFY items_changed",
"... only when the condition `new.qty > 0` holds". An editor takes a statement or an expression,
not one word, so the value is what the goal quotes right after the noun (backticks or quotes), or
else the rest of the goal's sentence after it. A condition may also be written as SQL writes one, after
"where" ("only among the rows where room > 100"). A goal that never uses the noun gives nothing: the
editor is left as the console shows it. The code is the editor's: the words and operators in it name no
other field's option (the ">" of "room > 100" is not the operator of a column).
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import terms
from consoleagent.policies.docfollow.goal_fields import related_words

_NOUN = re.compile(r"\b(?:the|a|an|this|its)\s+(?P<noun>[A-Za-z]+)\s+", re.IGNORECASE)
_QUOTED = re.compile(r"`(?P<tick>[^`]+)`|\"(?P<double>[^\"]+)\"|'(?P<single>[^']+)'")
# the goal's sentence ends at a full stop or semicolon followed by a space or the end (not the dot of "public.items")
_SENTENCE_END = re.compile(r"[.;](?=\s|$)")
# "... where room > 100", "where status = 'open'": a comparison after SQL's "where", up to the sentence's end or a comma
_WHERE = re.compile(r"\bwhere\s+(?P<expr>[\w.\"]+\s*(?:<>|!=|[<>]=?|=|\s(?:is|in|like)\s)\s*[^,;]+?)(?=[.;,](?:\s|$)|$)",
                    re.IGNORECASE)
_CONDITION_NOUNS = {"condition", "expression", "predicate"}
# what a field's description says it takes ("to provide a condition that a row must satisfy"): code for the goal to give
CODE_NOUNS = _CONDITION_NOUNS | {"command", "statement"}


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
    where = _WHERE.search(goal or "") if nouns & _CONDITION_NOUNS else None
    return where.group("expr").strip() if where else None


def outside_code(goal: str) -> str:
    """The goal without the code it quotes or writes after "where": what is left to name fields' options."""
    return _WHERE.sub(" ", _QUOTED.sub(" ", goal or ""))
