"""ConsoleEnv against the real stratus console in headless Chromium: a scripted episode that
creates a VPC and is found in the audit log, rejected actions reported to the agent, limits, and
environment faults (crashes, server errors, lost login) ending the episode as env_error."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from consoleagent.adapters.stratus import StratusAdapter
from consoleagent.env import ConsoleEnv, EnvConfig, EnvironmentFault
from consoleagent.env.browser import BrowserHost
from consoleagent.env.settle import SettleConfig
from consoleagent.policies.base import Decision
from consoleagent.policies.docfollower import DocFollowerPolicy
from consoleagent.runner import run_episode
from consoleagent.observation.types import Observation
from consoleagent.tasks import Task
from consoleagent.trajectory.reader import read_trajectory
from stratus.sdk import Client
from tests.agents import ByName, NamedStepsPolicy, find_mark

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env(playwright_instance: Any) -> Any:
    host = BrowserHost(playwright=playwright_instance)  # one Playwright per thread: share the session's
    environment = ConsoleEnv(StratusAdapter(time_scale=20.0), EnvConfig(screenshots=False), browser=host)
    yield environment
    environment.close()


def sdk(env: ConsoleEnv, credentials: Any) -> Client:
    return Client(env.adapter.base_url, credentials.extra["access_key_id"], credentials.extra["access_key_secret"])


def test_scripted_episode_creates_a_vpc_seen_in_the_audit_log(env: ConsoleEnv, tmp_path: Any) -> None:
    policy = NamedStepsPolicy([
        ByName("click", "link", "Create VPC"),
        ByName("type", "textbox", "Name", ("agent-vpc",)),
        ByName("click", "button", "OK"),
        ByName("wait(1)"),
        ByName('task_complete("created agent-vpc")'),
    ])
    result = run_episode(env, policy, Task(goal="Create a VPC named agent-vpc", start_url="/vpc/vpcs"),
                         trajectory=tmp_path / "episode.jsonl")
    assert result.status == "completed", result.cause
    assert result.steps == 5
    client = sdk(env, result.credentials)
    events = client.call("actiontrail", "LookupEvents", EventName="CreateVpc")["Events"]
    assert len(events) == 1
    assert events[0]["actor"] == "console" and events[0]["requestParameters"]["VpcName"] == "agent-vpc"
    trajectory = read_trajectory(tmp_path / "episode.jsonl")
    assert trajectory.footer["status"] == "completed"
    assert [s["result"] for s in trajectory.steps] == ["ok"] * 5
    assert all({"policy", "action", "settle", "observe"} <= set(s["timings"]) for s in trajectory.steps[:-1])


class _TimedPolicy:
    """Spends ``seconds`` per decision either computing or sleeping, then declares the task done."""

    def __init__(self, seconds: float, busy: bool) -> None:
        self.name, self.seconds, self.busy = "timed", seconds, busy

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        pass

    def act(self, observation: Any) -> Decision:
        if self.busy:
            deadline = time.process_time() + self.seconds
            while time.process_time() < deadline:
                pass
        else:
            time.sleep(self.seconds)
        return Decision(action='task_complete("done")')


def test_a_step_records_the_policys_cpu_seconds_apart_from_its_wall_seconds(env: ConsoleEnv, tmp_path: Any) -> None:
    """A CPU-priced policy is billed for computing, not for waiting (docs/formats.md, timings.policy_cpu)."""
    timings = {}
    for busy in (True, False):
        path = tmp_path / f"busy-{busy}.jsonl"
        run_episode(env, _TimedPolicy(0.3, busy), Task(goal="Nothing", start_url="/vpc/vpcs"), trajectory=path)
        timings[busy] = read_trajectory(path).steps[0]["timings"]
    assert timings[True]["policy_cpu"] >= 0.3 and timings[True]["policy"] >= 0.3
    assert timings[False]["policy"] >= 0.3 and timings[False]["policy_cpu"] < 0.1


def test_rejected_actions_are_told_to_the_agent(env: ConsoleEnv) -> None:
    observation, info = env.reset(Task(goal="probe", start_url="/vpc/vswitches"))
    # the Create vSwitch button is disabled (no VPC yet) and says why
    button = find_mark(observation, "button", "Create vSwitch")
    assert button is not None and "disabled" in button.states
    observation, reward, terminated, truncated, info = env.step(f"click({button.id})")
    assert not terminated and reward == 0.0
    assert "disabled" in info["result"] and "Create a VPC first" in info["result"]
    assert observation.last_error == info["result"]
    observation, *_, info = env.step("click(99999)")
    assert "no element [99999]" in observation.last_error
    observation, *_, info = env.step("clik(3)")
    assert "unknown action 'clik'" in observation.last_error and "click" in observation.last_error
    observation, *_, info = env.step(Decision(action="", meta={"parse_error": "no action found"}))
    assert "no action found" in observation.last_error
    assert [h.result == "ok" for h in observation.history] == [False] * 4


def test_step_limit_truncates(env: ConsoleEnv) -> None:
    env.reset(Task(goal="wander", start_url="/console", max_steps=2))
    *_, terminated, truncated, info = env.step("scroll(\"down\")")
    assert not (terminated or truncated)
    *_, terminated, truncated, info = env.step("scroll(\"up\")")
    assert truncated and not terminated and info["status"] == "truncated" and "step limit" in info["cause"]
    with pytest.raises(RuntimeError):
        env.step("scroll(\"down\")")


def test_report_discrepancy_is_recorded(env: ConsoleEnv) -> None:
    env.reset(Task(goal="check", start_url="/console", document=["Click **Create VPC**."]))
    *_, info = env.step(Decision(action='report_discrepancy(1, "label_changed", "Create VPC", "Create a VPC")',
                                 document_step=1))
    assert info["discrepancy"] == {"step": 1, "kind": "label_changed", "expected": "Create VPC", "observed": "Create a VPC"}
    observation, *_, info = env.step('task_unachievable("the button is gone")')
    assert info["status"] == "unachievable" and info["discrepancies"] == [info["discrepancies"][0]]
    assert observation.document_step == 1


def test_the_procedures_a_document_refers_to_reach_the_policy_with_every_observation(env: ConsoleEnv) -> None:
    related = {"Create a vSwitch": ["Log on to the VPC console.", "Click **Create vSwitch**."]}
    observation, _ = env.reset(Task(goal="check", start_url="/console", document=["Click **Create VPC**."], related=related))
    assert observation.related == related
    observation, *_ = env.step('scroll("down")')
    assert observation.related == related and observation.document == ["Click **Create VPC**."]


def test_renderer_crash_is_an_env_error(env: ConsoleEnv) -> None:
    env.reset(Task(goal="crash", start_url="/console"))
    observation, _, terminated, _, info = env.step('goto("chrome://crash")')
    assert terminated and info["status"] == "env_error"
    assert "crash" in info["cause"] or "closed" in info["cause"] or "navigation" in info["cause"]


def test_browser_killed_mid_episode_is_an_env_error_and_the_next_episode_recovers(env: ConsoleEnv) -> None:
    env.reset(Task(goal="survive", start_url="/console"))
    env.host.browser().close()  # the whole browser goes away, as when Chromium is killed
    *_, terminated, _, info = env.step('scroll("down")')
    assert terminated and info["status"] == "env_error" and ("closed" in info["cause"] or "crash" in info["cause"])
    observation, _ = env.reset(Task(goal="again", start_url="/console"))  # a new browser is launched
    assert observation.marks


def test_server_error_is_an_env_error(env: ConsoleEnv) -> None:
    env.reset(Task(goal="5xx", start_url="/vpc/vpcs"))
    env.page.route("**/vpc/vswitches*", lambda route: route.fulfill(status=502, body="bad gateway"))
    *_, terminated, _, info = env.step('goto("/vpc/vswitches")')
    assert terminated and info["status"] == "env_error" and "server error 502" in info["cause"]


def _serve(page: Any, pattern: str, status: int, body: str, content_type: str) -> None:
    page.route(pattern, lambda route: route.fulfill(status=status, body=body, content_type=content_type))


# The Save button is drawn once the POST is answered: the observation that shows it comes after the response,
# as a console's page that waits for its data does (a busy machine may otherwise observe before the answer)
FORM_PAGE = ("<!doctype html><title>form</title><body><script>fetch('/{answer}', {{method: 'POST'}}).finally(() => "
             "{{ document.body.insertAdjacentHTML('beforeend', '<button>Save</button>'); }});</script></body>")


def test_a_server_error_the_console_vouches_for_as_a_refusal_is_the_agents_not_an_env_error(
        env: ConsoleEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    """A console may answer wrong input with a 5xx (pgAdmin does, for a statement its database refused). When
    its backend's ``refusal`` vouches for one, the episode goes on and the step records the message; a 5xx it
    does not vouch for still ends the episode as env_error. The agent is told the refusal as the error of its
    action."""
    def refusal(status: int, body: str) -> str | None:
        return body.removeprefix("refused: ") if body.startswith("refused: ") else None

    monkeypatch.setattr(env.adapter, "refusal", refusal, raising=False)
    env.reset(Task(goal="refusal", start_url="/vpc/vpcs"))
    for answer, body in (("refuse", "refused: rules on SELECT must have action INSTEAD SELECT"), ("crash", "Traceback")):
        _serve(env.page, f"**/{answer}-page", 200, FORM_PAGE.format(answer=answer), "text/html")
        _serve(env.page, f"**/{answer}", 500, body, "application/json")
    observation, _, terminated, _, info = env.step('goto("/refuse-page")')
    assert not terminated and info["refused"] == "rules on SELECT must have action INSTEAD SELECT"
    assert [m.name for m in observation.marks] == ["Save"]
    told = "the console refused it: rules on SELECT must have action INSTEAD SELECT"  # so the agent does not take it for done
    assert observation.last_error == told and info["result"] == told and observation.history[-1].result == told
    *_, terminated, _, info = env.step('goto("/crash-page")')
    assert terminated and info["status"] == "env_error" and "server error 500" in info["cause"]


SAVE_PAGE = ("<!doctype html><title>rule</title><body><button onclick=\"fetch('/save', {method: 'POST'})\">Save"
             "</button></body>")


def _rule_page(env: ConsoleEnv, monkeypatch: pytest.MonkeyPatch, page: str, refusal: str,
               settle: SettleConfig | None = None) -> Observation:
    """The observation of a page whose Save the console refuses with ``refusal`` (a 500 its backend vouches for)."""
    monkeypatch.setattr(env.adapter, "refusal", lambda status, body: body or None, raising=False)
    if settle is not None:
        monkeypatch.setattr(env.config, "settle", settle)
    env.reset(Task(goal="refusal", start_url="/vpc/vpcs"))
    _serve(env.page, "**/rule-page", 200, page, "text/html")
    _serve(env.page, "**/save", 500, refusal, "application/json")
    observation, *_ = env.step('goto("/rule-page")')
    return observation


def _follow_save(env: ConsoleEnv, observation: Observation, limit: int) -> tuple[list[str], list[str], dict[str, Any]]:
    """The follower on "Click **Save**." until the episode ends: its actions, each step's result, the last info."""
    policy = DocFollowerPolicy()
    policy.reset("create the rule", ["Click **Save**."])
    actions, results, info = [], [], {}
    for _ in range(limit):
        decision = policy.act(observation)
        actions.append(decision.action)
        observation, _, terminated, _, info = env.step(decision)
        results.append(info["result"])
        if terminated:
            break
    return actions, results, info


def test_a_follower_told_of_a_refused_save_does_not_call_the_task_done(
        env: ConsoleEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Save the console refuses (a vouched 500) is the error of the action: the follower retries it once, then
    ends the episode unachievable with the console's message, not ``task_complete`` after a save that never was."""
    observation = _rule_page(env, monkeypatch, SAVE_PAGE, "rules on SELECT must have action INSTEAD SELECT")
    save = f"click({observation.marks[0].id})"
    actions, _, info = _follow_save(env, observation, 4)
    assert actions[:2] == [save, save] and info["status"] == "unachievable"
    assert actions[2].startswith("task_unachievable(") and "INSTEAD SELECT" in actions[2]


# A Save whose request goes out 200 ms after the click: a settle that does not wait for the page's timers observes the
# page before the console's refusal, as a loaded machine may (the browser's report of a request can come that late)
TIMED_SAVE_PAGE = ("<!doctype html><title>rule</title><body><button onclick=\"setTimeout(() => fetch('/save', "
                   "{method: 'POST'}), 200)\">Save</button></body>")


def test_done_is_not_taken_while_the_console_refuses_the_save(env: ConsoleEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    """The step's observation came before the console refused the Save, so the follower answers ``task_complete``.
    The environment waits for what the page still has pending before it accepts that answer, tells the refusal
    instead, and the follower retries the Save once, then ends the episode unachievable with the console's message."""
    observation = _rule_page(env, monkeypatch, TIMED_SAVE_PAGE, "rules on SELECT must have action INSTEAD SELECT",
                             SettleConfig(timers_max_s=0.0))
    save = f"click({observation.marks[0].id})"
    actions, results, info = _follow_save(env, observation, 6)
    names = [a.split("(")[0] if a.startswith("task_") else a for a in actions]
    assert names == [save, "task_complete", save, "task_complete", "task_unachievable"], actions
    assert results[0] == "ok" and results[1].startswith("the console refused it: rules on SELECT")  # seen only then
    assert "not performed" in results[1] and info["status"] == "unachievable"
    assert "INSTEAD SELECT" in actions[-1]


def test_an_action_chosen_before_a_late_refusal_showed_is_not_performed(env: ConsoleEnv,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The console refused the Save while the agent was deciding what to do next (a model thinking for a while):
    the agent chose on a page that did not show it, so its action is not performed, and it is told the refusal."""
    observation = _rule_page(env, monkeypatch, TIMED_SAVE_PAGE, "duplicate name", SettleConfig(timers_max_s=0.0))
    observation, _, _, _, info = env.step(f"click({observation.marks[0].id})")
    assert info["result"] == "ok" and info["refused"] is None  # observed before the Save went out
    env.page.wait_for_timeout(500)  # the agent thinks; meanwhile the request goes out and is refused
    observation, _, terminated, _, info = env.step('goto("/vpc/vpcs")')
    assert not terminated and info["refused"] == "duplicate name" and info["performed"] is False
    assert observation.url.endswith("/rule-page") and observation.last_error.startswith("the console refused it: dup")


LATE_PAGE = ("<!doctype html><title>late</title><body><p>Loading</p><script>"
             "setTimeout(() => { document.body.innerHTML = '<button>Ready</button>'; }, 700);</script></body>")


def test_a_page_with_no_control_yet_is_looked_at_again(env: ConsoleEnv) -> None:
    """A page still being drawn (here: its controls come after a 700 ms timer, longer than the settle waits for)
    is observed again rather than shown to the agent empty; a page that stays empty costs a bounded wait."""
    env.reset(Task(goal="wait for it", start_url="/vpc/vpcs"))
    env.page.route("**/late-page", lambda route: route.fulfill(status=200, content_type="text/html", body=LATE_PAGE))
    env.page.route("**/empty-page", lambda route: route.fulfill(status=200, content_type="text/html",
                                                               body="<!doctype html><title>empty</title><p>nothing</p>"))
    observation, *_ = env.step('goto("/late-page")')
    assert [m.name for m in observation.marks] == ["Ready"]
    began = time.monotonic()
    observation, *_ = env.step('goto("/empty-page")')
    assert observation.marks == [] and time.monotonic() - began < 5


def test_lost_login_is_an_env_error(env: ConsoleEnv) -> None:
    env.reset(Task(goal="session", start_url="/vpc/vpcs"))
    env.page.context.clear_cookies()
    *_, terminated, _, info = env.step('goto("/ecs/instances")')
    assert terminated and info["status"] == "env_error" and "lost the console login" in info["cause"]


def test_unreachable_console_fails_reset_as_env_error(playwright_instance: Any) -> None:
    from consoleagent.adapters.web import WebConsoleAdapter

    unreachable = ConsoleEnv(WebConsoleAdapter("http://127.0.0.1:9", login_routine=None),
                             browser=BrowserHost(playwright=playwright_instance))
    try:
        with pytest.raises(EnvironmentFault) as exc:
            unreachable.reset(Task(goal="nothing", start_url="/"))
        assert "ERR_CONNECTION_REFUSED" in exc.value.cause or "network" in exc.value.cause
    finally:
        unreachable.close()


def test_in_process_stratus_removes_its_throwaway_database_when_stopped() -> None:
    """Each benchmark worker starts its own stratus; its temporary SQLite file must not outlive it."""
    adapter = StratusAdapter(time_scale=20.0)
    adapter.start()
    database = adapter.runtime.settings.database_url.removeprefix("sqlite:///")
    assert Path(database).is_file()
    adapter.stop()
    assert not Path(database).parent.exists()
