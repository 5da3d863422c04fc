"""The action table in the two other shapes a model needs: JSON tool schemas for function-calling
models, and a plain-text list for a system prompt. Both are generated from ``ACTIONS``, and tool
calls are validated by the parser's own rules (:func:`build_action`), so no form can drift.
"""

from __future__ import annotations

import json
from typing import Any

from consoleagent.actions.parser import (
    BOUNDS,
    MAX_TEXT_LENGTH,
    MAY_BE_BLANK,
    ActionParseError,
    clip,
    build_action,
)
from consoleagent.actions.spec import ACTIONS, DISCREPANCY_KINDS, SCROLL_DIRECTIONS, Action, ActionSpec, Param

# The longest argument text worth reading: report_discrepancy's three strings at MAX_TEXT_LENGTH
# characters, each written as six-character \uXXXX escapes, fit with room to spare.
MAX_ARGUMENTS_LENGTH = 64_000


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI function-calling tool definitions, one per action, in table order."""
    return [tool_schema(spec) for spec in ACTIONS.values()]


def tool_schema(spec: ActionSpec) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {p.name: _param_schema(spec, p) for p in spec.params},
        "required": [p.name for p in spec.params if not p.optional],
        "additionalProperties": False,
    }
    description = spec.description + (" Ends the episode." if spec.ends_episode else "")
    return {"type": "function", "function": {"name": spec.name, "description": description, "parameters": parameters}}


def _param_schema(spec: ActionSpec, param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"description": param.description}
    if param.type in ("id", "int", "number"):
        schema["type"] = "number" if param.type == "number" else "integer"
        low, high = BOUNDS.get((spec.name, param.name)) or BOUNDS.get(param.type) or (None, None)
        if low is not None:
            schema["minimum"] = low
        if high is not None:
            schema["maximum"] = high
    elif param.type == "direction":
        schema.update(type="string", enum=list(SCROLL_DIRECTIONS))
    elif param.type == "kind":
        schema.update(type="string", enum=list(DISCREPANCY_KINDS))
    else:
        schema.update(type="string", maxLength=MAX_TEXT_LENGTH)
        if (spec.name, param.name) not in MAY_BE_BLANK:
            schema["pattern"] = r"\S"  # not blank
    return schema


def action_from_tool_call(name: str, arguments: str | dict[str, Any] | None) -> Action:
    """The :class:`Action` of one tool call; ``arguments`` is the JSON text the API returns, or a dict."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENTS_LENGTH:
            raise ActionParseError(f"the arguments of {clip(str(name), 40)} are {len(arguments)} characters long; "
                                   f"the limit is {MAX_ARGUMENTS_LENGTH}")
        try:
            arguments = json.loads(arguments)
        except RecursionError:  # json's decoder recurses once per bracket: '[' * 100000 exhausts the stack
            raise ActionParseError(f"the arguments of {clip(str(name), 40)} are nested too deeply to be an action's "
                                   "arguments; send one flat JSON object such as {\"id\": 12}") from None
        except ValueError as exc:
            raise ActionParseError(f"the arguments of {clip(str(name), 40)} are not valid JSON ({exc})") from None
    if not isinstance(arguments, dict):
        raise ActionParseError(f"the arguments of {name} must be a JSON object, got {type(arguments).__name__}")
    return build_action(str(name), (), arguments)


def describe_actions() -> str:
    """The action list for a system prompt: each signature, what it does, and its parameters."""
    blocks = []
    for spec in ACTIONS.values():
        lines = [f"{spec.signature()}: {spec.description}" + (" Ends the episode." if spec.ends_episode else "")]
        lines += [f"    {p.name}{' (optional)' if p.optional else ''}: {p.description}" for p in spec.params]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)
