"""Whether a grid's "Add" click is one the goal needs.

Reference pages describe every grid of a dialog ("Click the *Add* icon (+) to assign additional
security labels"); a person adds rows only for what they must enter, and an empty row makes many
forms invalid. This is the agent's judgement of a document instruction against its goal, so it
lives with the agent, not with the document model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from consoleagent.documents.instructions import Instruction
from consoleagent.documents.labels import terms

_ADD_PURPOSE = re.compile(r"\bto\s+(?:add|assign|specify|define|create|provide)\s+(?:an?\s+|the\s+)?(?P<what>.+?)"
                          r"(?:\s+(?:for|to|in|on|that|which)\b|[.;:,]|$)", re.I)
# more rows: "additional", "each"; and "a new set of privileges; to discard a privilege, click the trash icon" (a
# sentence that also says how to discard a row is about the rows after the first)
_ADD_EVERY = re.compile(r"\b(?:additional|another|each)\b|\bnew\b(?=[^.]*\bto\s+discard\b)", re.I)
_ADD_GENERIC = {"set", "pair", "row", "entry", "item", "value", "one", "new", "list", "selection", "icon"}


def optional_add(ins: Instruction, goal: str) -> bool:
    """Whether an "Add" click adds a row to a grid the goal has nothing for: "Click the *Add* icon (+) to assign
    additional security labels" (more rows: never needed for one goal), "Click the *Add* icon (+) to add an
    option/value pair" when the goal names no option. A person adds rows only for what they must enter; an
    empty row makes many forms invalid. Only the bare "Add" of a grid (an icon, "each", "additional")."""
    if ins.kind != "click" or ins.target.strip().casefold() != "add":
        return False
    sentence = ins.sentence or ins.text
    if not re.search(r"\bicon\b|\(\+\)", sentence, re.I) and not _ADD_EVERY.search(sentence):
        return False
    if _ADD_EVERY.search(sentence):
        return True
    purpose = _ADD_PURPOSE.search(sentence)
    if purpose is None:
        return False
    wanted = terms(purpose.group("what")) - _ADD_GENERIC
    return bool(wanted) and not (wanted & terms(goal))


def empty_row_add(ins: Instruction, after: list[Instruction], valued: Callable[[Instruction], bool]) -> bool:
    """Whether a bare **Add** adds a row whose fields (``after``: the instructions that follow it) get no value
    from the goal (``valued``): "Click the *Add* button to create an option clause" followed by *Option* and
    *Value* when the goal names no option (measured as empty rows leaving a dialog's **Save** disabled). An
    **Add** after its fields is a form's own button: with no fields after it, it is clicked."""
    if ins.kind != "click" or ins.target.strip().casefold() != "add":
        return False
    fields = [i for i in after if i.kind in ("fill", "select", "choose")]
    return bool(fields) and not any(valued(i) for i in fields)
