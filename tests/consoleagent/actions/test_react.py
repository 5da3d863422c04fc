"""The ReAct reader: lenient about how a model wraps its answer, never guessing an action."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consoleagent.actions.parser import parse_action
from consoleagent.actions.react import NO_ACTION, ReactOutput, parse_react
from consoleagent.actions.spec import Action
from tests.consoleagent.actions.test_actions_parser import actions


@pytest.mark.parametrize("text, thought, action", [
    ("Thought: The form needs a name.\nAction: type(7, \"web-01\")", "The form needs a name.", 'type(7, "web-01")'),
    ("thought: open the form\naction: click(3)", "open the form", "click(3)"),
    ("THOUGHT: open it\nACTION: click(3)", "open it", "click(3)"),
    ("**Thought:** open it\n**Action:** click(3)", "open it", "click(3)"),
    ("**Thought**: open it\n**Action**: `click(3)`", "open it", "click(3)"),
    ("### Thought\nno colon is not a label\nAction: click(3)", "### Thought\nno colon is not a label", "click(3)"),
    ("Thought: open it\nAction:\n```python\nclick(3)\n```", "open it", "click(3)"),
    ("Thought: open it\n```\nAction: click(3)\n```", "open it", "click(3)"),
    ("   Thought:   spaced   \n\n\n   Action:    click(3)   \n\n", "spaced", "click(3)"),
    ("Thought: first line\nsecond line\n\nthird paragraph\nAction: click(3)", "first line\nsecond line\n\nthird paragraph",
     "click(3)"),
    ("I should open the form.\nAction: click(3)", "I should open the form.", "click(3)"),
    ("I should open the form.\nclick(3)", "I should open the form.", "click(3)"),
    ("I should open the form.\n\n```python\nclick(3)\n```", "I should open the form.", "click(3)"),
    ("Thought: open it\nclick(3)", "open it", "click(3)"),
    ("click(3)", "", "click(3)"),
    ("Thought: open it\nAction: click(3).\nThis opens the create dialog.", "open it", "click(3)"),
    ("Thought: a\nAction: click(3)\nAction: click(3)", "a", "click(3)"),  # identical twice is one action
    ("Thought: a\nAction: type(3, \"x); click(4)\")", "a", 'type(3, "x); click(4)")'),  # a ')' inside a string
    ("Thought: a\nAction: type(3, \"a\nb\")", "a", 'type(3, "a'),  # unterminated: passed on for the parser to explain
    ("Thought: a\nAction: clik(3)", "a", "clik(3)"),  # the raw call, even one that will not parse
    ("<think>maybe Action: click(9)</think>\nThought: sure\nAction: click(3)", "sure", "click(3)"),
    ("<think>all my reasoning</think>\nAction: click(3)", "all my reasoning", "click(3)"),
    ("Thought: a\r\nAction: click(3)\r\n", "a", "click(3)"),
])
def test_lenient_forms(text: str, thought: str, action: str) -> None:
    out = parse_react(text)
    assert (out.thought, out.action, out.error) == (thought, action, None)


@pytest.mark.parametrize("text, step", [
    ("Thought: a\nStep: 3\nAction: click(3)", 3),
    ("Step: 12\nThought: a\nAction: click(3)", 12),
    ("Thought: a\n**Step:** 4\nAction: click(3)", 4),
    ("Thought: a\nDocument step: 5 (create the VPC)\nAction: click(3)", 5),
    ("Thought: a\nStep: none\nAction: click(3)", None),
    ("Thought: I am on step 3: the form\nAction: click(3)", None),  # prose is not a Step line
    ("Thought: a\nAction: click(3)", None),
])
def test_step_line_sets_the_document_step(text: str, step: int | None) -> None:
    out = parse_react(text)
    assert out.document_step == step and out.action == "click(3)"
    assert "Step" not in out.thought


@pytest.mark.parametrize("text", [
    "Thought: a\nAction: click(3)\nAction: click(4)",
    "Thought: a\nAction: click(3); click(4)",
    "Thought: a\nAction: click(3)\ntype(4, \"x\")",
    "Thought: a\nclick(3)\nclick(4)",
])
def test_two_different_actions_are_an_error(text: str) -> None:
    out = parse_react(text)
    assert out.action is None
    assert out.error and out.error.startswith("write exactly one action per turn; your answer has 2")
    assert "click(3)" in out.error


@pytest.mark.parametrize("text", [
    "", "   ", "Thought: I am not sure what to do.", "Thought: a\nAction:", "I will click(3) now.",
    "Thought: a\nAction: I will click the Create button", "Thought: a\nAction: back",
])
def test_no_action_is_never_guessed(text: str) -> None:
    out = parse_react(text)
    assert out.action is None
    assert out.error and out.error.startswith(NO_ACTION)


def test_a_non_call_action_line_is_quoted_in_the_error() -> None:
    out = parse_react("Thought: a\nAction: press the Create button")
    assert "the Action line must be a call, got 'press the Create button'" in (out.error or "")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_never_crashes(text: str) -> None:
    out = parse_react(text)
    assert isinstance(out, ReactOutput)
    assert (out.action is None) != (out.error is None)


@settings(max_examples=200, deadline=None)
@given(actions(), st.text(alphabet=st.characters(categories=["L", "N", "Zs"]), max_size=80),
       st.sampled_from(["Thought: {t}\nAction: {a}", "**Thought:** {t}\n\n**Action:** `{a}`", "{t}\n```\n{a}\n```",
                        "thought: {t}\naction:\n```python\n{a}\n```", "Thought: {t}\nStep: 2\nAction: {a}"]))
def test_any_valid_action_survives_the_react_wrapping(action: Action, thought: str, template: str) -> None:
    out = parse_react(template.format(t=thought, a=str(action)))
    assert out.error is None and out.action is not None
    assert parse_action(out.action) == action
    if thought.strip() and "Thought" in template:
        assert out.thought == thought.strip()
