"""The difference between a step as documented and as a fix rewrites it, for people to read.

A step often carries its parameter table and notes (a dozen lines); a fix usually changes one of
them. Showing both versions whole hides the change, so every report shows only the changed lines,
with a line of context, and marks the changed words inside a changed line.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

CONTEXT = 1  # unchanged lines kept around a change


@dataclass
class DiffLine:
    op: str  # "=" context, "-" removed, "+" added, "…" unchanged lines left out (text says how many)
    text: str
    words: list[tuple[str, str]] = field(default_factory=list)  # (op, text) segments, for a changed line


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(op, text) segments between two lines, word by word: op is '=', '-' (removed) or '+' (added)."""
    a, b = before.split(" "), after.split(" ")
    segments: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            segments.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            segments.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            segments.append(("+", " ".join(b[j1:j2])))
    return segments


def line_diff(before: str, after: str, context: int = CONTEXT) -> list[DiffLine]:
    """The changed lines of ``after`` against ``before``, with ``context`` unchanged lines around each change."""
    a, b = before.splitlines() or [""], after.splitlines() or [""]
    out: list[DiffLine] = []
    opcodes = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    for index, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op == "equal":
            out += _context(a[i1:i2], first=index == 0, last=index == len(opcodes) - 1, context=context)
            continue
        removed, added = a[i1:i2], b[j1:j2]
        for k in range(max(len(removed), len(added))):
            old = removed[k] if k < len(removed) else None
            new = added[k] if k < len(added) else None
            words = word_diff(old, new) if old is not None and new is not None else []
            if old is not None:
                out.append(DiffLine("-", old, [w for w in words if w[0] != "+"]))
            if new is not None:
                out.append(DiffLine("+", new, [w for w in words if w[0] != "-"]))
    return out


def _context(lines: list[str], first: bool, last: bool, context: int) -> list[DiffLine]:
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if len(lines) <= keep_head + keep_tail + 1:
        return [DiffLine("=", line) for line in lines]
    head = [DiffLine("=", line) for line in lines[:keep_head]]
    tail = [DiffLine("=", line) for line in lines[len(lines) - keep_tail:]] if keep_tail else []
    skipped = len(lines) - keep_head - keep_tail
    return head + [DiffLine("…", f"{skipped} unchanged line(s)")] + tail


def changed_text(before: str, after: str) -> str:
    """Just the new or rewritten lines of ``after`` (what a one-line summary of a fix should show)."""
    added = [d.text.strip() for d in line_diff(before, after, context=0) if d.op == "+" and d.text.strip()]
    return " / ".join(added) if added else after.strip()
