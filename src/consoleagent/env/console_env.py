"""``ConsoleEnv``: a Gymnasium-style environment over a real browser and any web console.

``reset(task)`` opens a fresh browser context, signs in through the adapter, opens the task's
start page and observes it; ``step(action)`` performs one action, waits for the page to settle,
and observes again. Rewards come from the audit-log judge after the episode, so ``step`` returns
0.0; ``info["status"]`` says how an episode ended: ``completed`` / ``unachievable`` (the agent
said so), ``truncated`` (step or time limit) or ``env_error`` (the environment failed: never the
agent's fault).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin

import gymnasium as gym
from gymnasium import spaces

from consoleagent.actions.parser import ActionParseError, parse_action
from consoleagent.actions.spec import Action
from consoleagent.adapters.base import ConsoleAdapter
from consoleagent.env.browser import BrowserHost
from consoleagent.env.executor import NAVIGATION_TIMEOUT_MS, Executor, Provisioner
from consoleagent.env.faults import ActionRejected, EnvironmentFault, browser_fault, navigation_fault
from consoleagent.env.settle import MUTATION_TRACKER, RequestTracker, SettleConfig, wait_settled
from consoleagent.observation import marking
from consoleagent.observation.screenshot import marked_screenshot
from consoleagent.observation.types import HistoryEntry, Observation
from consoleagent.actions.decision import Decision
from consoleagent.tasks.task import Task

EMPTY_PAGE_WAIT_MS = 250  # a page with no control is looked at again after this, then settled
EMPTY_PAGE_LOOKS = 4  # at most 1 s more for a page that really has no control (a blank error page)


def _told_refusal(refused: str | None, performed: bool = True) -> str | None:
    """The error the agent is told when the console refused the input its action sent: the console's message,
    as a person reads it in the dialog. Without it a policy takes the refused Save for done. A refusal that came
    after the agent saw the page is the previous action's; the one the agent then chose was not performed."""
    if not refused:
        return None
    told = f"the console refused it: {refused}"
    return told if performed else f"{told} (this answer to your previous action came after you saw the page; " \
                                  f"this action was not performed)"


@dataclass
class EnvConfig:
    viewport: tuple[int, int] = (1440, 900)
    budget_tokens: int = 2500  # size of the page outline
    screenshots: bool = False  # a marked screenshot in every observation (vision models, trajectories)
    settle: SettleConfig = field(default_factory=SettleConfig)
    headless: bool = True


@dataclass
class _Episode:
    task: Task
    context: Any
    page: Any
    tracker: RequestTracker
    started: float
    credentials: Any
    steps: int = 0
    history: list[HistoryEntry] = field(default_factory=list)
    discrepancies: list[dict[str, Any]] = field(default_factory=list)
    marks: dict[int, Any] = field(default_factory=dict)
    document_step: int | None = None
    resource_report: str | None = None
    fault: str | None = None
    refused: str | None = None  # the console's refusal of the agent's input since the last step (``refusal``)
    done: bool = False


class ConsoleEnv(gym.Env):
    """One episode at a time in one browser context; create one env per worker process."""

    metadata = {"render_modes": []}

    def __init__(self, adapter: ConsoleAdapter, config: EnvConfig | None = None, *,
                 provisioner: Provisioner | None = None, browser: BrowserHost | None = None) -> None:
        self.adapter = adapter
        self.config = config or EnvConfig()
        self.provisioner = provisioner
        self.host = browser or BrowserHost(headless=self.config.headless)
        # Observations are structured (Observation); their text form is Observation.render().
        self.observation_space = spaces.Text(max_length=1_000_000)
        self.action_space = spaces.Text(max_length=4_096)
        self._episode: _Episode | None = None
        self.adapter.start()

    # --- gym API ----------------------------------------------------------------------------
    def reset(self, task: Task | None = None, *, seed: int | None = None, options: dict[str, Any] | None = None,
              credentials: Any = None, resource_report: str | None = None) -> tuple[Observation, dict[str, Any]]:
        """Start an episode; raises EnvironmentFault if the console cannot be reached or signed in to.

        ``credentials`` (a leased account) overrides the adapter's fresh ones; ``resource_report``
        says what was provisioned for the task and is shown in every observation.
        """
        super().reset(seed=seed)
        task = task or (options or {}).get("task")
        if task is None:
            raise ValueError("reset needs a task: env.reset(Task(goal=...))")
        self._close_episode()
        started = time.monotonic()
        try:
            context = self.host.browser().new_context(
                viewport={"width": self.config.viewport[0], "height": self.config.viewport[1]})
        except Exception as exc:
            raise browser_fault(exc) or EnvironmentFault(f"could not open a browser context: {exc}") from None
        context.add_init_script(MUTATION_TRACKER)
        marking.install(context)
        page = context.new_page()
        episode = _Episode(task, context, page, RequestTracker(page), started, credentials=None,
                           resource_report=resource_report)
        self._episode = episode
        self._watch(episode)
        try:
            episode.credentials = credentials or self.adapter.credentials()
            self.adapter.login(page, episode.credentials)
        except EnvironmentFault:
            raise
        except Exception as exc:
            raise browser_fault(exc) or EnvironmentFault(f"sign-in failed: {str(exc).splitlines()[0]}") from None
        start_url = urljoin(self.adapter.base_url + "/", task.start_url)
        try:
            page.goto(start_url, timeout=NAVIGATION_TIMEOUT_MS)
        except Exception as exc:
            raise navigation_fault(exc, start_url) from None
        self._settle(episode)
        self._raise_fault(episode)
        observation, observe_s = self._observe(episode, last_error=None)
        return observation, {"credentials": episode.credentials, "timings": {"observe": observe_s},
                             "start_url": start_url}

    def step(self, action: str | Action | Decision) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        episode = self._require_episode()
        decision = action if isinstance(action, Decision) else Decision(action=str(action))
        if decision.document_step is not None:
            episode.document_step = decision.document_step
        episode.steps += 1
        info: dict[str, Any] = {"action": decision.action, "parsed": None, "result": "ok", "status": None,
                                "timings": {}, "discrepancy": None, "answer": None}
        timings = info["timings"]
        error: str | None = None
        try:
            parsed = action if isinstance(action, Action) else parse_action(decision.action) if decision.action \
                else self._no_action(decision)
            info["parsed"] = parsed.to_dict()
            began = time.monotonic()
            if self._refused_unseen(episode, parsed):
                info["performed"] = False  # told below, as this step's error, with the page as it now is
            else:
                outcome = Executor(episode.page, self.adapter.base_url, episode.marks, episode.task.upload_dir,
                                   self.provisioner).run(parsed)
                self._apply(episode, outcome, info)
            timings["action"] = time.monotonic() - began
        except (ActionParseError, ActionRejected) as exc:
            error = str(exc)
        except EnvironmentFault as exc:
            return self._end_with_fault(episode, exc.cause, info)
        except Exception as exc:  # a Playwright failure outside the executor's handling
            fault = browser_fault(exc)
            if fault is None:
                raise
            return self._end_with_fault(episode, fault.cause, info)
        info["result"] = error or "ok"
        episode.history.append(HistoryEntry(episode.steps, decision.action or "(no action)", info["result"]))
        try:
            if not info["status"]:
                timings["settle"] = self._settle(episode)
            self._raise_fault(episode)
            info["refused"], episode.refused = episode.refused, None  # the settle has let Playwright tell responses
            error = error or _told_refusal(info["refused"], performed=info.get("performed", True))
            info["result"] = episode.history[-1].result = error or "ok"
            observation, timings["observe"] = self._observe(episode, last_error=error)
            self._raise_fault(episode)  # a response the page was still waiting for may fail while it is observed
        except EnvironmentFault as exc:
            return self._end_with_fault(episode, exc.cause, info)
        except Exception as exc:
            fault = browser_fault(exc)
            if fault is None:
                raise
            return self._end_with_fault(episode, fault.cause, info)
        terminated = info["status"] in ("completed", "unachievable")
        truncated = False
        if not terminated:
            if episode.steps >= episode.task.max_steps:
                info.update(status="truncated", cause=f"step limit of {episode.task.max_steps} reached")
                truncated = True
            elif time.monotonic() - episode.started > episode.task.time_limit_s:
                info.update(status="truncated", cause=f"time limit of {episode.task.time_limit_s:.0f}s reached")
                truncated = True
        episode.done = terminated or truncated
        info["discrepancies"] = list(episode.discrepancies)
        return observation, 0.0, terminated, truncated, info

    def close(self) -> None:
        self._close_episode()
        self.host.close()
        self.adapter.stop()

    # --- helpers ----------------------------------------------------------------------------
    @property
    def page(self) -> Any:
        """The episode's Playwright page (for adapters, judges and tests)."""
        return self._require_episode().page

    @property
    def discrepancies(self) -> list[dict[str, Any]]:
        return list(self._require_episode().discrepancies)

    def _require_episode(self) -> _Episode:
        if self._episode is None:
            raise RuntimeError("call reset(task) before step()")
        if self._episode.done:
            raise RuntimeError("the episode has ended; call reset(task) to start another")
        return self._episode

    @staticmethod
    def _no_action(decision: Decision) -> Action:
        raise ActionParseError(decision.meta.get("parse_error")
                               or "your answer contained no action; end it with one line 'Action: <call>'")

    def _apply(self, episode: _Episode, outcome: Any, info: dict[str, Any]) -> None:
        if outcome.discrepancy:
            episode.discrepancies.append(outcome.discrepancy)
            info["discrepancy"] = outcome.discrepancy
        if outcome.resource_report:
            episode.resource_report = outcome.resource_report
        if outcome.done:
            info["answer"] = outcome.answer
            info["status"] = "completed" if info["parsed"]["name"] == "task_complete" else "unachievable"

    def _refused_unseen(self, episode: _Episode, action: Action) -> bool:
        """Whether the console refused the last action after the agent's observation of it was taken (its answer
        came late, or the agent thought long), so the agent decided on a page that did not show the refusal.
        Such an action is not performed: the agent is told the refusal and sees the page again first. Before an
        answer that the task is done, the page is settled first, so that a refusal still on its way is waited
        for, and so is what the page's short timers are about to send; a save the console refused is never taken
        for done."""
        if action.name == "task_complete":
            settle = self.config.settle
            wait_settled(episode.page, episode.tracker, replace(settle, timers_max_s=max(settle.timers_max_s, settle.max_s)))
        else:
            try:
                episode.page.evaluate("0")  # lets Playwright tell the responses that came while the agent thought
            except Exception as exc:  # a navigation the page started itself replaces the context: nothing to tell
                if browser_fault(exc):
                    raise
        return episode.refused is not None

    def _watch(self, episode: _Episode) -> None:
        """Faults the page reports by itself: a crash, a server error, a disconnected browser."""

        def on_crash(_: Any) -> None:
            episode.fault = "the page crashed"

        def on_response(response: Any) -> None:
            if response.status >= 500 and response.request.resource_type in ("document", "xhr", "fetch"):
                refused = self._refusal(response)
                if refused:
                    episode.refused = refused
                else:
                    episode.fault = f"server error {response.status} on {response.request.method} {response.url}"

        episode.page.on("crash", on_crash)
        episode.page.on("response", on_response)
        episode.context.on("close", lambda _: setattr(episode, "fault", episode.fault or "the browser context closed"))

    def _refusal(self, response: Any) -> str | None:
        """A server error that is the console's answer to the agent's input, as the backend proves it
        (``refusal(status, body)``: some consoles answer input their storage refused with HTTP 500): the
        agent's doing, which the page shows; any other server error is a fault of the environment."""
        judge = getattr(self.adapter, "refusal", None)
        if judge is None:
            return None
        try:
            body = response.text()
        except Exception:  # the body is gone (the page navigated away): no proof, so a fault
            return None
        return judge(response.status, body)

    def _raise_fault(self, episode: _Episode) -> None:
        if episode.fault:
            raise EnvironmentFault(episode.fault)
        signed_out = getattr(self.adapter, "is_signed_out", None)
        if signed_out and signed_out(episode.page.url):
            raise EnvironmentFault(f"lost the console login (redirected to {episode.page.url})")

    def _settle(self, episode: _Episode) -> float:
        return wait_settled(episode.page, episode.tracker, self.config.settle)

    def _snapshot(self, episode: _Episode) -> Any:
        """Observe; if a navigation starts mid-observation (a form that redirects after its request
        finished), settle on the new document and observe that instead."""
        for attempt in range(3):
            try:
                return marking.snapshot(episode.page)
            except Exception as exc:
                navigating = "context was destroyed" in str(exc) or "navigat" in str(exc).lower()
                if not navigating or attempt == 2 or browser_fault(exc):
                    raise
                episode.page.wait_for_load_state("load", timeout=NAVIGATION_TIMEOUT_MS)
                self._settle(episode)
        raise AssertionError("unreachable")

    def _observe(self, episode: _Episode, last_error: str | None) -> tuple[Observation, float]:
        began = time.monotonic()
        snapshot = self._snapshot(episode)
        for _ in range(EMPTY_PAGE_LOOKS):
            if snapshot.marks:
                break
            # A page with no control at all is one still being drawn: a reload the page started itself after
            # the settle had found the old document quiet (measured: 5 observations in 6,706 benchmark steps,
            # each just after such a reload; one ended an episode early), or a page that draws late.
            episode.page.wait_for_timeout(EMPTY_PAGE_WAIT_MS)
            self._settle(episode)
            snapshot = self._snapshot(episode)
        episode.marks = {m.id: m for m in snapshot.marks}
        screenshot = marked_screenshot(episode.page, snapshot.marks) if self.config.screenshots else None
        observation = Observation(
            url=episode.page.url, title=snapshot.title, text=snapshot.text(self.config.budget_tokens),
            marks=snapshot.marks, screenshot=screenshot, goal=episode.task.goal, document=list(episode.task.document),
            related=dict(episode.task.related), alternatives=list(episode.task.alternatives),
            document_step=episode.document_step, history=list(episode.history), last_error=last_error,
            resource_report=episode.resource_report, step=episode.steps,
        )
        return observation, time.monotonic() - began

    def _end_with_fault(self, episode: _Episode, cause: str, info: dict[str, Any]):  # noqa: ANN202
        episode.done = True
        info.update(status="env_error", cause=cause, result=info.get("result") or "ok")
        try:
            url, title = episode.page.url, ""
        except Exception:
            url, title = "", ""
        observation = Observation(url=url, title=title, text="", goal=episode.task.goal, history=list(episode.history),
                                  last_error=None, step=episode.steps)
        info["discrepancies"] = list(episode.discrepancies)
        return observation, 0.0, True, False, info

    def _close_episode(self) -> None:
        if self._episode is not None:
            try:
                self._episode.context.close()
            except Exception:  # the browser may already be gone: nothing left to close
                pass
            self._episode = None
