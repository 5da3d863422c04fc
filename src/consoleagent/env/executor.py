"""Performing one action on the page, with a diagnosis a person would understand when the page
refuses it (DESIGN §6: timeouts are BrowserGym's most common error, and users ask *why*)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urljoin

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from consoleagent.actions.spec import Action
from consoleagent.env.faults import ActionRejected, browser_fault, navigation_fault, no_option_error
from consoleagent.observation import marking
from consoleagent.observation.types import Mark, names_option

ELEMENT_TIMEOUT_MS = 3_000
NAVIGATION_TIMEOUT_MS = 20_000
Provisioner = Callable[[str], str]  # description -> resource report; raises EnvironmentFault on failure


@dataclass
class Outcome:
    """What an action did: nothing to report, or the control information the episode needs."""

    done: bool = False  # task_complete / task_unachievable
    answer: str | None = None
    discrepancy: dict[str, Any] | None = None
    resource_report: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Executor:
    page: Any
    base_url: str
    marks: dict[int, Mark]
    upload_dir: str | None = None
    provisioner: Provisioner | None = None

    def run(self, action: Action) -> Outcome:
        handler = getattr(self, f"_do_{action.name}")
        try:
            return handler(action)
        except ActionRejected:
            raise
        except PlaywrightTimeout as exc:
            raise self._timeout_diagnosis(action, exc) from None
        except PlaywrightError as exc:
            fault = browser_fault(exc)
            if fault:
                raise fault from None
            raise ActionRejected(f"{action} failed: {str(exc).splitlines()[0]}") from None

    # --- element actions --------------------------------------------------------------------
    def _target(self, action: Action) -> tuple[Mark, Any]:
        mark_id = action.element_id
        mark = self.marks.get(mark_id) if mark_id is not None else None
        if mark is None:
            raise ActionRejected(f"there is no element [{mark_id}] on this page; use an id from the current observation")
        problem = marking.why_not_actionable(self.page, mark)
        if problem:
            raise ActionRejected(problem)
        return mark, marking.locate(self.page, mark)

    def _timeout_diagnosis(self, action: Action, exc: Exception) -> ActionRejected:
        mark = self.marks.get(action.element_id) if action.element_id is not None else None
        problem = marking.why_not_actionable(self.page, mark) if mark else None
        return ActionRejected(problem or f"{action} timed out: the page did not respond")

    def _do_click(self, action: Action) -> Outcome:
        _, locator = self._target(action)
        locator.click(timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    def _do_dblclick(self, action: Action) -> Outcome:
        _, locator = self._target(action)
        locator.dblclick(timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    def _do_hover(self, action: Action) -> Outcome:
        _, locator = self._target(action)
        locator.hover(timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    def _do_type(self, action: Action) -> Outcome:
        mark, locator = self._target(action)
        if mark.role in ("combobox", "listbox") and mark.tag == "select":
            raise ActionRejected(f"[{mark.id}] is a drop-down list; use select({mark.id}, \"option\")")
        locator.fill(str(action.arg("text")), timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    def _do_select(self, action: Action) -> Outcome:
        mark, locator = self._target(action)
        option = str(action.arg("option"))
        if mark.tag != "select":
            raise ActionRejected(f"[{mark.id}] {mark.role} \"{mark.name}\" is not a native drop-down list: "
                                 "click it, then click the option")
        labels = locator.evaluate("el => Array.from(el.options).map(o => [o.label.trim(), o.value, o.disabled])")
        for label, value, disabled in labels:
            if names_option(option, label, value):
                if disabled:  # Playwright would wait for it to be enabled until the timeout
                    raise ActionRejected(f"[{mark.id}]'s option \"{label}\" is disabled: it cannot be chosen")
                locator.select_option(value=value, timeout=ELEMENT_TIMEOUT_MS)
                return Outcome()
        # only what can be chosen: a disabled entry says why the list is empty ("No options available", "Loading...");
        # listed as an option, it was selected, and timed out
        raise ActionRejected(no_option_error(mark.id, option, [label for label, _, disabled in labels if not disabled],
                                             [label for label, _, disabled in labels if disabled]))

    def _set_checked(self, action: Action, wanted: bool) -> Outcome:
        mark, locator = self._target(action)
        if ("checked" in mark.states) == wanted:
            return Outcome()
        if mark.tag == "input":
            locator.set_checked(wanted, timeout=ELEMENT_TIMEOUT_MS)
        else:  # switches and ARIA checkboxes toggle on click
            locator.click(timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    def _do_check(self, action: Action) -> Outcome:
        return self._set_checked(action, True)

    def _do_uncheck(self, action: Action) -> Outcome:
        return self._set_checked(action, False)

    def _do_upload(self, action: Action) -> Outcome:
        _, locator = self._target(action)
        if not self.upload_dir:
            raise ActionRejected("this task has no files to upload")
        root = Path(self.upload_dir).resolve()
        path = (root / str(action.arg("path"))).resolve()
        if root not in path.parents or not path.is_file():
            raise ActionRejected(f"no file {action.arg('path')!r} in the task's upload folder")
        locator.set_input_files(str(path), timeout=ELEMENT_TIMEOUT_MS)
        return Outcome()

    # --- page actions -----------------------------------------------------------------------
    def _do_scroll(self, action: Action) -> Outcome:
        direction = action.arg("direction")
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
        if action.arg("id") is not None:
            _, locator = self._target(action)
            locator.evaluate("(el, d) => el.scrollBy(d[0] * el.clientWidth * 0.8, d[1] * el.clientHeight * 0.8)", [dx, dy])
        else:
            size = self.page.viewport_size or {"width": 1280, "height": 800}
            self.page.mouse.wheel(dx * size["width"] * 0.8, dy * size["height"] * 0.8)
        return Outcome()

    def _do_press(self, action: Action) -> Outcome:
        self.page.keyboard.press(str(action.arg("key")))
        return Outcome()

    def _do_goto(self, action: Action) -> Outcome:
        url = urljoin(self.base_url + "/", str(action.arg("url")))
        try:
            self.page.goto(url, timeout=NAVIGATION_TIMEOUT_MS)
        except PlaywrightError as exc:
            if "net::ERR_ABORTED" in str(exc):  # a download or a redirect the page cancelled: not a fault
                return Outcome()
            raise navigation_fault(exc, url) from None
        return Outcome()

    def _do_back(self, action: Action) -> Outcome:
        self.page.go_back(timeout=NAVIGATION_TIMEOUT_MS)
        return Outcome()

    def _do_wait(self, action: Action) -> Outcome:
        time.sleep(min(30.0, max(0.0, float(action.arg("seconds")))))
        return Outcome()

    # --- control actions --------------------------------------------------------------------
    def _do_request_resource(self, action: Action) -> Outcome:
        if self.provisioner is None:
            raise ActionRejected("no provisioner is configured for this console; work with the resources that exist")
        return Outcome(resource_report=self.provisioner(str(action.arg("description"))))

    def _do_report_discrepancy(self, action: Action) -> Outcome:
        return Outcome(discrepancy=action.to_dict()["args"])

    def _do_task_complete(self, action: Action) -> Outcome:
        return Outcome(done=True, answer=action.arg("answer") or "")

    def _do_task_unachievable(self, action: Action) -> Outcome:
        return Outcome(done=True, answer=action.arg("reason"))
