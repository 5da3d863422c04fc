"""The switch that enables a disabled field.

Forms disable a field until a switch of the same subject is on: *Deferred?* until *Deferrable?*, a
proxy's port until "Use a proxy?". Documents say so in passing ("If enabled, move the *Deferred?*
switch ...") or not at all; a person sees the field greyed out and turns on the switch beside it
that is about the same thing. Which switch is read from the labels alone: one that is off, enabled,
and shares a word with the field (the same stem, or the same first five letters: "deferrable" and
"deferred").
"""

from __future__ import annotations

from consoleagent.observation.roles import TOGGLE_ROLES
from consoleagent.observation.types import Mark
from consoleagent.documents.labels import terms
from consoleagent.policies.docfollow.goal_fields import related_words

# words of a switch's label that say what it does, not what it is about (``terms`` drops "use", "the", "a", ...)
_SWITCH_VERBS = {"enable", "enabled", "allow", "create", "set", "show", "turn", "on"}


def _subject_words(label: str) -> set[str]:
    return terms(label) - _SWITCH_VERBS


def enabler(field: Mark, marks: list[Mark]) -> Mark | None:
    """The one switch (or check box) that is off, enabled, in the field's dialog and about the same thing as the
    disabled ``field``; None when none or several are."""
    own = _subject_words(field.name)
    found = [m for m in marks if m.role in TOGGLE_ROLES and m.id != field.id and m.context == field.context
             and "checked" not in m.states and "disabled" not in m.states
             and any(related_words(a, b) for a in own for b in _subject_words(m.name))]
    return found[0] if len(found) == 1 else None
