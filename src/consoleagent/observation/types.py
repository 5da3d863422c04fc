"""Observation records. Plain data, so they serialise into trajectories and training samples."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

OPTIONS_HEADING = "Drop-down options"  # the rendered observation's section listing what each native drop-down offers
OPTIONS_SHOWN = 20  # options of one drop-down written into that section; more are counted


def options_line(mark: "Mark") -> str:
    """``[66] "Instance": "Select an instance", "media-01 (i-97…)"``; ``none`` for a list that offers nothing."""
    options = mark.options or []
    shown = ", ".join('"' + o.replace('"', "'") + '"' for o in options[:OPTIONS_SHOWN]) or "none"
    more = f" and {len(options) - OPTIONS_SHOWN} more" if len(options) > OPTIONS_SHOWN else ""
    return f'[{mark.id}] "{mark.name}": {shown}{more}'


def names_option(option: str, label: str, value: str) -> bool:
    """Whether ``select(id, option)`` means the option with this label and value: either, whitespace at the ends and
    case aside (the executor's test on the page, and ``Mark.offers``'s on the options a mark lists)."""
    return option.strip().casefold() in (label.casefold(), value.casefold())


STATES = ("disabled", "checked", "expanded", "collapsed", "selected", "required", "invalid", "readonly", "multiline", "focused")


@dataclass
class Mark:
    """One interactive element, numbered for this step only."""

    id: int
    role: str  # button, link, textbox, combobox, checkbox, radio, switch, tab, menuitem, option, ...
    name: str  # accessible name, computed like assistive technology does
    tag: str = ""
    value: str | None = None
    placeholder: str | None = None
    states: list[str] = field(default_factory=list)
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x, y, width, height in CSS pixels
    in_viewport: bool = True
    frame: str = ""  # "" for the top document, else a path of iframe selectors
    context: str = ""  # the dialog/form/table row it belongs to, as a person would describe it
    level: int = 0  # depth in a tree (1 = top), for tree items and their expand controls; 0 elsewhere
    options: list[str] | None = None  # a native drop-down's enabled options' labels (at most 50); None: not one
    option_values: list[str] | None = None  # their values, in the same order (a select may name either)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("options", "option_values"):
            if data[key] is None:  # most marks: records stay as they were before drop-downs listed their options
                del data[key]
        return data

    def listed(self) -> list[tuple[str, str | None]]:
        """The listed options as (label, value) pairs in page order; a value is None where none was recorded.
        The one place labels and values are paired, for ``offers``, ``option_value`` and the ranker's choices."""
        labels = self.options or []
        values: list[str | None] = list(self.option_values or [])
        return list(zip(labels, values + [None] * (len(labels) - len(values)), strict=False))

    def offers(self, option: str) -> bool:
        """Whether selecting ``option`` would be taken: it is one of the listed options' labels or values, case
        aside, as the executor matches it. True when the options are not known."""
        if self.options is None:
            return True
        return any(names_option(option, label, value or "") for label, value in self.listed())

    def option_value(self, label: str) -> str | None:
        """The value of the listed option with this label, or None."""
        return next((value for shown, value in self.listed() if shown.casefold() == label.strip().casefold()), None)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Mark":
        data = dict(data)
        data["bbox"] = tuple(data.get("bbox") or (0, 0, 0, 0))
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


@dataclass
class HistoryEntry:
    step: int
    action: str
    result: str  # "ok" or the error a person would have seen


@dataclass
class Observation:
    """Everything the policy sees at one step."""

    url: str
    title: str
    text: str  # the page outline with [id] marks
    marks: list[Mark] = field(default_factory=list)
    screenshot: bytes | None = None  # PNG with numbered boxes, when asked for
    goal: str = ""
    document: list[str] = field(default_factory=list)  # the procedure's steps, numbered from 1
    related: dict[str, list[str]] = field(default_factory=dict)  # the procedures the document refers to, by title
    alternatives: list[str] = field(default_factory=list)  # of those, the ones it cites as another way ("instead")
    document_step: int | None = None
    history: list[HistoryEntry] = field(default_factory=list)
    last_error: str | None = None
    resource_report: str | None = None
    step: int = 0

    def mark(self, mark_id: int) -> Mark | None:
        return next((m for m in self.marks if m.id == mark_id), None)

    def render(self, history_limit: int = 12) -> str:
        """The observation as one text block for a language model (the same for prompting and training)."""
        parts = [f"## Goal\n{self.goal}"] if self.goal else []
        if self.document:
            steps = "\n".join(f"{i}. {s}" for i, s in enumerate(self.document, 1))
            parts.append(f"## Document\n{steps}")
            if self.document_step:
                parts.append(f"## Current document step\n{self.document_step}. {self.document[self.document_step - 1]}"
                             if 0 < self.document_step <= len(self.document) else f"## Current document step\n{self.document_step}")
        if self.resource_report:
            parts.append(f"## Resources prepared for you\n{self.resource_report}")
        if self.history:
            shown = self.history[-history_limit:]
            lines = [f"{h.step}. {h.action} -> {h.result}" for h in shown]
            parts.append("## Previous actions\n" + "\n".join(lines))
        if self.last_error:
            parts.append(f"## Error from your last action\n{self.last_error}")
        lists = [m for m in self.marks if m.options is not None]
        if lists:
            parts.append(f"## {OPTIONS_HEADING}\n" + "\n".join(options_line(m) for m in lists))
        parts.append(f"## Page\nURL: {self.url}\nTitle: {self.title}\n{self.text}")
        return "\n\n".join(parts)

    def to_dict(self, include_screenshot: bool = False) -> dict[str, Any]:
        data = asdict(self)
        data["marks"] = [m.to_dict() for m in self.marks]
        if not include_screenshot:
            data.pop("screenshot")
        return data


_SECTION = re.compile(r"^## (?P<title>.+)$", re.M)


def rendered_sections(rendered: str) -> dict[str, str]:
    """The ``## Title`` sections of a rendered observation (``Observation.render``): what a recorded step
    saw, read back (its page, its prepared resources, its last error)."""
    found = list(_SECTION.finditer(rendered or ""))
    return {m.group("title"): rendered[m.end():(found[i + 1].start() if i + 1 < len(found) else len(rendered))].strip()
            for i, m in enumerate(found)}
