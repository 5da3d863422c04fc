"""The doc follower end to end in the real stratus console (headless Chromium) on documents in other
styles, started where a document without a suite task starts: the console home.

- an Alibaba-style task topic ("Log on to the VPC console", a parameter table after "set the following
  parameters", "Leave this field empty.", "5 Mbps") on 2026.09, where "Apply for EIP" is now "Create EIP":
  the follower reaches the VPC console from the home page, reports the rename as label_changed and
  follows it, types 5 into the bandwidth field, leaves the name empty, and the audit log holds the write;
- a reference page that never says how to open its dialog: the follower finds "Create vSwitch" by
  searching the console from its home page.
"""

from __future__ import annotations

from tests import ROOT
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consoleagent.documents import load_document
from consoleagent.encoder import backend_name
from consoleagent.policies.docfollower import DocFollowerPolicy

STYLES = ROOT / "src" / "consoleagent" / "consoles" / "stratus" / "suite" / "documents" / "stratus" / "vpc" / "styles"


@pytest.fixture(scope="module")
def env_0309(playwright_instance: Any) -> Iterator[Any]:
    from consoleagent.adapters.stratus import StratusAdapter
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.env.browser import BrowserHost

    env = ConsoleEnv(StratusAdapter(time_scale=20.0, release="2026.09"), EnvConfig(),
                     browser=BrowserHost(playwright=playwright_instance))
    yield env
    env.close()


def _events(env: Any, result: Any, name: str) -> list[dict[str, Any]]:
    from stratus.sdk import Client

    extra = result.credentials.extra
    client = Client(env.adapter.base_url, extra["access_key_id"], extra["access_key_secret"])
    return [e for e in client.call("actiontrail", "LookupEvents", EventName=name)["Events"] if not e.get("errorCode")]


@pytest.mark.browser
@pytest.mark.skipif(backend_name() == "lexical", reason="'Apply for EIP' → 'Create EIP' shares no word: needs the encoder")
def test_task_topic_from_the_console_home_with_a_table_and_a_rename(env_0309: Any, tmp_path: Path) -> None:
    from consoleagent.runner import run_episode
    from consoleagent.tasks import Task
    from consoleagent.trajectory.reader import read_trajectory

    steps = load_document(STYLES / "alibaba-apply-eip.md").procedures[0].step_texts()
    task = Task(goal="Apply for an EIP for a web server.", start_url="/console", max_steps=30, document=steps)
    result = run_episode(env_0309, DocFollowerPolicy(wait_seconds=1), task, trajectory=tmp_path / "eip.jsonl")
    assert result.status == "completed", result.cause
    reported = [(d["step"], d["kind"], d["expected"], d["observed"]) for d in result.discrepancies]
    assert (3, "label_changed", "Apply for EIP", "Create EIP") in reported
    assert not [r for r in reported if r[1] == "element_removed"], reported
    urls = [s.get("url", "") for s in read_trajectory(tmp_path / "eip.jsonl").steps]
    assert any("/vpc" in u for u in urls)  # it left the home page for the VPC console
    actions = [s["action"] for s in read_trajectory(tmp_path / "eip.jsonl").steps]
    assert not any("Leave this field" in a for a in actions)  # a cell that is an instruction is never typed
    allocated = _events(env_0309, result, "AllocateEipAddress")
    assert len(allocated) == 1
    params = allocated[0]["requestParameters"]
    assert str(params.get("Bandwidth")) == "5" and not params.get("Name")


@pytest.mark.browser
def test_reference_page_without_navigation_finds_its_dialog(env_0309: Any, tmp_path: Path) -> None:
    """From the console home to the Create vSwitch button, which no step names a way to: the walk goes by
    meaning ("Subnets (vSwitches)"), not by a path. The fresh test account has no VPC (verify provisions the
    page's prerequisites; this test does not), so the console keeps the button disabled ("Create a VPC
    first") and the follower stops there, saying so, instead of blaming the document."""
    from consoleagent.runner import run_episode
    from consoleagent.tasks import Task
    from consoleagent.trajectory.reader import read_trajectory

    steps = load_document(STYLES / "reference-create-vswitch-dialog.rst").procedures[0].step_texts()
    assert steps[0].startswith("Open the **Create vSwitch** dialog")  # the page never says how
    task = Task(goal="Create vSwitch Dialog, following the document.", start_url="/console", max_steps=40,
                document=steps)
    result = run_episode(env_0309, DocFollowerPolicy(wait_seconds=1), task, trajectory=tmp_path / "vsw.jsonl")
    walked = read_trajectory(tmp_path / "vsw.jsonl").steps
    assert any("/vpc/vswitches" in (s.get("url") or "") and "open 'Create vSwitch'" in (s.get("thought") or "")
               for s in walked), [(s.get("url"), s["action"]) for s in walked]
    assert result.discrepancies == []  # nothing blamed on the document
    assert result.status == "unachievable" and "Create a VPC first" in (result.answer or str(result.cause) or "")
