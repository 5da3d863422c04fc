"""Fields named in sentences: "enter **X** in the **Y** field", and reference prose that describes a
dialog field by field ("Use the **Name** field to ...", "Use the drop-down listbox next to **Owner**
to select a role", "Store notes in the **Comment** field", "The default is **5432**").

Task topics say which value to give a field; reference pages only say what a field is for. Both
become :class:`FieldSpec` entries; a description with no value keeps what it asks for as an
``instruction`` value, so the agent can decide from the goal.
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import BOLD, bold_labels, strip_markup
from consoleagent.documents.model import FieldSpec, Value

# Sentence patterns that name a field and the value to give it (shared with the doc follower).
FIELD_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("fill", re.compile(r"\b(?:enter|type|input|specify)\s+\*\*(?P<value>[^*]+)\*\*\s+in(?:to)?\s+the\s+"
                        r"\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|box|text box|parameter))?", re.I)),
    ("fill", re.compile(r"\bin\s+the\s+\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|box|text box|section|parameter))?"
                        r"\s*,?\s*(?:enter|type|input|specify|select|choose)\s+\*\*(?P<value>[^*]+)\*\*", re.I)),
    ("fill", re.compile(r"\bset\s+(?:the\s+)?\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|parameter|option))?"
                        r"\s+to\s+\*\*(?P<value>[^*]+)\*\*", re.I)),
    ("select", re.compile(r"\b(?:select|choose)\s+\*\*(?P<value>[^*]+)\*\*\s+from\s+the\s+\*\*(?P<field>[^*]+)\*\*"
                          r"(?:\s+(?:drop-down list|drop-down menu|list|menu|field))?", re.I)),
    # a settings list or an rST field list: "**vSwitch name**: `web-vsw`" (a marked value only: "any zone" is no value)
    ("fill", re.compile(r"^\s*\*\*(?P<field>[^*]+)\*\*\s*[:：]\s*`(?P<value>[^`]+)`\s*\.?\s*$")),
    ("fill", re.compile(r"^\s*\*\*(?P<field>[^*]+)\*\*\s*[:：]\s*\*\*(?P<value>[^*]+)\*\*\s*\.?\s*$")),
]

CONTROLS = (r"drop-down list ?box|drop-down listbox|drop-down list|drop-down menu|drop-down|listbox|list box|list|"
            r"text box|text field|field|box|check ?box|checkbox|switch|toggle|selector|color-picker|"
            r"slider|spin ?box|combo ?box")
_LABEL_THEN_CONTROL = re.compile(rf"\*\*(?P<label>[^*]+)\*\*\s+(?P<control>{CONTROLS})\b", re.I)
_CONTROL_NEXT_TO = re.compile(rf"\b(?P<control>{CONTROLS})\s+(?:next to|beside|labelled|labeled|named|in the|of the)\s+"
                              rf"\*\*(?P<label>[^*]+)\*\*", re.I)
_IN_THE = re.compile(r"\b(?:in|into|from)\s+the\s+\*\*(?P<label>[^*]+)\*\*(?!\s+(?:dialog|tab|page|pane|panel|tree|menu|"
                     r"column|section|window|console|toolbar|bar|wizard|list|area|node|icon|button|link|message))", re.I)
_READ_ONLY = re.compile(r"\b(?:is|are)\s+(?:disabled|read-only|greyed out|grayed out|not editable)\b", re.I)
_PURPOSE = re.compile(r"\bto\s+(?P<purpose>(?:select|specify|add|provide|enter|choose|set|define|identify|assign|"
                      r"indicate|fill|store|give|configure|pick|describe)\b.+?)(?:[;.]\s|[;.]?$)")
_DEFAULT = re.compile(r"\b(?:the\s+)?default(?:\s+value)?\s+is\s+\*\*(?P<value>[^*]+)\*\*|\*\*(?P<value2>[^*]+)\*\*"
                      r"\s+is\s+the\s+default\b", re.I)
# "Click inside the **Event** field to select ..." is not an action only: it describes the field it puts the cursor in
_ACTION_ONLY = re.compile(r"^\s*(?:click|press|tap|double-click|right-click)\b(?!\s+(?:inside|in|into)\s+the\b)", re.I)
_TAB = re.compile(r"\*\*(?P<label>[^*]+)\*\*\s+tab\b", re.I)
_SELF_DEFAULT = re.compile(r"\bthis is the default\b", re.I)
# "Select a button next to *Maintenance operation* to specify ...:": a field introduced by the list of its choices
CHOICE_INTRO = re.compile(r"^\s*(?:select|choose|click|pick)\s+(?:a|an|one)\s+(?:button|option|value|choice)s?\s+"
                          r"(?:next to|in|of|for|beside)\s+(?:the\s+)?\*\*(?P<label>[^*]+)\*\*\s*(?P<rest>.*)$", re.I | re.S)


def sentence_fields(text: str) -> list[tuple[str, str]]:
    """(field, value) pairs of task-topic sentences, in the order they appear."""
    found: list[tuple[int, str, str]] = []
    for _kind, pattern in FIELD_PATTERNS:
        found += [(m.start(), m.group("field").strip(), m.group("value").strip()) for m in pattern.finditer(text)]
    return [(f, v) for _, f, v in sorted(found)]


def sentence_inputs(text: str, line: int, source: str) -> list[FieldSpec]:
    """The fields of task-topic sentences with their literal values."""
    return [FieldSpec(label=f, value=Value("literal", v), description=strip_markup(text), line=line, source=source)
            for f, v in sentence_fields(text)]


def described_field(text: str, line: int = 0, source: str = "<doc>", group: str | None = None) -> FieldSpec | None:
    """The one field a reference paragraph or bullet describes, or None when it describes none.

    "Use the **Name** field to add a descriptive name" → Name, instruction "add a descriptive name".
    A bullet that only clicks a button or a tab is an action, not a field."""
    if _ACTION_ONLY.match(strip_markup(text)) or not BOLD.search(text):
        return None
    label, control = _field_label(text)
    if label is None:
        return None
    default = _DEFAULT.search(text)
    options = [o for o in bold_labels(text) if o != label]
    value: Value | None
    if _READ_ONLY.search(text):
        value = Value("unspecified", strip_markup(text), None, options)
    elif default:
        value = Value("default", (default.group("value") or default.group("value2") or "").strip(), None, options)
    elif _SELF_DEFAULT.search(text) and control and re.search(r"check ?box|switch|toggle", control, re.I):
        value = Value("default", "checked" if re.search(r"check ?box", control, re.I) else "on", None, options)
    else:
        purpose = _PURPOSE.search(strip_markup(text))
        value = Value("instruction", purpose.group("purpose").strip() if purpose else strip_markup(text), None, options)
    return FieldSpec(label=label, value=value, description=text, control=control.casefold() if control else None,
                     group=group, line=line, source=source)


def _field_label(text: str) -> tuple[str | None, str | None]:
    """The label and control kind of the field a sentence is about."""
    match = _CONTROL_NEXT_TO.search(text)
    if match:
        return match.group("label").strip(), match.group("control")
    for match in _LABEL_THEN_CONTROL.finditer(text):
        return match.group("label").strip(), match.group("control")
    match = _IN_THE.search(text)
    if match and not _TAB.match(text, match.start("label") - 2):
        return match.group("label").strip(), None
    # "Move the **Trusted?** switch ...", "If the **Connect now?** checkbox is checked": caught above; else a
    # sentence that starts with its label ("**Comment**: free text").
    head = re.match(r"^\s*\*\*(?P<label>[^*]+)\*\*\s*[:—–-]", text)
    if head:
        return head.group("label").strip(), None
    return None, None


def group_label(text: str) -> str | None:
    """The tab or panel an introducing sentence names: "Use the fields in the **General** tab to ..." → General."""
    match = re.search(r"\*\*(?P<label>[^*]+)\*\*\s+(?:tab|panel|section|page)\b", text, re.I)
    return match.group("label").strip() if match else None
