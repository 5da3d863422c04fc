"""The oracle's solution of a task, as written in the task file (``oracle:``).

Steps name elements the way a person reads the console, by role and accessible name (with the
text of the element's row or dialog to tell equal names apart), never by an element id from some
earlier run. The oracle policy turns each step into an action of the ordinary action language
against the current observation, so it is held to the same interface as any agent.

    oracle:
      - goto: /vpc/vpcs
      - click: {role: link, name: Create VPC}
      - type: {role: textbox, name: Name}
        text: web-vpc
      - select: {role: combobox, name: Zone}
        option: Hangzhou Zone B
      - click: {role: button, name: Stop, context: "${web.instance_id}"}
      - wait_until: {text: Stopped, context: "${web.instance_id}"}
        timeout_s: 90
      - report_discrepancy: {step: 4, kind: label_changed, expected: Create VPC, observed: Create a VPC}
      - task_complete: created the VPC
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from consoleagent.actions.spec import DISCREPANCY_KINDS

ELEMENT_STEPS = {"click": None, "dblclick": None, "hover": None, "check": None, "uncheck": None,
                 "type": "text", "select": "option", "upload": "path"}
PAGE_STEPS = {"goto": str, "press": str, "scroll": str, "wait": (int, float),
              "task_complete": str, "task_unachievable": str}
TARGET_FIELDS = {"role", "name", "name_contains", "context", "nth"}


@dataclass(frozen=True)
class ElementTarget:
    role: str
    name: str | None = None
    name_contains: str | None = None
    context: str | None = None
    nth: int = 0

    def describe(self) -> str:
        name = f"named {self.name!r}" if self.name is not None else f"whose name contains {self.name_contains!r}"
        context = f" in {self.context!r}" if self.context else ""
        return f"{self.role} {name}{context}" + (f" (#{self.nth + 1})" if self.nth else "")


@dataclass(frozen=True)
class OracleStep:
    """One step: ``kind`` is an action name or ``wait_until``; ``value`` its text argument."""

    kind: str
    target: ElementTarget | None = None
    value: Any = None
    timeout_s: float = 60.0
    until_text: str | None = None  # wait_until: text that must appear (in ``target.context`` rows if given)
    until_gone: bool = False  # wait_until ... absent: the text must disappear instead
    discrepancy: dict[str, Any] | None = None


class OracleStepError(ValueError):
    pass


def parse_oracle_steps(raw: Any) -> list[OracleStep]:
    if not isinstance(raw, list) or not raw:
        raise OracleStepError("oracle: a non-empty list of steps")
    return [_parse_step(item, index) for index, item in enumerate(raw)]


def _parse_step(item: Any, index: int) -> OracleStep:
    where = f"oracle[{index}]"
    if not isinstance(item, dict) or not item:
        raise OracleStepError(f"{where}: a step is a mapping such as {{click: {{role: button, name: OK}}}}")
    kinds = [k for k in item if k in ELEMENT_STEPS or k in PAGE_STEPS or k in ("wait_until", "report_discrepancy")]
    if len(kinds) != 1:
        raise OracleStepError(f"{where}: exactly one of {', '.join([*ELEMENT_STEPS, *PAGE_STEPS, 'wait_until', 'report_discrepancy'])}"
                              f" per step (got {', '.join(map(str, item)) or 'none'})")
    kind = kinds[0]
    rest = {k: v for k, v in item.items() if k != kind}
    if kind in ELEMENT_STEPS:
        return _element_step(where, kind, item[kind], rest)
    if kind == "wait_until":
        return _wait_until(where, item[kind], rest)
    if kind == "report_discrepancy":
        return _discrepancy(where, item[kind], rest)
    _no_extra(where, rest)
    if not isinstance(item[kind], PAGE_STEPS[kind]):
        raise OracleStepError(f"{where}.{kind}: expected {'a number' if kind == 'wait' else 'a string'}")
    return OracleStep(kind, value=item[kind])


def _element_step(where: str, kind: str, target: Any, rest: dict[str, Any]) -> OracleStep:
    argument = ELEMENT_STEPS[kind]
    value = None
    if argument is not None:
        if argument not in rest:
            raise OracleStepError(f"{where}: a {kind} step needs '{argument}:' beside its target")
        value = rest.pop(argument)
        if not isinstance(value, (str, int, float)):
            raise OracleStepError(f"{where}.{argument}: expected a string")
        value = str(value)
    timeout = rest.pop("timeout_s", 10.0)
    _no_extra(where, rest)
    return OracleStep(kind, _target(f"{where}.{kind}", target), value, float(timeout))


def _wait_until(where: str, spec: Any, rest: dict[str, Any]) -> OracleStep:
    if not isinstance(spec, dict) or ("text" in spec) == ("absent" in spec):
        raise OracleStepError(f"{where}.wait_until: a mapping with 'text:' (appears) or 'absent:' (disappears)")
    unknown = set(spec) - {"text", "absent", "context"}
    if unknown:
        raise OracleStepError(f"{where}.wait_until: unknown field(s) {', '.join(sorted(unknown))}")
    timeout = rest.pop("timeout_s", 60.0)
    _no_extra(where, rest)
    context = spec.get("context")
    target = ElementTarget(role="row", context=str(context)) if context is not None else None
    text = spec.get("text", spec.get("absent"))
    return OracleStep("wait_until", target, None, float(timeout), str(text), "absent" in spec)


def _discrepancy(where: str, spec: Any, rest: dict[str, Any]) -> OracleStep:
    _no_extra(where, rest)
    if not isinstance(spec, dict) or set(spec) != {"step", "kind", "expected", "observed"}:
        raise OracleStepError(f"{where}.report_discrepancy: needs exactly step, kind, expected, observed")
    if spec["kind"] not in DISCREPANCY_KINDS:
        raise OracleStepError(f"{where}.report_discrepancy.kind: {spec['kind']!r} is not one of {', '.join(DISCREPANCY_KINDS)}")
    return OracleStep("report_discrepancy", discrepancy=dict(spec))


def _target(where: str, raw: Any) -> ElementTarget:
    if not isinstance(raw, dict) or "role" not in raw or ("name" in raw) == ("name_contains" in raw):
        raise OracleStepError(f"{where}: a target is {{role: ..., name: ...}} (or name_contains), optionally context and nth")
    unknown = set(raw) - TARGET_FIELDS
    if unknown:
        raise OracleStepError(f"{where}: unknown target field(s) {', '.join(sorted(unknown))}")
    return ElementTarget(role=str(raw["role"]), name=None if raw.get("name") is None else str(raw["name"]),
                  name_contains=None if raw.get("name_contains") is None else str(raw["name_contains"]),
                  context=None if raw.get("context") is None else str(raw["context"]), nth=int(raw.get("nth", 0)))


def _no_extra(where: str, rest: dict[str, Any]) -> None:
    if rest:
        raise OracleStepError(f"{where}: unknown field(s) {', '.join(map(str, rest))}")
