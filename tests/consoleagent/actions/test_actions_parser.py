"""The action parser: every accepted form, every rejection's message, and fuzzing that it never
does anything but return an Action or raise ActionParseError (it must never evaluate the text)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consoleagent.actions.parser import MAX_ELEMENT_ID, MAX_STEP, MAX_TEXT_LENGTH, ActionParseError, parse_action
from consoleagent.actions.spec import ACTIONS, DISCREPANCY_KINDS, SCROLL_DIRECTIONS, Action

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- strategies ---------------------------------------------------------------------------------


def _string_arg(blank_ok: bool) -> st.SearchStrategy[str]:
    text = st.text(max_size=60) | st.text(min_size=1900, max_size=MAX_TEXT_LENGTH, alphabet="ab \n\"'\\")
    return text if blank_ok else text.filter(lambda s: s.strip() != "")


def _value(action: str, param) -> st.SearchStrategy:
    if param.type == "id":
        return st.integers(0, MAX_ELEMENT_ID)
    if param.type == "int":
        return st.integers(1, MAX_STEP)
    if param.type == "number":
        return st.floats(0, 30, allow_nan=False)
    if param.type == "direction":
        return st.sampled_from(SCROLL_DIRECTIONS)
    if param.type == "kind":
        return st.sampled_from(DISCREPANCY_KINDS)
    return _string_arg(blank_ok=(action, param.name) == ("type", "text"))


@st.composite
def actions(draw) -> Action:
    """Any valid Action, built from the ACTIONS table."""
    spec = ACTIONS[draw(st.sampled_from(sorted(ACTIONS)))]
    args = [draw(_value(spec.name, p)) for p in spec.params if not p.optional]
    optional = [p for p in spec.params if p.optional]
    if optional and draw(st.booleans()):
        args.append(draw(_value(spec.name, optional[0])))
    if spec.name == "wait":
        args = [float(a) for a in args]
    return Action(spec.name, tuple(args))


def _render(value) -> st.SearchStrategy[str]:
    if isinstance(value, str):
        return st.sampled_from([json.dumps(value)] * 3 + [repr(value), "'" + value + "'", '"' + value + '"', value])
    return st.sampled_from([repr(value)] * 3 + [f"[{value!r}]", f'"{value!r}"', f"-{value!r}", str(value)])


arg_values = st.one_of(st.integers(-5, 10**12), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
                       st.sampled_from(list(SCROLL_DIRECTIONS) + list(DISCREPANCY_KINDS)), st.booleans(), st.none())
names = st.one_of(st.sampled_from(sorted(ACTIONS)), st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,12}", fullmatch=True),
                  st.sampled_from(["__import__", "os.system", "eval", "exec", "open", "Click", "clik", "page.click"]))


@st.composite
def call_shaped(draw) -> str:
    """Call-shaped text with random names, arguments, quoting, keywords and wrapping."""
    name = draw(names)
    spec = ACTIONS.get(name)
    if spec is not None and draw(st.booleans()):  # arguments of the right types, so many calls are valid
        values = [draw(_value(name, p)) for p in spec.params[: draw(st.integers(0, len(spec.params) + 1))]]
        values += [draw(arg_values)] * max(0, len(values) - len(spec.params))
        keys = [p.name for p in spec.params]
    else:
        values = draw(st.lists(arg_values, max_size=5))
        keys = ["id", "text", "direction", "seconds", "x", "kind"]
    parts = [draw(_render(v)) for v in values]
    kw_from = draw(st.integers(0, len(parts)))  # keywords only after the positionals, as in Python
    for i in range(kw_from, len(parts)):
        key = keys[i] if i < len(keys) and draw(st.integers(0, 3)) else draw(st.sampled_from(keys))
        parts[i] = f"{key}={parts[i]}"
    separator = draw(st.sampled_from([", ", ",", " , "]))
    text = f"{name}({separator.join(parts)})"
    wrap = draw(st.sampled_from(["{}"] * 6 + [" {} ", "`{}`", "{};", "```\n{}\n```", "{} extra", "{}, {}", "{})", "({}",
                                            "{} # note"]))
    return wrap.replace("{}", text)


# --- properties -----------------------------------------------------------------------------------


@FUZZ
@given(st.text(max_size=300))
def test_arbitrary_text_gives_an_action_or_a_clear_error(text: str) -> None:
    _action_or_clear_error(text)


@FUZZ
@given(call_shaped())
def test_call_shaped_text_gives_an_action_or_a_clear_error(text: str) -> None:
    action = _action_or_clear_error(text)
    if action is not None:
        assert action.name in ACTIONS
        assert parse_action(str(action)) == action  # what it accepted, it prints canonically


@FUZZ
@given(actions())
def test_every_valid_action_round_trips_through_its_text(action: Action) -> None:
    parsed = parse_action(str(action))
    assert parsed == action
    assert [type(a) for a in parsed.args] == [type(a) for a in action.args]


def _action_or_clear_error(text: str) -> Action | None:
    try:
        return parse_action(text)
    except ActionParseError as exc:
        message = str(exc)
        assert message and len(message) < 1000 and "Traceback" not in message
        return None


# --- lenient forms --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("click(12)", Action("click", (12,))),
    ("click([12])", Action("click", (12,))),
    ('click("12")', Action("click", (12,))),
    ('click("[12]")', Action("click", (12,))),
    ("click(12.0)", Action("click", (12,))),
    ("click(id=12)", Action("click", (12,))),
    ("Click(12)", Action("click", (12,))),
    ("  click(12)  ", Action("click", (12,))),
    ("click(12);", Action("click", (12,))),
    ("`click(12)`", Action("click", (12,))),
    ("```python\nclick(12)\n```", Action("click", (12,))),
    ("```\nclick(12)\n```", Action("click", (12,))),
    ("click(12)  # the Create button", Action("click", (12,))),
    ("type(7, 'web-01')", Action("type", (7, "web-01"))),
    ('type(7, "web-01")', Action("type", (7, "web-01"))),
    ('type(text="web-01", id=7)', Action("type", (7, "web-01"))),
    ("type(7, 8080)", Action("type", (7, "8080"))),
    ('type(7, "")', Action("type", (7, ""))),
    ('type(7, "line one\\nline two")', Action("type", (7, "line one\nline two"))),
    ('type(7, "é 中文 \\"quoted\\"")', Action("type", (7, 'é 中文 "quoted"'))),
    ('scroll("down")', Action("scroll", ("down",))),
    ('scroll("Down", 4)', Action("scroll", ("down", 4))),
    ('scroll("up", id=[4])', Action("scroll", ("up", 4))),
    ('scroll("up", None)', Action("scroll", ("up",))),
    ("wait(2)", Action("wait", (2.0,))),
    ('wait("1.5")', Action("wait", (1.5,))),
    ("wait(0)", Action("wait", (0.0,))),
    ("wait(30)", Action("wait", (30.0,))),
    ("back()", Action("back", ())),
    ("task_complete()", Action("task_complete", ())),
    ('task_complete("done")', Action("task_complete", ("done",))),
    ('press("Control+A")', Action("press", ("Control+A",))),
    ('report_discrepancy(3, "label_changed", "Create VPC", "New VPC")',
     Action("report_discrepancy", (3, "label_changed", "Create VPC", "New VPC"))),
    ('report_discrepancy(step="3", kind="Label_Changed", expected="a", observed="b")',
     Action("report_discrepancy", (3, "label_changed", "a", "b"))),
])
def test_lenient_forms(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


def test_wait_is_always_a_float_and_prints_canonically() -> None:
    action = parse_action("wait(2)")
    assert isinstance(action.args[0], float) and str(action) == "wait(2.0)"


# --- rejections and their messages ----------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("clik(3)", "unknown action 'clik'; did you mean 'click'? Actions: click, type, select"),
    ("tpye(3, 'x')", "did you mean 'type'?"),
    ("frobnicate(3)", "unknown action 'frobnicate'. Actions: click, type"),
    ("click()", "click() takes 1 argument (id), got 0"),
    ("click(1, 2)", "click() takes 1 argument (id), got 2"),
    ("type(3)", "type() takes 2 arguments (id, text), got 1"),
    ("scroll()", "scroll() takes 1 to 2 arguments (direction, id?), got 0"),
    ("back(1)", "back() takes no arguments, got 1"),
    ('type(id=3)', "type(id, text): missing argument 'text'"),
    ("click(element=3)", "click() got an unexpected argument 'element'; its parameters are: id"),
    ("click(3, id=3)", "click() got multiple values for argument 'id'"),
    ("click(id=3, id=4)", "click() got multiple values for argument 'id'"),
    ('type("Create", "x")', 'type(id, text): id must be the number of a marked element, got "Create"'),
    ("click(-1)", "id must be the number of a marked element (0 or more), got -1"),
    ("click(True)", "id must be the number of a marked element, got True"),
    ("click(1.5)", "id must be the number of a marked element, got 1.5"),
    ("click([1, 2])", "arguments must be numbers or quoted strings"),
    ('scroll("sideways")', "scroll(direction, id?): direction must be one of up, down, left, right"),
    ('report_discrepancy(1, "typo", "a", "b")', "report_discrepancy(step, kind, expected, observed): kind must be one of "
                                                 + ", ".join(DISCREPANCY_KINDS)),
    ('report_discrepancy(0, "label_changed", "a", "b")', "step must be a whole number (1 or more), got 0"),
    ('type(3, "abc)', "unterminated string"),
    ("type(3, 'abc)", "unterminated string"),
    ("wait(45)", "wait(seconds): seconds must be between 0 and 30, got 45"),
    ("wait(-1)", "seconds must be between 0 and 30"),
    ('wait("soon")', 'wait(seconds): seconds must be a number, got "soon"'),
    ("wait(1e999)", "seconds must be a number, got inf"),
    (f'type(3, "{"x" * (MAX_TEXT_LENGTH + 1)}")', f"text is {MAX_TEXT_LENGTH + 1} characters long; the limit is {MAX_TEXT_LENGTH}"),
    ('press("  ")', "press(key): key must not be empty"),
    ('goto("")', "goto(url): url must not be empty"),
    ("", "empty action"),
    ("   ``  ", "empty action"),
    ("back", "missing parentheses: write back()"),
    ("click", "missing parentheses: write click(...)"),
    ("Done", "expected an action call such as click(12)"),
    ("click(3", "unbalanced parentheses"),
    ('click(3) type(4, "x")', "unexpected text after the action: 'type(4, \"x\")'"),
    ("click(3)\nclick(4)", "unexpected text after the action"),
    ("click(3) please", "unexpected text after the action: 'please'"),
    ("click(3), click(4)", "write exactly one action"),
    ("click(3) and click(4)", "write exactly one action"),
    ("page.click(3)", "actions are plain names: write click(...), not page.click(...)"),
    ('os.system("rm -rf /")', "unknown action 'os.system'"),
    ('__import__("os")', "unknown action '__import__'"),
    ('eval("1")', "unknown action 'eval'"),
    ("click(abs(3))", "nested calls are not allowed"),
    ('click(__import__("os"))', "nested calls are not allowed"),
    ("click(x)", "got the name x; if you meant the text, quote it"),
    ("scroll(down)", 'got the name down; if you meant the text, quote it: "down"'),
    ("click(os.sep)", "an attribute access (os.sep)"),
    ('type(3, f"{x}")', "f-strings are not allowed"),
    ("click(*ids)", "*arguments are not allowed"),
    ("click(**kw)", "**arguments are not allowed"),
    ("click(lambda: 3)", "a lambda"),
    ("click([i for i in range(3)])", "a comprehension"),
    ("click(1 + 2)", "an expression with an operator (1 + 2)"),
    ('type(3, "a" + "b")', "an expression with an operator"),
    ("click(b'3')", "arguments must be numbers or quoted strings"),
    ("click(...)", "arguments must be numbers or quoted strings"),
    ("1 + 2", "expected a single action call"),
    ("x" * 20_000, "action too long"),
])
def test_rejections_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ActionParseError) as info:
        parse_action(text)
    assert message in str(info.value)


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(ActionParseError, ValueError)


def test_nothing_is_evaluated(tmp_path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(ActionParseError):
        parse_action(f"click(open({str(marker)!r}, 'w').write('x'))")
    with pytest.raises(ActionParseError):
        parse_action(f"__import__('pathlib').Path({str(marker)!r}).touch()")
    assert not marker.exists()
