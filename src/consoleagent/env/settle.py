"""Waiting until a page has settled after an action: no request in flight and no DOM mutation for
a short quiet window, bounded by an upper limit.

Console pages keep changing after a click (a modal animates in, a table reloads, a badge polls),
and observing too early shows the agent a half-drawn page. Waiting a fixed time is either too slow
or too short; this waits exactly as long as the page is busy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

# Installed in every document of the context: the time of the last DOM mutation, in the page's clock.
MUTATION_TRACKER = """
(() => {
  if (window.__caSettle) return;
  window.__caSettle = { last: performance.now() };
  const start = () => {
    const target = document.documentElement || document;
    // The marker's own bookkeeping attributes (data-som*) are not the page changing.
    const ours = (r) => r.type === 'attributes' && r.attributeName && r.attributeName.startsWith('data-som');
    new MutationObserver((records) => { if (!records.every(ours)) window.__caSettle.last = performance.now(); })
      .observe(target, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start, { once: true });
})();
"""
# A document still loading is never quiet, whatever its mutations say.
QUIET_FOR_MS = ("() => document.readyState !== 'complete' ? 0 : "
                "(window.__caSettle ? performance.now() - window.__caSettle.last : 1e9)")


@dataclass
class SettleConfig:
    quiet_ms: float = 60.0  # no mutation for this long (requests in flight are tracked separately)
    max_s: float = 5.0  # never wait longer than this
    poll_s: float = 0.01
    ignore_request_after_s: float = 2.0  # long polls and slow beacons do not keep a page "busy" forever


class RequestTracker:
    """Counts the page's requests in flight, from Playwright's events (no page script needed)."""

    def __init__(self, page: Any) -> None:
        self._inflight: dict[Any, float] = {}
        page.on("request", lambda req: self._inflight.__setitem__(req, time.monotonic()))
        page.on("requestfinished", lambda req: self._inflight.pop(req, None))
        page.on("requestfailed", lambda req: self._inflight.pop(req, None))

    def busy(self, ignore_after_s: float) -> bool:
        now = time.monotonic()
        return any(now - started < ignore_after_s for started in self._inflight.values())


def wait_settled(page: Any, tracker: RequestTracker, config: SettleConfig) -> float:
    """Block until the page is quiet or ``max_s`` passes; returns the seconds waited."""
    started = time.monotonic()
    deadline = started + config.max_s
    while time.monotonic() < deadline:
        if not tracker.busy(config.ignore_request_after_s):
            try:
                quiet = page.evaluate(QUIET_FOR_MS)
            except Exception as exc:  # navigation in progress destroys the context: wait for the new one
                if "closed" in str(exc).lower() or "crash" in str(exc).lower():
                    raise
                quiet = 0.0
            if quiet >= config.quiet_ms:
                break
        page.wait_for_timeout(config.poll_s * 1000)
    return time.monotonic() - started
