"""The code editor a page describes by what goes into it.

A code editor (CodeMirror, Monaco) is a box of lines without a label: the page calls it "the editor"
and says what it takes ("Provide a command in the editor"). The observation marks it as a text field
in the ``multiline`` state; a native ``<textarea>``, which forms use for descriptions, is not one.
One that is named for what it takes is preferred; otherwise the one with the focus (a tab that shows
an editor focuses it), then the first.
"""

from __future__ import annotations

from consoleagent.documents.labels import terms
from consoleagent.observation.roles import TEXT_ROLES
from consoleagent.observation.types import Mark
from consoleagent.policies.docfollow.marks import editable


def editor_mark(what: str, marks: list[Mark]) -> Mark | None:
    """The editable code editor for ``what`` ("command") on the page, or None when the page shows none."""
    editors = [m for m in marks if m.role in TEXT_ROLES and "multiline" in m.states and editable(m)]
    wanted = terms(what)
    for preferred in ([m for m in editors if terms(m.name) & wanted], [m for m in editors if "focused" in m.states],
                      editors):
        if preferred:
            return preferred[0]
    return None
