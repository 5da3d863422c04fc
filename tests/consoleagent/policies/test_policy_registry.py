"""The one policy registry: every command's --policy help, option checks and factories come from it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from consoleagent.cli import app
from consoleagent.policies.oracle import OraclePolicy
from consoleagent.policies.registry import REGISTRY, make_policy, policy_help, policy_names, policy_options
from consoleagent.tasks.spec import TaskSpec


def test_every_entry_loads_a_class_with_the_policy_interface() -> None:
    for name, entry in REGISTRY.items():
        cls = entry.load()
        assert callable(getattr(cls, "act", None)) and callable(getattr(cls, "reset", None)), name
        if entry.from_task:
            assert callable(getattr(cls, "for_episode", None)), name


def test_help_texts_name_every_policy_in_every_command() -> None:
    runner = CliRunner()
    for command in (["run"], ["bench"], ["verify"], ["collect"]):
        text = " ".join(runner.invoke(app, [*command, "--help"], terminal_width=400).output.split())
        for name in policy_names():
            assert f"{name}:" in text, (command, name)


def test_a_policy_built_from_its_task_takes_no_options_and_needs_a_task() -> None:
    assert policy_options("oracle") == {}
    with pytest.raises(ValueError, match="takes no options"):
        make_policy("oracle", speed="fast")
    with pytest.raises(ValueError, match="needs a task"):
        make_policy("oracle")
    spec = TaskSpec.model_validate({
        "id": "t-01", "product": "vpc", "difficulty": "standard", "split": "train", "release": "2026.03",
        "document": "vpc/create-vpc.md", "goal": "Create a VPC", "start_url": "/vpc",
        "reward": {"expect": [{"event": "CreateVpc"}]},
        "oracle": [{"click": {"role": "button", "name": "Create VPC"}}, {"task_complete": "done"}]})
    oracle = make_policy("oracle", task=spec, outputs={})
    assert isinstance(oracle, OraclePolicy) and len(oracle.steps) == 2


def test_an_unknown_policy_names_the_known_ones() -> None:
    with pytest.raises(ValueError) as caught:
        make_policy("gpt")
    for name in REGISTRY:
        assert name in str(caught.value)
    assert "oracle:" in policy_help() and "scripted:" in policy_help(needs_no_task=True)
    assert "oracle:" not in policy_help(needs_no_task=True)
