"""Parse action text (``click(12)``, ``type(7, "web-01")``) into an :class:`Action`, safely.

The text comes from a language model, so it is untrusted: it is read with :mod:`ast` and only a
single call of a whitelisted action with literal arguments is accepted. Nothing is ever evaluated.
Every rejection is an :class:`ActionParseError` whose message is written for the agent, since the
environment shows it verbatim in the next observation: it says what was wrong and how to write it.

:func:`build_action` holds the argument rules (binding, types, bounds, lengths). The JSON tool
calls of function-calling models go through it too (see :mod:`consoleagent.actions.schema`), so
the two ways of writing an action can never accept different things.
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import math
import re
import tokenize
from collections.abc import Mapping, Sequence
from typing import Any

from consoleagent.actions.spec import ACTIONS, DISCREPANCY_KINDS, SCROLL_DIRECTIONS, Action, ActionSpec, Param

MAX_TEXT_LENGTH = 2000  # characters in one string argument
MAX_ACTION_LENGTH = 10_000  # characters in the whole action text
# Element marks and document steps are small counters; a bound keeps 1e308 (a float whose integer
# value has 309 digits) or a 400-digit literal from reaching the browser layer as an "id".
MAX_ELEMENT_ID = 999_999
MAX_STEP = 9_999
# Inclusive (minimum, maximum) of numeric parameters; None is unbounded. Keys: (action, param) or param type.
BOUNDS: dict[tuple[str, str] | str, tuple[float | None, float | None]] = {
    "id": (0, MAX_ELEMENT_ID),
    "int": (0, MAX_STEP),
    ("report_discrepancy", "step"): (1, MAX_STEP),
    ("wait", "seconds"): (0, 30),
}
# String parameters that may be empty: typing "" clears a field. Every other string must say something.
MAY_BE_BLANK = {("type", "text")}
ACTION_LIST = ", ".join(ACTIONS)
EXAMPLE = 'click(12) or type(7, "web-01")'


class ActionParseError(ValueError):
    """The action text is not a valid action; the message tells the agent how to fix it."""


def parse_action(text: str) -> Action:
    """Parse one action call; raise :class:`ActionParseError` with an agent-readable message."""
    source = _clean(text)
    if not source:
        raise ActionParseError(f"empty action: write one call such as {EXAMPLE}")
    if len(source) > MAX_ACTION_LENGTH:
        raise ActionParseError(f"action too long ({len(source)} characters; the limit is {MAX_ACTION_LENGTH})")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, UnicodeError, MemoryError, RecursionError) as exc:
        raise ActionParseError(_diagnose_syntax(source, exc)) from None
    call = _single_call(tree.body)
    name = _action_name(call.func)
    positional = [_literal(name, node) for node in call.args]
    keywords: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise ActionParseError(f"{name}(): **arguments are not allowed; write the arguments out")
        if kw.arg in keywords:
            raise ActionParseError(f"{name}() got multiple values for argument '{kw.arg}'")
        keywords[kw.arg] = _literal(name, kw.value)
    return build_action(name, positional, keywords)


def build_action(name: str, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None) -> Action:
    """Bind and validate arguments for action ``name`` (the rules shared by the DSL and tool calls)."""
    spec = ACTIONS.get(name)
    if spec is None:
        raise ActionParseError(unknown_action_message(name))
    values = _bind(spec, list(positional), dict(keywords or {}))
    return Action(spec.name, tuple(_coerce(spec, p, v) for p, v in zip(spec.params, values)))


def unknown_action_message(name: str) -> str:
    close = difflib.get_close_matches(name.lower(), ACTIONS, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else "."
    return f"unknown action '{clip(name, 40)}'{hint} Actions: {ACTION_LIST}"


# --- reading the text ---------------------------------------------------------------------------


def _clean(text: str) -> str:
    """Drop what models wrap around a call: whitespace, backticks, a trailing semicolon."""
    source = str(text).strip()
    source = re.sub(r"^```[A-Za-z0-9_+-]*\s*\n?", "", source)
    source = source.strip().strip("`").strip()
    return source.rstrip(";").rstrip()


def _diagnose_syntax(source: str, exc: BaseException) -> str:
    message = str(getattr(exc, "msg", exc))
    if "unterminated" in message or "EOL while scanning" in message or "EOF while scanning" in message:
        return f"unterminated string: a quote is opened but never closed; write {EXAMPLE}"
    if "null bytes" in message or isinstance(exc, UnicodeError):
        return "the action contains characters that cannot appear in a call (null bytes or lone surrogates)"
    end = _call_end(source)
    if end is not None and source[end:].strip():
        return (f"unexpected text after the action: {clip(source[end:].strip(), 40)!r}; "
                "write exactly one call and nothing after it")
    if "was never closed" in message or "unexpected EOF" in message:
        return f"unbalanced parentheses: a '(' is never closed; write {EXAMPLE}"
    return f"not a valid action call ({message}); write one call such as {EXAMPLE}"


def _call_end(source: str) -> int | None:
    """The offset just after the parenthesis that closes the first call, found by tokenizing."""
    depth = 0
    lines = source.splitlines(keepends=True)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
                if depth == 0:
                    row, col = tok.end
                    return sum(len(line) for line in lines[:row - 1]) + col
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return None


def _single_call(node: ast.expr) -> ast.Call:
    if isinstance(node, ast.Call):
        return node
    if isinstance(node, ast.Name):
        if node.id in ACTIONS or node.id.lower() in ACTIONS:
            return_hint = f"{node.id.lower()}()" if not ACTIONS[node.id.lower()].params else f"{node.id.lower()}(...)"
            raise ActionParseError(f"missing parentheses: write {return_hint}, e.g. {EXAMPLE}")
        raise ActionParseError(f"expected an action call such as {EXAMPLE}, got {clip(node.id, 40)!r}")
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(isinstance(e, ast.Call) for e in node.elts):
        raise ActionParseError("write exactly one action per turn")
    if isinstance(node, ast.BoolOp) and any(isinstance(v, ast.Call) for v in node.values):
        raise ActionParseError("write exactly one action per turn")
    raise ActionParseError(f"expected a single action call such as {EXAMPLE}, got {_describe(node)}")


def _action_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        name = func.id
        if name in ACTIONS:
            return name
        if name.lower() in ACTIONS:  # Click(3): a case slip, not a guess
            return name.lower()
        raise ActionParseError(unknown_action_message(name))
    if isinstance(func, ast.Attribute):
        if func.attr in ACTIONS:
            raise ActionParseError(f"actions are plain names: write {func.attr}(...), not {clip(ast.unparse(func), 40)}(...)")
        raise ActionParseError(unknown_action_message(clip(ast.unparse(func), 40)))
    raise ActionParseError(f"expected an action name such as click, got {_describe(func)}")


def _literal(action: str, node: ast.expr) -> Any:
    """The value of one argument: a string or number literal, or a one-element list (``[12]``)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float)) or node.value is None:
            return node.value
        raise ActionParseError(f"{action}(): arguments must be numbers or quoted strings, got {_describe(node)}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:  # the bracket form models copy: click([12])
        return [_literal(action, node.elts[0])]
    if isinstance(node, ast.JoinedStr):
        raise ActionParseError(f"{action}(): f-strings are not allowed; write a plain quoted string")
    if isinstance(node, ast.Starred):
        raise ActionParseError(f"{action}(): *arguments are not allowed; write the arguments out")
    if isinstance(node, ast.Name):
        raise ActionParseError(f"{action}(): arguments must be numbers or quoted strings, got the name {clip(node.id, 40)}; "
                               f"if you meant the text, quote it: \"{clip(node.id, 40)}\"")
    if isinstance(node, ast.Call):
        raise ActionParseError(f"{action}(): nested calls are not allowed; write exactly one action with literal arguments")
    raise ActionParseError(f"{action}(): arguments must be numbers or quoted strings, got {_describe(node)}")


def _describe(node: ast.AST) -> str:
    kinds = {ast.Lambda: "a lambda", ast.ListComp: "a comprehension", ast.GeneratorExp: "a comprehension",
             ast.SetComp: "a comprehension", ast.DictComp: "a comprehension", ast.Attribute: "an attribute access",
             ast.BinOp: "an expression with an operator", ast.BoolOp: "an expression with an operator",
             ast.Compare: "a comparison", ast.Subscript: "a subscript", ast.Dict: "a dictionary"}
    try:
        text = clip(ast.unparse(node), 40)
    except (ValueError, RecursionError):
        text = type(node).__name__
    for kind, words in kinds.items():
        if isinstance(node, kind):
            return f"{words} ({text})"
    return text


# --- binding and checking arguments -------------------------------------------------------------


def _bind(spec: ActionSpec, positional: list[Any], keywords: dict[str, Any]) -> list[Any]:
    """Match arguments to parameters like a Python call; trailing omitted optionals are dropped."""
    params = spec.params
    if len(positional) > len(params):
        raise ActionParseError(_count_message(spec, len(positional) + len(keywords)))
    values: dict[str, Any] = {p.name: v for p, v in zip(params, positional)}
    names = [p.name for p in params]
    for key, value in keywords.items():
        if key not in names:
            listed = ", ".join(names) if names else "none"
            raise ActionParseError(f"{spec.name}() got an unexpected argument '{clip(str(key), 40)}'; its parameters are: {listed}")
        if key in values:
            raise ActionParseError(f"{spec.name}() got multiple values for argument '{key}'")
        values[key] = value
    for param in params:  # None stands for "not given", which only an optional parameter may be
        if values.get(param.name) is None:
            values.pop(param.name, None)
            if not param.optional:
                if keywords:
                    raise ActionParseError(f"{spec.signature()}: missing argument '{param.name}' ({param.description})")
                raise ActionParseError(_count_message(spec, len(positional)))
    bound = [values.get(p.name) for p in params]
    while bound and bound[-1] is None:
        bound.pop()
    if None in bound:
        missing = params[bound.index(None)].name
        raise ActionParseError(f"{spec.signature()}: give '{missing}' before the arguments after it")
    return bound


def _count_message(spec: ActionSpec, got: int) -> str:
    names = ", ".join(f"{p.name}?" if p.optional else p.name for p in spec.params)
    least, most = spec.min_args, len(spec.params)
    if most == 0:
        return f"{spec.name}() takes no arguments, got {got}"
    count = f"{least}" if least == most else f"{least} to {most}"
    plural = "argument" if most == 1 else "arguments"
    return f"{spec.name}() takes {count} {plural} ({names}), got {got}"


def _coerce(spec: ActionSpec, param: Param, value: Any) -> Any:
    """Check one value against its parameter's type and convert it (``"12"`` and ``[12]`` are id 12)."""
    where = f"{spec.signature()}: {param.name}"
    if param.type == "id":
        return _integer(spec, param, value, f"{where} must be the number of a marked element")
    if param.type == "int":
        return _integer(spec, param, value, f"{where} must be a whole number")
    if param.type == "number":
        return _number(spec, param, value, f"{where} must be a number")
    if param.type in ("direction", "kind"):
        choices = SCROLL_DIRECTIONS if param.type == "direction" else DISCREPANCY_KINDS
        text = value.strip().lower() if isinstance(value, str) else None
        if text not in choices:
            raise ActionParseError(f"{where} must be one of {', '.join(choices)}, got {_show(value)}")
        return text
    return _string(spec, param, value, where)


def _integer(spec: ActionSpec, param: Param, value: Any, message: str) -> int:
    raw = value
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, str) and re.fullmatch(r"\s*\[?\s*[+-]?\d{1,18}\s*\]?\s*", value):
        value = int(value.strip().strip("[]"))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ActionParseError(f"{message}, got {_show(raw)}")
    _check_bounds(spec, param, value, message)
    return value


def _number(spec: ActionSpec, param: Param, value: Any, message: str) -> float:
    raw = value
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ActionParseError(f"{message}, got {_show(raw)}") from None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ActionParseError(f"{message}, got {_show(raw)}")
    _check_bounds(spec, param, value, message)
    return float(value)


def _check_bounds(spec: ActionSpec, param: Param, value: float, message: str) -> None:
    low, high = BOUNDS.get((spec.name, param.name)) or BOUNDS.get(param.type) or (None, None)
    if param.type == "number" and low is not None and high is not None and not low <= value <= high:
        raise ActionParseError(f"{spec.name}({param.name}): {param.name} must be between {low:g} and {high:g}, got {_show(value)}")
    if low is not None and value < low:
        raise ActionParseError(f"{message} ({low:g} or more), got {_show(value)}")
    if high is not None and value > high:
        raise ActionParseError(f"{message} ({high:g} or less), got {_show(value)}")


def _string(spec: ActionSpec, param: Param, value: Any, where: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # type(5, 8080): the model meant the characters
    if not isinstance(value, str):
        raise ActionParseError(f"{where} must be a quoted string, got {_show(value)}")
    value = _join_surrogates(value, where)
    if len(value) > MAX_TEXT_LENGTH:
        raise ActionParseError(f"{where} is {len(value)} characters long; the limit is {MAX_TEXT_LENGTH}")
    if not value.strip() and (spec.name, param.name) not in MAY_BE_BLANK:
        raise ActionParseError(f"{where} must not be empty ({param.description})")
    return value


def _join_surrogates(value: str, where: str) -> str:
    """Escapes such as "\\ud83d\\ude00" (JSON's way to write an emoji) give two halves; join them."""
    if not any("\ud800" <= char <= "\udfff" for char in value):
        return value
    try:
        return value.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        raise ActionParseError(f"{where} contains an unpaired surrogate escape (\\ud800-\\udfff); write the character itself") from None


def _show(value: Any) -> str:
    if isinstance(value, str):
        return clip(json.dumps(value, ensure_ascii=False), 60)
    try:
        return clip(repr(value), 60)
    except ValueError:  # an integer too long to print
        return "a very long number"
    except RecursionError:  # a list nested deeper than repr can follow (from tool-call JSON)
        return "a deeply nested value"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis: model output quoted back stays short."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
