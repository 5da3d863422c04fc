"""The outcome of a document without a suite task: successful WRITES in the audit log that match its goal.

Checked on the real action registry of stratus (every action's name and read/write kind), with the
real sentence encoder when installed (the lexical fallback otherwise). The old rule, an unanchored
regex over verbs, let ``DescribeEipAddresses`` (a read) satisfy any goal through "Add".
"""

from __future__ import annotations

import re

import pytest

from consoleagent.verify.outcome import console_writes, goal_outcome_regex, goal_verbs, matching_writes, outcome_regex
from consoleagent.verify.targets import WRITE_EVENT


@pytest.fixture(scope="module")
def registry() -> tuple[list[str], list[str]]:
    import stratus.app  # noqa: F401
    from stratus.api.registry import ACTIONS

    writes = sorted(a.name for a in ACTIONS.values() if a.rw == "Write")
    reads = sorted(a.name for a in ACTIONS.values() if a.rw == "Read")
    return writes, reads


def test_the_old_rule_accepted_reads(registry: tuple[list[str], list[str]]) -> None:
    """Why the rule changed: the unanchored verb regex matches read events."""
    _writes, reads = registry
    assert re.search(WRITE_EVENT, "DescribeEipAddresses")  # through "Add"-resses


@pytest.mark.parametrize(("goal", "expected"), [
    ("Apply for an EIP for a web server, following the document.", {"AllocateEipAddress"}),
    ("Create a security group for application servers, following the document.", {"CreateSecurityGroup"}),
    ("Stop an instance, following the document.", {"StopInstance", "StopInstances"}),
    ("Release an EIP", {"ReleaseEipAddress"}),
    ("Delete a vSwitch", {"DeleteVSwitch"}),
    ("Create vSwitch Dialog", {"CreateVSwitch"}),
    ("Associate an EIP with an ECS instance", {"AssociateEipAddress"}),
    ("Roll back a disk to a snapshot", {"ResetDisk"}),
])
def test_goal_matches_its_write_actions_only(registry: tuple[list[str], list[str]], goal: str, expected: set[str]) -> None:
    writes, reads = registry
    assert set(console_writes(None) or []) == set(writes)
    matched = set(matching_writes(goal, writes))
    assert matched and matched <= expected, matched
    rule = re.compile(goal_outcome_regex(goal))
    assert all(rule.search(name) for name in matched)
    assert not any(rule.search(name) for name in reads), "a read event satisfied the goal"
    assert not any(rule.search(name) for name in set(writes) - expected), "another write satisfied the goal"


def test_rule_is_anchored_and_exact() -> None:
    rule = re.compile(outcome_regex(["CreateVpc"]))
    assert rule.search("CreateVpc") and not rule.search("CreateVpcs") and not rule.search("XCreateVpc")
    assert goal_verbs("Apply for an EIP") >= {"create", "allocate"}
    assert "delete" in goal_verbs("Release an EIP") and "create" not in goal_verbs("Release an EIP")


def test_a_console_without_known_writes_keeps_its_own_rule() -> None:
    class Other:
        name = "pgadmin"
        write_event = r"^(CREATE|ALTER|DROP) "

    assert goal_outcome_regex("Create a database", Other(), fallback="x") == r"^(CREATE|ALTER|DROP) "


def test_the_procedures_own_button_names_the_write_its_title_does_not(registry: tuple[list[str], list[str]]) -> None:
    """Measured on 2026.03: "Tutorial: give your VPC its first subnet" was judged by CreateVpc (its title names
    the VPC), so the vSwitch it created never counted."""
    writes, _ = registry
    title = "Tutorial: give your VPC its first subnet"
    assert matching_writes(title, writes) == ["CreateVpc"]  # the title alone
    assert matching_writes(title, writes, ["VPC", "vSwitches", "Create vSwitch", "OK"]) == ["CreateVSwitch"]
    assert goal_outcome_regex("Create a VPC", labels=["Create VPC", "Create vSwitch"]) == "^(?:CreateVpc)$"
