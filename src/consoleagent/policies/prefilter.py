"""A lexical prefilter: which of a page's candidate actions are worth the encoder's time.

The ranker's cost is the encoder: every candidate text never seen before costs about 9 ms of one
CPU core, and a 250-element page has over 300 candidates, so the first step on a large page cost
2.9 s (BENCHMARKS.md, "Ranker"). Most of those candidates cannot be the next action: a table of 60
networks offers 60 "Select net-…" checkboxes and 120 row buttons, and only the rows that name the
goal's resource matter. This module scores each candidate with the exact signals the ranker's
features already compute without the encoder (the element's name is a bold label of the document
or appears in the goal, its value is the goal's or the one the document's table calls for, its
table row or dialog names the goal's resource, word overlap with the goal and with the best
document line, it sits in the open dialog) and keeps the best ``keep`` of them. Page actions
(scroll, back, wait) and ``task_complete`` are always kept; ties keep page order, so the result is
deterministic. Only the kept candidates are encoded and scored: the softmax is over them.

The head scores each candidate from its own row of features, independently of the others, so
dropping candidates never changes the score of a kept one: with the teacher's action kept, the
ranker's choice can only stay or improve. How often the teacher's action is kept (recall@K) is
measured on an oracle collection by ``bench/bench_prefilter.py`` and recorded in BENCHMARKS.md.
"""

from __future__ import annotations

import re
from typing import Any

from consoleagent.observation.types import Observation
from consoleagent.policies.candidates import Candidate

DEFAULT_KEEP = 32  # measured: see BENCHMARKS.md, "Ranker prefilter"

# Weights of the exact signals (``ranker_features._exact``'s names). Set by hand for what a person
# following the document looks at first; value_in_goal, value_expected and SIBLING_PENALTY were then
# picked from a small grid by recall@K on an oracle collection (BENCHMARKS.md, "Ranker prefilter").
WEIGHTS = {
    "bold_label": 3.0,  # "Click **Create VPC**": the document names this element
    "name_in_goal": 2.0,  # the goal names it ("delete the vSwitch vsw-web")
    "value_in_goal": 1.0,  # weak alone: a goal's name offered to every drop-down of the page
    "value_in_doc": 0.5,
    "value_already": -2.0,  # typing what the field already holds changes nothing
    "in_viewport": 0.3,
    "in_dialog": 1.0,  # an open dialog is where the next action usually is
    "dice_doc": 2.0,
    "dice_goal": 2.0,
    "value_expected": 3.0,  # the value the document's table calls for in this very field
    "value_shape": 0.5,
    "context_goal": 2.5,  # the table row or dialog names the goal's resource
    "context_doc": 1.0,
}
RESOURCE_VALUE = 1.5
ID_FITS_FIELD = 2.0
_ID_PREFIX = re.compile(r"^([a-z]{1,5})-[a-z0-9]{6,}$")


def id_fits_field(value: str, field_name: str) -> bool:
    """A resource id whose prefix abbreviates the field's name: ``vpc-…`` in "VPC", ``vsw-…`` in
    "vSwitch", ``ngw-…`` in "NAT gateway", ``i-…`` in "ECS instance" (the prefix's letters appear
    in order in the name, the first one starting a word): the id a drop-down of that kind lists."""
    match = _ID_PREFIX.match(value.casefold())
    words = field_name.casefold().split()
    if not match or not words:
        return False
    prefix, squashed = match.group(1), "".join(words)
    if not any(word.startswith(prefix[0]) for word in words):
        return False
    position = 0
    for letter in prefix:
        position = squashed.find(letter, position) + 1
        if position == 0:
            return False
    return True
DIALOG_BONUS = 5.0
SIBLING_PENALTY = 3.0


def lexical_scores(context: Any, observation: Observation, candidates: list[Candidate],
                   history: list[str] | None = None) -> list[float]:
    """One score per candidate from encoder-free signals (higher: more likely the next action).

    Two adjustments beyond the weighted signals: with a dialog open, its elements gain and the
    rest lose (a modal hides them; the next action is almost always in it), and the j-th best
    value candidate of one element (``type``/``select``) loses ``SIBLING_PENALTY * j``, so a text
    field's sixteen values or a drop-down's options cannot crowd a dialog's one "Create" button out."""
    from consoleagent.policies.candidates import resource_values
    from consoleagent.policies.ranker_features import SCALAR_FEATURES, _exact, _page_signals

    names = SCALAR_FEATURES[9:28]
    weights = [WEIGHTS.get(name, 0.0) for name in names]
    page = _page_signals(context, observation, list(history or []), len(history or []))
    dialog_open = page["dialog_open"] > 0
    prepared = {v.casefold() for v in resource_values(observation.resource_report)}
    raw = []
    for candidate in candidates:
        score = sum(w * s for w, s in zip(weights, _exact(context, candidate, page)))
        if candidate.value is not None and candidate.value.casefold() in prepared:
            score += RESOURCE_VALUE  # an id of a resource prepared for the task (searching for it)
        if candidate.value is not None and candidate.mark is not None and id_fits_field(candidate.value,
                                                                                         candidate.mark.name):
            score += ID_FITS_FIELD
        if dialog_open and candidate.mark is not None:
            score += DIALOG_BONUS if "dialog" in candidate.mark.context else -DIALOG_BONUS
        raw.append(score)
    by_element: dict[int, list[int]] = {}
    for i, candidate in enumerate(candidates):
        if candidate.mark is not None and candidate.value is not None:
            by_element.setdefault(candidate.mark.id, []).append(i)
    scores = list(raw)
    for members in by_element.values():
        for j, i in enumerate(sorted(members, key=lambda i: (-raw[i], i))):
            scores[i] = raw[i] - SIBLING_PENALTY * j
    return scores


def prefilter(context: Any, observation: Observation, candidates: list[Candidate], keep: int,
              history: list[str] | None = None) -> list[int]:
    """Indices (in page order) of the candidates to score: the ``keep`` best element actions by
    ``lexical_scores`` plus every page action and ``task_complete``. ``keep <= 0`` keeps all."""
    element = [i for i, c in enumerate(candidates) if c.mark is not None]
    if keep <= 0 or len(element) <= keep:
        return list(range(len(candidates)))
    scores = lexical_scores(context, observation, [candidates[i] for i in element], history)
    best = sorted(range(len(element)), key=lambda j: (-scores[j], j))[:keep]
    kept = {element[j] for j in best} | {i for i, c in enumerate(candidates) if c.mark is None}
    return sorted(kept)


def label_rank(context: Any, observation: Observation, candidates: list[Candidate], label: int,
               history: list[str] | None = None) -> int:
    """The rank (0 = best) the prefilter gives candidate ``label`` among the element actions; -1
    for a page action or ``task_complete`` (always kept). What recall@K is computed from."""
    if candidates[label].mark is None:
        return -1
    element = [i for i, c in enumerate(candidates) if c.mark is not None]
    scores = lexical_scores(context, observation, [candidates[i] for i in element], history)
    order = sorted(range(len(element)), key=lambda j: (-scores[j], j))
    return order.index(element.index(label))
