"""A grid the document calls a field: "Specify a table or list of tables ... in **Tables** field".

Consoles replace a comma-separated text field with a grid of rows as they grow (an **Add row** button over
the columns *Table Name*, *Columns*, *Where*), while the document still speaks of the field. A person adds a
row and puts the value in its first cell, whose column is the field's name in the singular. Measured on the
training split as the follower typing the table into *Tables in Schema*, the field another line of the same
document names, and saving the object without its table.
"""

from __future__ import annotations

from consoleagent.documents.labels import normalize
from consoleagent.observation.types import Mark
from consoleagent.documents.labels import singular
from consoleagent.policies.docfollow.marks import empty_field

ADD_ROW_LABELS = frozenset({"add row", "add new row", "add"})
_BESIDE = 3  # how many marks either side of the add button may be its grid's header or first row


def column_of(label: str) -> str:
    """The column a grid field's label names: its last word in the singular ("Tables" → "table")."""
    words = normalize(label).split()
    return " ".join([*words[:-1], singular(words[-1])]) if words else ""


def _header_names(name: str, column: str) -> bool:
    """Whether a grid header's text ("Table Name Columns Where") begins with the column's name ("table")."""
    return normalize(name).split()[:len(column.split())] == column.split()


def grid_add_button(label: str, marks: list[Mark]) -> Mark | None:
    """The enabled **Add row** button of the grid whose first column is ``label`` in the singular (its header,
    or once it has rows a row's first cell, beside the button); None when no grid is named so. A plural label
    only: "Table" names a field, not rows."""
    column = column_of(label)
    if not column or column == normalize(label):
        return None
    for k, mark in enumerate(marks):
        if mark.role != "button" or normalize(mark.name) not in ADD_ROW_LABELS or "disabled" in mark.states:
            continue
        beside = [*marks[k + 1:k + 1 + _BESIDE], *marks[max(0, k - _BESIDE):k]]
        if any(b.name and _header_names(b.name, column) for b in beside):
            return mark
    return None


def new_row_field(label: str, add: Mark, marks: list[Mark]) -> Mark | None:
    """The empty cell a row added with ``add`` offers for ``label``: the first editable field after the button
    whose name begins with the label's singular ("Table Name" for **Tables**)."""
    column = column_of(label)
    start = next((k for k, m in enumerate(marks) if m.id == add.id), None)
    if start is None:
        return None
    for mark in marks[start + 1:]:
        if empty_field(mark) and _header_names(mark.name, column):
            return mark
    return None
