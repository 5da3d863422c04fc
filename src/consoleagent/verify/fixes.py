"""Propose a text fix for a discrepancy, grounded in what the agent observed.

A defect report that only says "step 3 is wrong" leaves the writer to rediscover the console; one
that says "click **Create ECS Instance**" can be accepted as is. Every proposal here is built from
the document's own step text and the names the agent met in the console (the element it clicked in
the label's place, the menu path it took, the value it had to enter), never from a template alone,
and it says in ``rationale`` what grounds it. When nothing observed grounds a fix, there is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from consoleagent.documents.procedure import Step, bold_labels, split_row, strip_markup
from consoleagent.documents.labels import normalize
from consoleagent.observation.roles import FIELD_ROLES
from consoleagent.verify.align import AlignmentContext, action_value, clean_name, mentioned
from consoleagent.verify.align import label_in
from consoleagent.verify.model import Discrepancy, Fix

NAVIGATION_ROLES = {"link", "button", "menuitem", "treeitem", "tab"}
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?](?=\s|$)|$)")


@dataclass
class Observed:
    """What the agent did at one document step: the elements it clicked and the values it gave."""

    clicks: list[str] = field(default_factory=list)  # accessible names, in order (count badges removed)
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (field, value)


def observed_for(context: AlignmentContext, number: int) -> Observed:
    observed = Observed()
    for action in context.of_step(number):
        mark = action.element
        if mark is None or not action.ok:
            continue
        if action.name == "click" and mark.get("role") in NAVIGATION_ROLES:
            name = clean_name(mark.get("name") or "")
            if mentioned(name, context.goal_words) and not mentioned(name, context.words):
                continue  # a resource of this run ("web-01"), not something a document can name
            observed.clicks.append(name)
        elif action.name in ("type", "select", "check", "uncheck") and mark.get("role") in FIELD_ROLES:
            observed.inputs.append((clean_name(mark.get("name") or ""), action_value(action)))
    return observed


# --- editing the step text ------------------------------------------------------------------------


def replace_bold(text: str, old: str, new: str) -> str | None:
    """``text`` with the bold label ``**old**`` (case and spacing aside) written ``**new**``; None if absent."""
    pattern = re.compile(r"\*\*\s*" + r"\s+".join(re.escape(w) for w in old.split()) + r"\s*\*\*", re.I)
    if not old.strip() or not pattern.search(text):
        return None
    return pattern.sub(lambda _m: f"**{new}**", text)


def sentence_naming(text: str, label: str) -> str | None:
    """The sentence of ``text`` that names ``label`` in bold; in a parameter table, the row whose first cell does."""
    want = normalize(label)
    for line in text.split("\n"):
        cells = split_row(line) if line.strip().startswith("|") else []
        if cells and normalize(strip_markup(cells[0])) == want:
            return line
    for match in _SENTENCE.finditer(text):
        if match.group(0).lstrip().startswith("|"):
            continue
        sentence = match.group(0).strip()
        if sentence and any(normalize(b) == want for b in bold_labels(sentence)):
            return sentence
    return None


def step_label_in(step: Step, text: str) -> str:
    """The step's own bold label that a report's free text names ("More > Resize in the disk's row" →
    Resize), the longest when several; else the quoted or whole text."""
    said = f" {normalize(text)} "
    labels = [label for label in step.ui_labels + [t for table in step.tables for t in _row_names(table)]
              if normalize(label) and f" {normalize(label)} " in said]
    return max(labels, key=len) if labels else label_in(text).split(" > ")[-1].strip()


def _row_names(table: object) -> list[str]:
    return [strip_markup(row[0]) for row in getattr(table, "rows", []) if row]


def _path_text(path: list[str]) -> str:
    return " > ".join(f"**{label}**" for label in path)


# --- one proposal per kind ---------------------------------------------------------------------------


def propose_fix(step: Step, discrepancy: Discrepancy, observed: Observed | None,
                run_names: frozenset[str] = frozenset()) -> Fix | None:
    """The step rewritten to the console as observed, or None when nothing observed grounds a rewrite.

    ``run_names`` are the names and ids of what the test provisioned (``meta-warehouse``): a fix that
    would write one into the document is no fix (the reader's resources have other names)."""
    observed = observed or Observed()
    original = step.full_text()
    make = _MAKERS.get(discrepancy.kind)
    fix = make(original, step, discrepancy, observed) if make else None
    if fix is not None and names_a_run_resource(fix.proposed, original, run_names):
        return None
    return fix


def names_a_run_resource(proposed: str, original: str, run_names: frozenset[str]) -> bool:
    """Whether ``proposed`` brings in a provisioned resource's name that the document did not have."""
    new_text, old_text = proposed.casefold(), original.casefold()
    return any(name in new_text and name not in old_text for name in run_names)


def _label_changed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    old, new = step_label_in(step, d.expected), clean_name(label_in(d.observed))
    if not new or normalize(new) == normalize(old) or normalize(new).startswith("no element"):
        return None
    proposed = replace_bold(original, old, new)
    if proposed is None:
        proposed = f"{original}\n> Note: The console now labels {old!r} as **{new}**."
    return Fix(original=original, proposed=proposed,
               rationale=f"the console shows {new!r} where the step says {old!r}"
                         + (f" (agent step {d.evidence.agent_step})" if d.evidence.agent_step else ""))


def _navigation_changed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    """The documented menu path replaced by the one observed: the report's "A > B" when it gives one (the
    agent saw the groups), else the elements the agent clicked at the step."""
    reported = [label_in(part).strip() for part in label_in(d.observed).split(">") if part.strip()]
    clicked = [c for c in observed.clicks if c]
    taken, how = ((reported, "the console shows the path") if len(reported) >= 2
                  else (clicked, "the agent reached the page by clicking"))
    if not taken:
        return None
    rationale = f"{how} {' > '.join(taken)}"
    for path in step.navigation:
        if [normalize(c) for c in taken[-len(path):]] == [normalize(p) for p in path]:
            return None  # the documented path after all
        old = _path_text(path)
        if old in original:
            return Fix(original=original, proposed=original.replace(old, _path_text(taken), 1), rationale=rationale)
    return Fix(original=original, proposed=f"{original}\n> Note: The page is now reached by {_path_text(taken)}.",
               rationale=rationale)


def _element_removed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    label = step_label_in(step, d.expected)
    sentence = sentence_naming(original, label)
    instead = [c for c in observed.clicks if normalize(c) != normalize(label)]
    if sentence is None:
        return None
    if instead:
        replacement = f"Click {_path_text(instead)}."
        return Fix(original=original, proposed=original.replace(sentence, replacement, 1),
                   rationale=f"{label!r} is gone; the agent clicked {' > '.join(instead)} instead")
    # Nothing observed in its place: the agent not finding an element is no evidence that the step should
    # go (the element may be renamed or moved), so no text is proposed.
    return None


def _field_added_required(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    said = f" {normalize(d.observed)} {normalize(d.expected)} "
    named = sorted((f for f, _ in observed.inputs if normalize(f) and f" {normalize(f)} " in said), key=len, reverse=True)
    name = named[0] if named else re.sub(r"\s*\((?:required|optional)\)\s*$", "", label_in(d.observed), flags=re.I).strip()
    value = next((v for f, v in observed.inputs if normalize(f) == normalize(name)), None)
    if not name or len(name.split()) > 6 or normalize(name).startswith("no "):
        return None
    if replace_bold(original, name, name) is not None:  # the step names it (as optional): say it is required
        proposed = f"{original}\n> Note: **{name}** is now required" + (f", for example **{value}**." if value else ".")
    else:
        proposed = f"{original}\nEnter the **{name}** (required)" + (f", for example **{value}**." if value else ".")
    return Fix(original=original, proposed=proposed,
               rationale=f"the console requires {name!r}" + (f"; the agent entered {value!r}" if value else ""))


def _default_changed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    name = _field_value(d.expected)[0] or _field_value(d.observed)[0] or _row_named(step, f"{d.expected} {d.observed}")
    old, new = _bare_value(d.expected, name), _bare_value(d.observed, name)
    name = name or _field_with_default(step, old)
    if not new:
        return None
    subject = f"The default of **{name}**" if name else "The default"
    proposed = f"{original}\n> Note: {subject} is now **{new}**" + (f" (it was {old})." if old else ".")
    return Fix(original=original, proposed=proposed, rationale=f"the form showed {new!r} before the agent changed it")


def _row_named(step: Step, text: str) -> str:
    """The parameter-table field that a report's text names."""
    said = f" {normalize(text)} "
    names = [n for table in step.tables for n in _row_names(table) if normalize(n) and f" {normalize(n)} " in said]
    return max(names, key=len) if names else ""


_FILLER = {"default", "defaults", "is", "now", "value", "the", "to", "of", "set", "was"}


def _bare_value(text: str, name: str) -> str:
    """The value in "Peak bandwidth default 1" / "Peak bandwidth: 1" / "1": the text without the field's
    name and filler words."""
    value = _field_value(text)[1] if _field_value(text)[0] else label_in(text)
    if name:
        value = re.sub(re.escape(name), " ", value, flags=re.I)
    words = [w for w in value.replace(":", " ").split() if w.casefold() not in _FILLER]
    return " ".join(words).strip() or label_in(text).strip()


def _field_with_default(step: Step, default: str) -> str:
    """The parameter-table row of the step whose description names ``default`` as its default."""
    for table in step.tables:
        for row in table.rows:
            description = " ".join(row[1:2])
            if default and "default" in description.casefold() and normalize(default) in normalize(description):
                return strip_markup(row[0])
    return ""


def _field_value(text: str) -> tuple[str, str]:
    """``"Peak bandwidth: 1"`` → ("Peak bandwidth", "1"); a bare value → ("", value)."""
    text = label_in(text)
    name, sep, value = text.partition(": ")
    return (name.strip(), value.strip()) if sep else ("", text.strip())


def _step_order_changed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    expected, seen = label_in(d.expected), label_in(d.observed)
    if not seen:
        return None
    proposed = (f"{original}\n> Note: The console now shows **{seen}** at this point"
                + (f", before **{expected}**" if expected else "") + "; follow the steps in the order the console shows them.")
    return Fix(original=original, proposed=proposed, rationale=f"the agent met {seen!r} where the step expects {expected!r}")


def _feature_removed(original: str, step: Step, d: Discrepancy, observed: Observed) -> Fix | None:
    why = strip_markup(d.observed) or "the console no longer offers it"
    proposed = f"> Note: This procedure can no longer be done in the console: {why}"
    return Fix(original=original, proposed=proposed, rationale=f"the agent found: {why}")


_MAKERS = {
    "label_changed": _label_changed,
    "navigation_changed": _navigation_changed,
    "element_removed": _element_removed,
    "field_added_required": _field_added_required,
    "default_changed": _default_changed,
    "step_order_changed": _step_order_changed,
    "feature_removed": _feature_removed,
}
