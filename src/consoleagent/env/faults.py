"""Telling environment faults from the agent's mistakes.

An environment fault (browser crash, closed target, navigation timeout, server 5xx, lost login)
ends the episode as ``env_error`` with a cause and never counts against the agent. An action the
page rejects (a disabled, hidden, covered or vanished element) is the agent's business: it is
told, like a person would see it, and carries on.
"""

from __future__ import annotations

from collections.abc import Sequence


class EnvironmentFault(Exception):
    """The environment failed; the episode ends as ``env_error`` with ``cause``."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class ActionRejected(Exception):
    """The page would not take the action; the message is shown to the agent."""


OPTIONS_NAMED = 15  # options a refused select names


def no_option_error(mark_id: int, option: str, enabled: Sequence[str], disabled: Sequence[str] = ()) -> str:
    """What a select of an option the drop-down lacks is told: the options it has, or, with none, what its disabled
    entries say ("No options available"). One text for the executor and for a policy that foresees the refusal from
    the options a mark lists (``policies.follower_shadow``); both the follower and the ranker read it back."""
    shown = "; ".join(disabled)
    offered = ", ".join(f'"{label}"' for label in enabled[:OPTIONS_NAMED]) or (
        f"none (the list shows: {shown})" if shown else "none")
    return f"[{mark_id}] has no option \"{option}\"; its options are: {offered}"


_BROWSER_GONE = (
    "target page, context or browser has been closed",
    "browser has been closed",
    "target closed",
    "page crashed",
    "target crashed",
    "browser.newcontext: target",
    "connection closed",
    "has been disconnected",
)


def browser_fault(exc: BaseException) -> EnvironmentFault | None:
    """The fault behind a Playwright exception, or None when it is not an environment fault."""
    text = str(exc).lower()
    if any(marker in text for marker in _BROWSER_GONE):
        return EnvironmentFault(f"browser crashed or closed: {str(exc).splitlines()[0]}")
    if "net::err_" in text:
        return EnvironmentFault(f"network error: {str(exc).splitlines()[0]}")
    return None


def navigation_fault(exc: BaseException, url: str) -> EnvironmentFault:
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return browser_fault(exc) or EnvironmentFault(f"navigation to {url} failed: {first}")
