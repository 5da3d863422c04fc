"""Self-exploration (``training.explore``): proposals from a page, and in real Chromium against
stratus, a proposed create task is kept only when the audit log confirms it."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.training.explore import confirmed, propose


def test_proposals_from_create_controls_and_row_delete_buttons() -> None:
    marks = [Mark(1, "link", "Create a VPC"), Mark(2, "button", "Delete", context="row: web-vpc vpc-123 | Available"),
             Mark(3, "button", "Delete", states=["disabled"], context="row: old-vpc vpc-9 | Available"),
             Mark(4, "link", "1. Create a VPC")]
    page = Observation(url="http://c/vpc/vpcs", title="VPCs · stratus Console", text="", marks=marks)
    proposals = propose(page, "vpc", random.Random(0))
    assert [(p.verb, p.resource) for p in proposals] == [("create", "VPC"), ("delete", "VPC")]
    assert re.fullmatch(r"Create a VPC named x[0-9a-f]{4}-vpc\.", proposals[0].goal)
    assert proposals[1].goal == "Delete the VPC web-vpc."


def test_only_successful_expected_writes_confirm() -> None:
    records = [{"eventName": "CreateVpc", "errorCode": "InvalidCidr"}, {"eventName": "DescribeVpcs"},
               {"eventName": "CreateVSwitch"}]
    assert confirmed(records, ["CreateVpc"]) == []
    assert confirmed(records + [{"eventName": "CreateVpc"}], ["CreateVpc"]) == ["CreateVpc"]


class CreateByName:
    """Creates what the goal names through the console's create form, finding elements by name (a
    stand-in for a trained policy, so the test is about keeping and dropping, not about ranking)."""

    name = "create-by-name"

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal, self.done = goal, 0

    def act(self, observation: Observation) -> Decision:
        name = re.search(r"named (\S+?)\.?$", self.goal).group(1)  # type: ignore[union-attr]
        wanted = [("link", re.compile(r"^Create (a )?VPC$")), ("textbox", re.compile(r"^Name$")),
                  ("button", re.compile(r"^OK$"))]
        if self.done >= len(wanted):
            return Decision(action='task_complete("created")')
        role, label = wanted[self.done]
        mark = next((m for m in observation.marks if m.role == role and label.match(m.name)), None)
        if mark is None:
            return Decision(action=f'task_unachievable("no {role} {label.pattern}")')
        self.done += 1
        return Decision(action=f'type({mark.id}, "{name}")' if role == "textbox" else f"click({mark.id})")


@pytest.mark.browser
def test_a_confirmed_create_is_kept_and_an_unconfirmed_one_dropped(playwright_instance: Any, tmp_path: Path) -> None:
    from consoleagent.consoles import get_backend
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.env.browser import BrowserHost
    from consoleagent.policies.scripted import ScriptedPolicy
    from consoleagent.training.explore import explore, explored_tasks
    from consoleagent.training.filters import load_ledger, task_filter

    backend = get_backend("stratus")
    env = ConsoleEnv(backend, EnvConfig(), browser=BrowserHost(playwright=playwright_instance))
    performers = iter([CreateByName(), ScriptedPolicy([])])  # the second declares success at once
    try:
        done = explore(backend, env, lambda: next(performers), product="vpc", episodes=2, out=tmp_path, seed=3,
                       max_steps=8, verbs=("create",), resources=("VPC",))
    finally:
        env.close()
    assert [p.verb for p in done] == ["create", "create"]
    assert all("CreateVpc" in p.expected for p in done), [p.expected for p in done]
    assert done[0].kept and done[0].found == ["CreateVpc"], done[0]
    assert not done[1].kept and done[1].status == "completed" and done[1].found == []
    kept, report = task_filter(load_ledger(tmp_path))  # the SFT collection's own task filter
    assert [e.task_id for e in kept] == [done[0].id]
    assert report["dropped"] == 1
    assert set(explored_tasks(tmp_path)) == {done[0].id, done[1].id}
