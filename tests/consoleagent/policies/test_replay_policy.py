"""Replaying a recorded trajectory on pages whose mark ids (and resource ids) changed, and
stopping with a clear reason where the page no longer matches the recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.replay import ReplayPolicy, same_page, shape
from consoleagent.trajectory.records import EpisodeFooter, EpisodeHeader, StepRecord
from consoleagent.trajectory.writer import TrajectoryWriter

BASE = "http://127.0.0.1:8000"


def step(n: int, url: str, action: str, marks: list[Mark], result: str = "ok", **extra: object) -> StepRecord:
    try:
        parsed = parse_action(action).to_dict()
    except ValueError:
        parsed = None
    return StepRecord(step=n, url=BASE + url, title=url, observation="(rendered)", action=action, thought=f"t{n}",
                      raw=f"Action: {action}", parsed=parsed, result=result, marks=[m.to_dict() for m in marks],
                      **extra)  # type: ignore[arg-type]


def record(path: Path, steps: list[StepRecord], footer: EpisodeFooter | None) -> Path:
    header = EpisodeHeader(episode_id="ep-1", task={"id": "vpc-create", "goal": "Create a VPC"}, policy="llm:test",
                           seed=1, console=BASE)
    writer = TrajectoryWriter(path, header)
    for s in steps:
        writer.step(s)
    if footer is not None:
        writer.finish(footer)
    writer.close()
    return path


def obs(url: str, marks: list[Mark]) -> Observation:
    return Observation(url="http://10.0.0.5:9000" + url, title=url, text="", marks=marks)


NAV = [Mark(3, "link", "VPCs"), Mark(4, "link", "vSwitches")]
TABLE = [Mark(10, "link", "Create VPC"), Mark(11, "link", "Manage", context="row vpc-a"),
         Mark(12, "link", "Manage", context="row vpc-b"), Mark(13, "link", "Create VPC")]
FORM = [Mark(20, "textbox", "Name"), Mark(21, "combobox", "IPv4 CIDR block", tag="select"), Mark(22, "button", "OK")]


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    return record(tmp_path / "ep.jsonl", [
        step(1, "/vpc", "click(3)", NAV, document_step=2),
        step(2, "/vpc/vpcs", "click(12)", TABLE),
        step(3, "/vpc/vpcs/vpc-bp1abc234", "click(99)", [Mark(5, "button", "Edit")], result="no element [99]"),
        step(4, "/vpc/vpcs/vpc-bp1abc234", "garbage((", []),
        step(5, "/vpc/vpcs/vpc-bp1abc234", "click(13)", TABLE),
        step(6, "/vpc/vpcs/create", 'type(20, "web-01")', FORM),
        step(7, "/vpc/vpcs/create", 'select(21, "10.0.0.0/8")', FORM),
        step(8, "/vpc/vpcs/create", "click(22)", FORM),
        step(9, "/vpc/vpcs/vpc-bp1abc234", 'task_complete("created")', []),
    ], EpisodeFooter(status="success", steps=9, duration_s=3.0, answer="created"))


def shifted(marks: list[Mark], by: int) -> list[Mark]:
    return [Mark.from_dict({**m.to_dict(), "id": m.id + by}) for m in marks]


def test_replays_with_renumbered_ids(recording: Path) -> None:
    policy = ReplayPolicy(recording)
    policy.reset("Create a VPC")
    d = policy.act(obs("/vpc", shifted(NAV, 40)))
    assert (d.action, d.thought, d.document_step) == ("click(43)", "t1", 2)
    assert d.meta["id_map"] == {3: 43} and d.meta["replayed_step"] == 1
    # Two "Manage" links: the row context picks the right one, even in a different order.
    rows = [Mark(7, "link", "Manage", context="row vpc-b"), Mark(8, "link", "Manage", context="row vpc-a"),
            Mark(9, "link", "Create VPC"), Mark(6, "link", "Create VPC")]
    assert policy.act(obs("/vpc/vpcs", rows)).action == "click(7)"
    # The failed and the unparseable steps are skipped; the resource id in the URL differs but the page matches.
    d = policy.act(obs("/vpc/vpcs/vpc-zz9xyz876", rows))
    assert (d.action, d.meta["replayed_step"]) == ("click(6)", 5)  # the second of two same-named twins
    form = shifted(FORM, -15)
    assert policy.act(obs("/vpc/vpcs/create", form)).action == 'type(5, "web-01")'
    assert policy.act(obs("/vpc/vpcs/create", form)).action == 'select(6, "10.0.0.0/8")'
    assert policy.act(obs("/vpc/vpcs/create", form)).action == "click(7)"
    assert policy.act(obs("/vpc/vpcs/vpc-zz9xyz876", [])).action == 'task_complete("created")'
    assert policy.diverged_at is None
    policy.reset("again")  # a second episode starts from the first recorded step
    assert policy.act(obs("/vpc", NAV)).action == "click(3)"


def test_diverges_when_the_element_is_gone(recording: Path) -> None:
    policy = ReplayPolicy(recording)
    d = policy.act(obs("/vpc", [Mark(1, "link", "Virtual private clouds")]))
    assert d.action == ('task_unachievable("replay diverged at step 1: no link named \'VPCs\' on the page '
                        '(it was [3])")')
    assert d.meta["diverged_at"] == 1 and policy.diverged_at == 1
    parse_action(d.action)


def test_diverges_when_the_page_differs(recording: Path) -> None:
    policy = ReplayPolicy(recording)
    policy.act(obs("/vpc", NAV))
    d = policy.act(obs("/vpc/overview", TABLE))
    assert d.action == ('task_unachievable("replay diverged at step 2: the page is /vpc/overview but the recording '
                        'was on /vpc/vpcs")')
    assert d.meta["diverged_at"] == 2


def test_interrupted_recording_ends_unachievable(tmp_path: Path) -> None:
    path = record(tmp_path / "cut.jsonl", [step(1, "/vpc", "click(3)", NAV), step(2, "/vpc/vpcs", "back()", [])],
                  footer=None)
    policy = ReplayPolicy(str(path))
    assert policy.act(obs("/vpc", NAV)).action == "click(3)"
    assert policy.act(obs("/vpc/vpcs", [])).action == "back()"  # page actions pass through unchanged
    d = policy.act(obs("/vpc", NAV))
    assert d.action == ('task_unachievable("the recording ended after 2 actions without an ending action '
                        '(status: interrupted)")')


def test_dynamic_names_and_paths() -> None:
    assert shape("VPCs 3") == shape("VPCs 0")
    assert shape("web vpc-bp1abc234") == shape("web vpc-zz9xyz876")
    assert shape("Create VPC") != shape("Create vSwitch")
    assert same_page("http://a/ecs/instances?page=2", "http://b/ecs/instances")
    assert same_page("http://a/x/3f2b8c1e-1111-4a2b-9c3d-0123456789ab", "http://a/x/00000000-1111-4a2b-9c3d-0123456789ab")
    assert not same_page("http://a/vpc/vpcs", "http://a/vpc/vswitches")


def test_relocates_by_masked_name(tmp_path: Path) -> None:
    recorded = [Mark(5, "link", "VPCs 3"), Mark(6, "link", "web vpc-bp1abc234")]
    path = record(tmp_path / "n.jsonl", [step(1, "/console", "click(6)", recorded)],
                  EpisodeFooter(status="failure", steps=1, duration_s=1.0))
    policy = ReplayPolicy(path)
    d = policy.act(obs("/console", [Mark(1, "link", "VPCs 0"), Mark(2, "link", "web vpc-zz9xyz876")]))
    assert d.action == "click(2)"


def test_registry_builds_a_replay(recording: Path) -> None:
    from consoleagent.policies.registry import make_policy

    replay = make_policy("replay", trajectory=str(recording))
    assert isinstance(replay, ReplayPolicy) and len(replay.steps) == 7


def test_completed_recording_without_ending_action_completes(tmp_path: Path) -> None:
    path = record(tmp_path / "done.jsonl", [step(1, "/vpc", "click(3)", NAV)],
                  EpisodeFooter(status="completed", steps=1, duration_s=1.0, answer="done"))  # type: ignore[arg-type]
    policy = ReplayPolicy(path)
    policy.act(obs("/vpc", NAV))
    assert policy.act(obs("/vpc/vpcs", [])).action == 'task_complete("done")'
