"""Parameter tables: which column holds what, and what each cell asks for.

A parameter table's cells are written for people: "Leave this field empty.", "Select the security
group of the application servers.", "for example `web-01`", "5 Mbps", "-". Typed as they are, they
break the form (a sentence in a CIDR field) or blame the console for a unit. Each cell is read into
a :class:`Value` whose kind says what to do with it; only literals, examples and defaults are text
to type or select.
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import BOLD, bold_labels, strip_markup
from consoleagent.documents.model import FieldSpec, Table, Value, ValueKind

_VALUE_COLUMN = re.compile(r"value|setting|configuration|enter|input|example|sample", re.I)
_EXAMPLE_COLUMN = re.compile(r"example|sample", re.I)
_DESCRIPTION_COLUMN = re.compile(r"description|details?|notes?|explanation|remarks?|meaning|how to", re.I)
_REQUIRED_COLUMN = re.compile(r"^\s*(required|mandatory)\??\s*$", re.I)

_NO_VALUE = {"", "-", "—", "–", "n/a", "na", "none", "not applicable", "—.", "-."}
_EMPTY = re.compile(r"\b(?:leave|keep)\s+(?:this|the|it)?\s*(?:field|box|parameter|option|setting|value)?\s*"
                    r"(?:empty|blank|unselected|cleared|unchecked|unset)\b|^(?:empty|blank)\.?$|^none\s*\(|"
                    r"\bdo not (?:enter|specify|set|select|fill in|configure)\b", re.I)
_DEFAULT = re.compile(r"\b(?:keep|use|retain|accept|leave)\s+(?:the\s+)?default\b|^\(?default\)?\.?$|"
                      r"^(?:the\s+)?default(?:\s+value)?\s*(?:is|:)\s*(?P<value>.+?)\.?$", re.I)
_EXAMPLE = re.compile(r"^(?:for example|for instance|e\.g\.|example)\s*[,:]?\s*(?P<value>.+?)\.?$", re.I)
# "For example, `web-01`" inside a longer cell: the marked (or quoted) value after it.
_EXAMPLE_IN = re.compile(r"\b(?:for example|for instance|e\.g\.)\s*[,:]?\s*(?P<value>\*\*[^*]+\*\*|`[^`]+`|\"[^\"]+\"|“[^”]+”)",
                         re.I)
# A noun phrase that describes the value instead of giving it: "the VPC you created earlier", "any zone".
_DESCRIPTIVE = re.compile(r"^(?:the|a|an|any|your|one of|same as|whichever)\s+\w", re.I)
_IMPERATIVE = re.compile(r"^(?:select|choose|enter|type|specify|set|use|pick|click|configure|turn|enable|disable|"
                         r"clear|check|uncheck|provide|add|input|fill)\b", re.I)
_OPTIONAL = re.compile(r"^\s*(?:\*\*)?optional\b", re.I)
_REQUIRED = re.compile(r"^\s*(?:\*\*)?(?:required|mandatory)\b", re.I)
_SPAN = re.compile(r"\*\*(?P<bold>.+?)\*\*|`(?P<code>[^`]+)`")
UNITS = (r"Mbit/s|Mbps|Gbps|Kbps|GB|GiB|MB|MiB|TB|TiB|KB|KiB|vCPUs?|cores?|ms|seconds?|secs?|s|minutes?|mins?|hours?|"
         r"days?|weeks?|months?|years?|%|IOPS")
_WITH_UNIT = re.compile(rf"^(?P<number>\d+(?:[.,]\d+)?)\s*(?P<unit>{UNITS})$", re.I)


def value_column(header: list[str]) -> int | None:
    """Which column of a parameter table holds the value to enter (an Example column counts)."""
    for i, name in enumerate(header[1:], 1):
        if _VALUE_COLUMN.search(strip_markup(name)):
            return i
    return None


def description_column(header: list[str]) -> int | None:
    for i, name in enumerate(header[1:], 1):
        if _DESCRIPTION_COLUMN.search(strip_markup(name)):
            return i
    return None


def with_unit(text: str) -> tuple[str, str | None]:
    """("5", "Mbps") from "5 Mbps"; the text unchanged and None when it is not a number with a unit."""
    match = _WITH_UNIT.match(text.strip())
    return (match.group("number"), match.group("unit")) if match else (text, None)


def _sole_span(cell: str) -> str | None:
    """The value of a cell that is one bold or code span, maybe with a verb ("Select **X**.") around it."""
    spans = list(_SPAN.finditer(cell))
    if len(spans) != 1:
        return None
    rest = strip_markup(_SPAN.sub(" ", cell))
    rest = re.sub(r"^(?:select|choose|enter|type|set (?:it )?to|use|pick|input|specify)\b", "", rest, flags=re.I)
    if len(re.sub(r"[^\w]+", " ", rest).split()) > 1:
        return None
    span = spans[0]
    return (span.group("bold") or span.group("code") or "").strip()


def interpret_cell(cell: str, example: bool = False) -> Value:
    """What a value cell asks for. ``example``: the cell is in an Example column (a sample, not a requirement)."""
    plain = strip_markup(cell)
    options = bold_labels(cell)
    if plain.casefold().rstrip(".") in _NO_VALUE:
        return Value("unspecified", plain)
    if _EMPTY.search(plain):
        return Value("empty", plain)
    default = _DEFAULT.search(plain)
    if default:
        said = strip_markup((default.groupdict().get("value") or "").strip())
        return _valued("default", said, options)  # "" when the console's own default is meant
    sample = _EXAMPLE.match(plain)
    if sample:
        inner = _sole_span(cell) or sample.group("value").strip().strip("\"'“”")
        return _valued("example", inner)
    sole = _sole_span(cell)
    if sole is None and _IMPERATIVE.match(plain):
        quoted = _EXAMPLE_IN.search(cell)  # "Enter a name. For example, `web-01`.": the example is the value
        if quoted:
            return _valued("example", strip_markup(quoted.group("value")).strip("\"'“”"))
        return Value("instruction", plain, None, options)
    if sole is None and _DESCRIPTIVE.match(plain):
        return Value("instruction", plain, None, options)
    return _valued("example" if example else "literal", sole if sole is not None else plain)


def _valued(kind: ValueKind, text: str, options: list[str] | None = None) -> Value:
    number, unit = with_unit(text)
    return Value(kind, text, unit, list(options or []), number if unit else None)


def required_from(description: str) -> bool | None:
    if _OPTIONAL.match(description):
        return False
    if _REQUIRED.match(description):
        return True
    return None


def table_parameters(table: Table, source: str = "<doc>") -> list[FieldSpec]:
    """A parameter table's rows as fields: first column the label, the value column interpreted.

    Without a value column, a description cell that is an instruction ("Leave this field empty.",
    "Select **Pay-as-you-go**.") is the value; one that only describes the field gives none."""
    if len(table.header) < 2:
        return []
    values, described = value_column(table.header), description_column(table.header)
    required_at = next((i for i, h in enumerate(table.header) if _REQUIRED_COLUMN.match(strip_markup(h))), None)
    example = values is not None and bool(_EXAMPLE_COLUMN.search(strip_markup(table.header[values])))
    specs = []
    for row in table.rows:
        label = strip_markup(BOLD.sub(r"\1", row[0])) if row else ""
        if not label:
            continue
        description = row[described] if described is not None and described < len(row) else ""
        value: Value | None = None
        if values is not None and values < len(row):
            value = interpret_cell(row[values], example)
        elif description and (_IMPERATIVE.match(strip_markup(description)) or _EMPTY.search(strip_markup(description))):
            value = interpret_cell(description)
        required = required_from(description)
        if required_at is not None and required_at < len(row):
            flag = strip_markup(row[required_at]).casefold()
            required = True if flag in ("yes", "required", "true", "y") else False if flag in ("no", "optional", "false", "n") \
                else required
        specs.append(FieldSpec(label=label, value=value, description=description, required=required,
                               line=table.line, source=source))
    return specs



def table_fields(table: Table) -> list[tuple[str, str]]:
    """(field, value) pairs a person would type or select: literals, examples and defaults only.

    Cells that are instructions ("Leave this field empty.", "Select the group of ...") or no value
    ("-") are not values to type; they are in :func:`table_parameters` with their kind."""
    return [(p.label, p.value.text) for p in table_parameters(table) if p.value is not None and p.value.typed]