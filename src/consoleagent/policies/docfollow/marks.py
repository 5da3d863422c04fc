"""Finding an element by the name a document gives it: exact, then a prefix, then close enough.

Names on a page are matched as a person reads them: the exact label first, then one that starts with
it ("Virtual Private Cloud Isolated private networks..." for "Virtual Private Cloud"), then a close
spelling or the same words with a few added ("vSwitches" → "Subnets (vSwitches)"). Ties go to the
row of the goal's resource, to fields not set by an earlier step, to what is enabled and visible.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from consoleagent.documents.labels import FUZZY_RATIO, normalize, words_kept_in_order
from consoleagent.observation.roles import FIELD_ROLES, TOGGLE_ROLES
from consoleagent.observation.types import Mark
from consoleagent.policies.docfollow.goal_fields import whole_name

FUZZY_OVERLAP = 0.6


def editable(mark: Mark) -> bool:
    """A field a person can type into now: neither disabled nor read-only."""
    return not {"readonly", "disabled"} & set(mark.states)


def empty_field(mark: Mark) -> bool:
    """An editable field with nothing in it yet (a switch is never empty): where a new row's value goes."""
    return mark.role in FIELD_ROLES - TOGGLE_ROLES and not (mark.value or "").strip() and editable(mark)


@dataclass
class Match:
    mark: Mark
    quality: Literal["exact", "prefix", "fuzzy"]
    score: float


def _name_quality(label: str, name: str) -> tuple[str, float] | None:
    want, have = normalize(label), normalize(name)
    if not want or not have:
        return None
    if want == have:
        return "exact", 1.0
    if have.startswith(want + " "):  # "Virtual Private Cloud Isolated private networks..." for "Virtual Private Cloud"
        return "prefix", 0.9
    ratio = difflib.SequenceMatcher(None, want, have).ratio()
    a, b = set(want.split()), set(have.split())
    overlap = len(a & b) / len(a | b)
    if ratio >= FUZZY_RATIO or (overlap >= FUZZY_OVERLAP and len(a & b) >= 1 and len(a) > 1):
        return "fuzzy", max(ratio, overlap) * 0.8
    if words_kept_in_order(want.split(), have.split()):
        return "fuzzy", 0.6
    return None


def names_in(context: str, names: list[str]) -> bool:
    """Whether ``context`` names one of ``names`` whole."""
    return any(whole_name(n).search(context.casefold()) for n in names if n)


def find_mark(label: str, marks: list[Mark], roles: set[str] | None = None, exclude: set[str] | None = None,
              hint: str = "", prefer: list[str] | None = None, names: list[str] | None = None,
              avoid: set[tuple[str, str]] | None = None) -> Match | None:
    """The mark best named ``label``: exact, then prefix, then fuzzy; ties go to marks whose context
    (their table row, dialog or form) holds one of ``names`` (the goal's resources: the row of the
    disk the goal names, not the first row), then to marks not in ``avoid`` (name and context of fields
    an earlier step set: the vSwitch's "IPv4 CIDR block" is not the VPC's), then to enabled, visible marks
    whose context shares words with ``hint``, then to ``prefer``red roles, then to document order."""
    hint_words = set(normalize(hint).split())
    # Whole names only ("legacy-crm" is not in the row of "legacy-crm-b"); the goal's first name weighs most.
    wanted = [(whole_name(n), len(names or []) - i) for i, n in enumerate(names or [])]
    best: tuple[tuple[float, ...], Match] | None = None
    for order, mark in enumerate(marks):
        if (roles is not None and mark.role not in roles) or (exclude and mark.role in exclude):
            continue
        names = [mark.name] + ([mark.placeholder] if mark.placeholder and mark.role in FIELD_ROLES else [])
        graded = [g for g in (_name_quality(label, n) for n in names if n) if g]
        if not graded:
            continue
        quality, score = max(graded, key=lambda g: g[1])
        context = len(hint_words & set(normalize(mark.context).split())) if hint_words else 0
        role_rank = (len(prefer) - prefer.index(mark.role)) if prefer and mark.role in prefer else 0
        named = sum(weight for pattern, weight in wanted if pattern.search(mark.context.casefold())) if wanted else 0
        fresh = not avoid or (mark.name, mark.context) not in avoid
        key = (score, named, fresh, "disabled" not in mark.states, mark.in_viewport, context, role_rank, -order)
        if best is None or key > best[0]:
            best = (key, Match(mark, quality, score))  # type: ignore[arg-type]
    return best[1] if best else None
