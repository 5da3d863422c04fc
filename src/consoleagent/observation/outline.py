"""The text form of an observation: a compact outline of the page with [id] marks, keeping the
context a person uses to pick the right control (dialog, form, table row, headings, messages).

Budgeted in tokens (about 4 characters each). Over budget, the least useful lines go first: long
plain text, then content far from the viewport, then table rows beyond the first few; never the
controls in view, dialogs, error messages or headings. Output is deterministic for a given page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from consoleagent.observation.types import Mark

if TYPE_CHECKING:
    from consoleagent.observation.marking import PageSnapshot

CHARS_PER_TOKEN = 4
ROWS_KEPT = 5  # rows of a long table kept when trimming, before "… N more rows"
TEXT_CAP = 200  # characters of a plain text block kept at the first trimming stage
TEXT_CAP_TIGHT = 80


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass
class Entry:
    """One line of the outline (or a group header, whose line shows only if something inside stays)."""

    kind: str  # h, t, status, alert, tip, m, err, group, row
    text: str
    depth: int
    y: float = 0.0
    protected: bool = False
    group: int | None = None  # the group this header opens
    parents: tuple[int, ...] = ()
    table: int | None = None  # for rows: the table's group, and the row's index in it
    row_index: int = 0
    dropped: bool = False
    cap: int | None = None  # text truncated to this many characters
    index: int = 0

    def line(self) -> str:
        text = self.text
        if self.cap is not None and len(text) > self.cap:
            text = text[: self.cap - 1] + "…"
        return "  " * self.depth + text


def mark_line(mark: Mark, extra: dict[str, str] | None = None) -> str:
    """`[7] textbox "Name" value="web-01" (required)`."""
    parts = [f"[{mark.id}] {mark.role}"]
    if mark.name:
        parts.append(_quote(mark.name))
    if mark.value not in (None, ""):
        parts.append(f"value={_quote(str(mark.value))}")
    elif mark.placeholder and mark.placeholder != mark.name:
        parts.append(f"placeholder={_quote(mark.placeholder)}")
    states = ([f"level {mark.level}"] if mark.level and mark.role == "treeitem" else []) + list(mark.states)
    if states:
        parts.append("(" + ", ".join(states) + ")")
    desc = (extra or {}).get("desc")
    if desc and desc == (extra or {}).get("error"):
        desc = None  # said on its own line
    if desc and ("disabled" in mark.states or len(desc) <= 80):
        parts.append(f"— {desc}")
    return " ".join(parts)


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def build_entries(snap: "PageSnapshot") -> list[Entry]:
    marks = {m.id: m for m in snap.marks}
    errors = {x["error"] for x in snap.extras.values() if x.get("error")}
    described: set[str] = set()
    entries: list[Entry] = []
    stack: list[tuple[int, int, bool]] = []  # (group id, entry index, inside a dialog)
    rows_in_table: dict[int, int] = {}
    for item in snap.items:
        kind = item["k"]
        depth = len(stack)
        parents = tuple(g for g, _, _ in stack)
        in_dialog = bool(stack and stack[-1][2])
        if kind == "close":
            if stack and stack[-1][0] == item["g"]:
                stack.pop()
            continue
        if kind == "open":
            text = item["t"]
            table = None
            row_index = 0
            if item.get("row"):
                kind_, text = "row", f"row: {text}" if text else (f"row {item['n']}" if item.get("n") else "row")
                table = stack[-1][0] if stack else None
                if table is not None:
                    row_index = rows_in_table.get(table, 0)
                    rows_in_table[table] = row_index + 1
            else:
                kind_ = "group"
                if item.get("modal"):
                    text += " (modal: only its controls can be used)"
                cols = [c for c in item.get("cols") or [] if c]
                if cols:
                    text += " columns: " + " | ".join(cols)
                text += ":"
            is_dialog = bool(item.get("dialog"))
            entry = Entry(kind_, text, depth, y=item.get("y", 0), protected=in_dialog or is_dialog, group=item["g"],
                          parents=parents, table=table, row_index=row_index)
            entries.append(entry)
            stack.append((item["g"], len(entries) - 1, in_dialog or is_dialog))
            continue
        if kind == "m":
            mark = marks.get(item["id"])
            if mark is None:
                continue
            extra = snap.extras.get(mark.id, {})
            y = mark.bbox[1]
            in_view = mark.in_viewport
            line = mark_line(mark, extra)
            if extra.get("desc") and f"— {extra['desc']}" in line:
                described.add(extra["desc"])  # the help text is on the field's line: don't repeat it below
            said = {mark.name, mark.value, mark.placeholder} - {None, ""}
            while entries and entries[-1].kind == "t" and entries[-1].parents == parents and entries[-1].text in said:
                entries.pop()  # an unlinked label or a drawn value just before the control that now carries it
            if mark.level:  # a tree drawn as a flat list of rows: indent by depth (its caret under its row)
                depth += mark.level - (1 if mark.role == "treeitem" else 0)
            entries.append(Entry("m", line, depth, y=y, protected=in_view or in_dialog, parents=parents))
            if extra.get("error"):
                entries.append(Entry("err", f"  ! {extra['error']}", depth, y=y, protected=True, parents=parents))
            continue
        text = item.get("t", "")
        y = item.get("y", 0)
        if kind == "h":
            entries.append(Entry("h", "#" * min(int(item.get("l", 2)), 6) + " " + text, depth, y=y, protected=True, parents=parents))
        elif kind in ("status", "alert", "tip"):
            label = {"status": "status", "alert": "alert", "tip": "tooltip"}[kind]
            entries.append(Entry(kind, f"{label}: {text}", depth, y=y, protected=True, parents=parents))
        elif text not in errors and text not in described:  # already shown under or beside its field
            entries.append(Entry("t", text, depth, y=y, protected=in_dialog, parents=parents))
    for i, e in enumerate(entries):
        e.index = i
    return entries


def _distance(y: float, vh: float) -> float:
    """How far (px) an entry sits from the visible part of the page."""
    return 0.0 if 0 <= y < vh else (-y if y < 0 else y - vh + 1)


def render_entries(entries: list[Entry], tail: str = "") -> str:
    kept_in_group: dict[int, int] = {}
    for e in entries:
        if not e.dropped and e.kind != "group":
            for g in e.parents:
                kept_in_group[g] = kept_in_group.get(g, 0) + 1
    lines: list[str] = []
    dropped_rows: dict[int, int] = {}
    row_summary_at: dict[int, int] = {}
    run = 0  # consecutive dropped non-row lines
    run_depth = 0
    run_below = True
    for e in entries:
        if e.kind == "row" and e.dropped and e.table is not None:
            dropped_rows[e.table] = dropped_rows.get(e.table, 0) + 1
            if e.table not in row_summary_at:
                row_summary_at[e.table] = len(lines)
                lines.append("")  # placeholder, filled below
            continue
        if e.dropped:
            if e.kind != "group" and not any(p in row_summary_at and dropped_rows.get(p) for p in e.parents[-2:]):
                run += 1
                run_depth = e.depth
                run_below = e.y >= 0
            continue
        if run:
            lines.append("  " * run_depth + f"… {run} more {'below' if run_below else 'above'}")
            run = 0
        if e.kind == "group" and not kept_in_group.get(e.group or -1):
            continue
        lines.append(e.line())
    if run:
        lines.append("  " * run_depth + f"… {run} more {'below' if run_below else 'above'}")
    for table, at in row_summary_at.items():
        depth = next((e.depth + 1 for e in entries if e.group == table), 1)
        lines[at] = "  " * depth + f"… {dropped_rows[table]} more rows"
    if tail:
        lines.append(tail)
    return "\n".join(lines)


def _drop_until(entries: list[Entry], candidates: list[Entry], budget_chars: int, total: int) -> int:
    for e in candidates:
        if total <= budget_chars:
            break
        e.dropped = True
        total -= len(e.line()) + 1
    return total


def render(snap: "PageSnapshot", budget_tokens: int = 2000, include_title: bool = False) -> str:
    """The outline of `snap` within `budget_tokens` (controls in view, dialogs, errors and headings always stay)."""
    entries = build_entries(snap)
    vh = float(snap.viewport[1] or 900)
    tail = ""
    if snap.page_height > vh + 4:
        top = snap.scroll[1]
        tail = f"(scroll position {int(top)}–{int(top + vh)} of {int(snap.page_height)} px)"
    if snap.skipped_frames:
        tail += ("\n" if tail else "") + f"({len(snap.skipped_frames)} cross-origin frame(s) not observed)"
    head = f"Title: {snap.title}\n" if include_title else ""
    budget = budget_tokens * CHARS_PER_TOKEN - len(head)
    text = render_entries(entries, tail)
    if len(text) <= budget:
        return head + text

    by_distance = lambda e: (-_distance(e.y, vh), -e.index)  # noqa: E731  far first, then later first
    keep_rows = {p for e in entries if e.kind == "m" and e.protected for p in e.parents}
    # 1. long plain text blocks are cut short, then plain text off-screen goes.
    for e in entries:
        if e.kind == "t" and not e.protected:
            e.cap = TEXT_CAP
    stages: list[list[Entry]] = [
        sorted([e for e in entries if e.kind == "t" and not e.protected and _distance(e.y, vh) > 0], key=by_distance),
        # 2. off-screen content, farthest from the viewport first.
        sorted([e for e in entries if e.kind in ("m", "t", "row") and not e.protected and _distance(e.y, vh) > 0
                and not (e.kind == "row" and e.row_index < ROWS_KEPT)], key=by_distance),
        # 3. rows of long tables beyond the first few, last first (their in-view controls stay).
        sorted([e for e in entries if e.kind == "row" and not e.protected and e.row_index >= ROWS_KEPT
                and e.group not in keep_rows], key=lambda e: -e.index),
        # 4. the rest of the plain text.
        sorted([e for e in entries if e.kind == "t" and not e.protected], key=lambda e: -len(e.text)),
    ]
    for i, stage in enumerate(stages):
        if i == 3:
            for e in entries:
                if e.kind == "t" and not e.protected:
                    e.cap = TEXT_CAP_TIGHT
            text = render_entries(entries, tail)
        for _ in range(3):  # the estimate ignores summary lines and empty headers: re-check
            _drop_until(entries, [e for e in stage if not e.dropped], budget, len(text))
            if i == 1 or i == 2:  # a dropped row takes its marks with it
                _drop_row_children(entries)
            text = render_entries(entries, tail)
            if len(text) <= budget:
                return head + text
    return head + text


def _drop_row_children(entries: list[Entry]) -> None:
    dropped_rows = {e.group for e in entries if e.kind == "row" and e.dropped}
    if not dropped_rows:
        return
    for e in entries:
        if not e.dropped and e.parents and e.parents[-1] in dropped_rows and not e.protected:
            e.dropped = True


def outline(snap: "PageSnapshot", budget_tokens: int = 2000) -> str:
    return render(snap, budget_tokens)


