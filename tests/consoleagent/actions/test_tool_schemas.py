"""JSON tool schemas and the system-prompt action list, both generated from ACTIONS, and tool calls
validated by the parser's rules: checked against the JSON Schema specification with jsonschema."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from consoleagent.actions.parser import MAX_ELEMENT_ID, MAX_TEXT_LENGTH, ActionParseError
from consoleagent.actions.schema import action_from_tool_call, describe_actions, tool_schemas
from consoleagent.actions.spec import ACTIONS, DISCREPANCY_KINDS, SCROLL_DIRECTIONS, Action
from tests.consoleagent.actions.test_actions_parser import actions

SCHEMAS = {tool["function"]["name"]: tool for tool in tool_schemas()}


def test_one_tool_per_action_in_table_order() -> None:
    assert list(SCHEMAS) == list(ACTIONS)


@pytest.mark.parametrize("name", list(ACTIONS))
def test_each_tool_is_a_valid_openai_function_definition(name: str) -> None:
    tool = SCHEMAS[name]
    assert tool["type"] == "function" and set(tool["function"]) == {"name", "description", "parameters"}
    assert tool["function"]["description"].startswith(ACTIONS[name].description)
    parameters = tool["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(parameters)
    assert parameters["type"] == "object" and parameters["additionalProperties"] is False
    spec = ACTIONS[name]
    assert list(parameters["properties"]) == [p.name for p in spec.params]
    assert parameters["required"] == [p.name for p in spec.params if not p.optional]
    json.dumps(tool)  # plain JSON, ready to send


def test_parameter_types_follow_the_table() -> None:
    props = {name: tool["function"]["parameters"]["properties"] for name, tool in SCHEMAS.items()}
    assert props["click"]["id"] == {"description": ACTIONS["click"].params[0].description, "type": "integer", "minimum": 0,
                                  "maximum": MAX_ELEMENT_ID}
    assert props["scroll"]["direction"]["enum"] == list(SCROLL_DIRECTIONS)
    assert props["report_discrepancy"]["kind"]["enum"] == list(DISCREPANCY_KINDS)
    assert props["report_discrepancy"]["step"]["type"] == "integer"
    assert props["wait"]["seconds"] | {"description": ""} == {"description": "", "type": "number", "minimum": 0, "maximum": 30}
    assert props["type"]["text"]["maxLength"] == MAX_TEXT_LENGTH and "pattern" not in props["type"]["text"]
    assert props["press"]["key"]["pattern"] == r"\S"


@settings(max_examples=300, deadline=None)
@given(actions(), st.booleans())
def test_every_action_round_trips_through_a_tool_call(action: Action, as_text: bool) -> None:
    arguments = action.to_dict()["args"]
    jsonschema.validate(arguments, SCHEMAS[action.name]["function"]["parameters"])
    sent = json.dumps(arguments) if as_text else arguments
    assert action_from_tool_call(action.name, sent) == action


loose_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.floats(-1, 40, allow_nan=False),
                         st.text(max_size=8), st.sampled_from(list(SCROLL_DIRECTIONS) + list(DISCREPANCY_KINDS) + [" ", ""]),
                         st.lists(st.integers(0, 5), max_size=2))


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(list(ACTIONS)), st.data())
def test_whatever_the_schema_accepts_the_parser_accepts_alike(name: str, data: st.DataObject) -> None:
    """The schema a model is shown never promises more than the validator allows."""
    keys = [p.name for p in ACTIONS[name].params] + ["extra"]
    arguments = data.draw(st.dictionaries(st.sampled_from(keys), loose_values, max_size=5))
    schema = SCHEMAS[name]["function"]["parameters"]
    if jsonschema.Draft202012Validator(schema).is_valid(arguments):
        action = action_from_tool_call(name, arguments)
        assert action.to_dict()["args"] == arguments


@pytest.mark.parametrize("name, arguments, message", [
    ("clik", "{}", "unknown action 'clik'; did you mean 'click'?"),
    ("click", "{}", "click() takes 1 argument (id), got 0"),
    ("click", '{"id": "Create"}', 'click(id): id must be the number of a marked element, got "Create"'),
    ("click", '{"element": 3}', "click() got an unexpected argument 'element'; its parameters are: id"),
    ("click", "{not json", "the arguments of click are not valid JSON"),
    ("click", "[3]", "the arguments of click must be a JSON object, got list"),
    ("wait", '{"seconds": 31}', "wait(seconds): seconds must be between 0 and 30, got 31"),
    ("scroll", '{"direction": "sideways"}', "direction must be one of up, down, left, right"),
    ("report_discrepancy", '{"step": 2, "kind": "typo", "expected": "a", "observed": "b"}', "kind must be one of label_changed"),
    ("type", json.dumps({"id": 1, "text": "x" * (MAX_TEXT_LENGTH + 1)}), "the limit is 2000"),
])
def test_tool_call_errors_are_the_parsers(name: str, arguments: str, message: str) -> None:
    with pytest.raises(ActionParseError) as info:
        action_from_tool_call(name, arguments)
    assert message in str(info.value)


def test_tool_call_leniency_matches_the_parser() -> None:
    assert action_from_tool_call("back", "") == Action("back", ())
    assert action_from_tool_call("back", None) == Action("back", ())
    assert action_from_tool_call("click", '{"id": "12"}') == Action("click", (12,))
    assert action_from_tool_call("scroll", {"direction": "down", "id": None}) == Action("scroll", ("down",))
    assert action_from_tool_call("wait", {"seconds": 2}) == Action("wait", (2.0,))


def test_describe_actions_lists_every_signature_and_parameter() -> None:
    text = describe_actions()
    for spec in ACTIONS.values():
        assert f"{spec.signature()}: {spec.description}" in text
        for param in spec.params:
            assert f"    {param.name}{' (optional)' if param.optional else ''}: {param.description}" in text
    assert "task_complete(answer?): Declare the goal reached. Ends the episode." in text
