"""The definitions of every action: one table from which the parser, the JSON tool schemas, the
system prompt and the executor all read, so they can never disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

ParamType = Literal["id", "str", "int", "number", "direction", "kind"]
SCROLL_DIRECTIONS = ("up", "down", "left", "right")
# The one list of discrepancy kinds: a console release changelog's kinds, plus what only an outcome can show.
# An agent reports these (report_discrepancy); verification adds env_error, which only the environment shows.
ReportedKind = Literal["label_changed", "element_removed", "navigation_changed", "step_order_changed",
                       "field_added_required", "default_changed", "feature_removed", "outcome_mismatch"]
DISCREPANCY_KINDS: tuple[str, ...] = get_args(ReportedKind)


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    description: str
    optional: bool = False


@dataclass(frozen=True)
class ActionSpec:
    name: str
    params: tuple[Param, ...]
    description: str
    category: Literal["element", "page", "control"]
    ends_episode: bool = False

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if not p.optional)

    def signature(self) -> str:
        parts = [f"{p.name}?" if p.optional else p.name for p in self.params]
        return f"{self.name}({', '.join(parts)})"


def _spec(name: str, params: list[Param], description: str, category: str, ends: bool = False) -> ActionSpec:
    return ActionSpec(name, tuple(params), description, category, ends)  # type: ignore[arg-type]


ID = Param("id", "id", "the number in brackets of a marked element in the current observation")

ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in [
    _spec("click", [ID], "Click an element.", "element"),
    _spec("type", [ID, Param("text", "str", "the text to enter; replaces the field's content")],
          "Type text into an input or text area.", "element"),
    _spec("select", [ID, Param("option", "str", "the visible label (or value) of the option")],
          "Choose an option of a select element.", "element"),
    _spec("check", [ID], "Tick a checkbox, radio button or switch (no-op if already on).", "element"),
    _spec("uncheck", [ID], "Clear a checkbox or switch (no-op if already off).", "element"),
    _spec("hover", [ID], "Move the mouse over an element (tooltips, menus).", "element"),
    _spec("dblclick", [ID], "Double-click an element (open a tree node, edit a grid cell).", "element"),
    _spec("upload", [ID, Param("path", "str", "path of a file in the task's upload folder")],
          "Choose a file for a file input.", "element"),
    _spec("scroll", [Param("direction", "direction", "up, down, left or right"),
                     Param("id", "id", "scroll inside this element instead of the page", optional=True)],
          "Scroll the page (or one scrollable element) by about one screen.", "page"),
    _spec("press", [Param("key", "str", "a key or chord such as Enter, Escape, Tab, Control+A")],
          "Press a key in the focused element.", "page"),
    _spec("goto", [Param("url", "str", "an absolute URL or a path of the console such as /ecs/instances")],
          "Open a URL.", "page"),
    _spec("back", [], "Go back to the previous page.", "page"),
    _spec("wait", [Param("seconds", "number", "how long to wait, at most 30")],
          "Wait for something to finish (a resource to change state, a page to load).", "page"),
    _spec("request_resource", [Param("description", "str", "the resource that is missing, e.g. 'a VPC with one vSwitch in zone b'")],
          "Ask the provisioner to create a prerequisite resource the task needs but the account lacks.", "control"),
    _spec("report_discrepancy", [Param("step", "int", "the number of the document step"),
                                 Param("kind", "kind", "one of " + ", ".join(DISCREPANCY_KINDS)),
                                 Param("expected", "str", "what the document says"),
                                 Param("observed", "str", "what the console shows instead")],
          "Record that the console differs from the document at a step; then carry on if the goal is still reachable.",
          "control"),
    _spec("task_complete", [Param("answer", "str", "a short summary of what was done", optional=True)],
          "Declare the goal reached.", "control", ends=True),
    _spec("task_unachievable", [Param("reason", "str", "why the goal cannot be reached in this console")],
          "Declare the goal impossible in this console.", "control", ends=True),
]}


@dataclass(frozen=True)
class Action:
    """One parsed action. ``str(action)`` is its canonical DSL text (``type(7, "web-01")``)."""

    name: str
    args: tuple[Any, ...] = field(default_factory=tuple)

    @property
    def spec(self) -> ActionSpec:
        return ACTIONS[self.name]

    @property
    def ends_episode(self) -> bool:
        return self.spec.ends_episode

    @property
    def element_id(self) -> int | None:
        """The marked element this action targets, if any."""
        for param, value in zip(self.spec.params, self.args):
            if param.type == "id":
                return int(value)
        return None

    def arg(self, name: str, default: Any = None) -> Any:
        for param, value in zip(self.spec.params, self.args):
            if param.name == name:
                return value
        return default

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": {p.name: v for p, v in zip(self.spec.params, self.args)}}

    def __str__(self) -> str:
        return f"{self.name}({', '.join(json.dumps(a, ensure_ascii=False) if isinstance(a, str) else repr(a) for a in self.args)})"
