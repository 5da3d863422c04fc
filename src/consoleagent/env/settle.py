"""Waiting until a page has settled after an action: no request in flight, no DOM mutation for a
short quiet window, and no loading layer covering the page, bounded by upper limits.

Requests are counted twice: from the browser's reports (Playwright's events; every request, a
navigation's too) and inside the page, where ``fetch`` and ``XMLHttpRequest`` start. The browser's
report of a request a click sent can reach us after the page has looked quiet for the whole window
(seen in CI: on a loaded machine a Save's refusal then came after the step was observed, and the agent
took the Save for done); the page's own count has it before the click returns.

Console pages keep changing after a click (a modal animates in, a table reloads, a badge polls),
and observing too early shows the agent a half-drawn page. Waiting a fixed time is either too slow
or too short; this waits exactly as long as the page is busy. A single-page console may also sit
quiet behind a "Loading ..." splash (a spinner drawn by CSS mutates nothing) while it starts: a
page-covering layer with no control in it, and none drawn above it, is waited out too.

Pages also act a moment after they look finished: a dialog tab that focuses its first field 200 ms
after it is shown, a menu that closes on a short timer. An agent acting in that gap sees its typing
land in a field that then loses focus. So the short one-shot timers (``setTimeout`` of at most
``SHORT_TIMER_MS``) the page has pending are waited for too, for at most ``timers_max_s`` (a page
that keeps re-arming short timers does not hold every step).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

SHORT_TIMER_MS = 500  # a pending setTimeout this short is the page about to act on its own

# Installed in every document of the context: the time of the last DOM mutation, in the page's clock,
# and when each pending short one-shot timer is due (setTimeout wrapped; the callback runs unchanged).
MUTATION_TRACKER = """
(() => {
  if (window.__caSettle) return;
  const state = window.__caSettle = { last: performance.now(), timers: new Map() };
  const setT = window.setTimeout, clearT = window.clearTimeout;
  window.setTimeout = function (handler, delay, ...rest) {
    const ms = Number(delay) || 0;
    if (typeof handler !== 'function' || ms > %d) return setT.call(window, handler, delay, ...rest);
    const id = setT.call(window, function (...args) { state.timers.delete(id); return handler.apply(this, args); },
                         delay, ...rest);
    state.timers.set(id, performance.now() + ms);
    return id;
  };
  window.clearTimeout = function (id) { state.timers.delete(id); return clearT.call(window, id); };
  // The page's own requests, counted where they start: the click that sends one returns only after its handler
  // ran, so the request is counted before the settle first looks (the browser's report of it may come later).
  state.requests = new Map();
  let serial = 0;
  const begin = () => { const id = ++serial; state.requests.set(id, performance.now()); return id; };
  const end = (id) => { if (state.requests.delete(id)) state.last = performance.now(); };  // its answer is news
  const fetchOf = window.fetch;
  if (fetchOf) window.fetch = function (...args) {
    const id = begin();
    try { return fetchOf.apply(this, args).finally(() => end(id)); } catch (e) { end(id); throw e; }
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const id = begin();
    this.addEventListener('loadend', () => end(id));
    try { return send.apply(this, args); } catch (e) { end(id); throw e; }
  };
""" % SHORT_TIMER_MS + """
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
# [ms since the last mutation, ms until the last pending short timer is due (at least 1 while one is
# pending: on a loaded CPU a timer runs late, and an overdue one is about to run)]. A document still
# loading is never quiet, whatever its mutations say; nor is one with a request of its own in flight that
# started less than ``ignoreMs`` ago.
QUIET_FOR_MS = """
(ignoreMs) => {
  const state = window.__caSettle;
  if (document.readyState !== 'complete') return [0, 0];
  if (!state) return [1e9, 0];
  const now = performance.now();
  for (const at of (state.requests ? state.requests.values() : [])) if (now - at < ignoreMs) return [0, 0];
  let due = 0, pending = false;
  for (const at of (state.timers ? state.timers.values() : [])) { pending = true; due = Math.max(due, at - now); }
  return [now - state.last, pending ? Math.max(due, 1) : 0];  // an overdue timer (a busy CPU) is still about to run
}
"""

# What covers the page, if it is a splash or loading mask: the layer's text ("overlay" if none), or "".
# A layer is a fixed/absolute element over 90% of the viewport that the centre and four points near
# the corners hit. It is a splash only if it holds no control and no control is drawn above it (a
# dialog drawn beside its mask is a modal the agent should see, not something to wait out).
OVERLAY_JS = """
() => {
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  if (!vw || !vh || !document.body) return "";
  const layerAt = (x, y) => {
    for (let n = document.elementFromPoint(x, y); n && n !== document.body && n !== document.documentElement; n = n.parentElement) {
      const r = n.getBoundingClientRect();
      if (r.width >= vw * 0.9 && r.height >= vh * 0.9) {
        const pos = getComputedStyle(n).position;
        if (pos === "fixed" || pos === "absolute") return n;
      }
    }
    return null;
  };
  const layer = layerAt(vw / 2, vh / 2);
  if (!layer) return "";
  for (const [x, y] of [[0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9]]) if (layerAt(vw * x, vh * y) !== layer) return "";
  const CONTROLS = "button,a[href],input:not([type=hidden]),select,textarea,[role=button],[role=dialog],[role=alertdialog]," +
    "[role=link],[role=menuitem],[role=tab],[contenteditable=true]";
  if (layer.querySelector(CONTROLS)) return "";
  let seen = 0;
  for (const el of document.querySelectorAll(CONTROLS)) {
    if (layer.contains(el)) continue;
    if (++seen > 300) break;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right < 0 || r.bottom < 0 || r.left > vw || r.top > vh) continue;
    const hit = document.elementFromPoint(Math.min(r.left + r.width / 2, vw - 1), Math.min(r.top + r.height / 2, vh - 1));
    if (hit && (hit === el || el.contains(hit))) return "";
  }
  return (layer.innerText || "").replace(/\\s+/g, " ").trim().slice(0, 80) || "overlay";
}
"""
OVERLAY_LOOK_S = 0.25  # how often a page that is not yet quiet is checked for a covering layer


@dataclass
class SettleConfig:
    quiet_ms: float = 60.0  # no mutation for this long (requests in flight are tracked separately)
    max_s: float = 5.0  # never wait longer than this for a busy page
    poll_s: float = 0.01
    ignore_request_after_s: float = 2.0  # long polls and slow beacons do not keep a page "busy" forever
    overlay_max_s: float = 30.0  # how long a loading layer covering the page may hold the wait
    timers_max_s: float = 1.0  # how long pending short timers may hold the wait


class RequestTracker:
    """Counts the page's requests in flight, from Playwright's events (no page script needed)."""

    def __init__(self, page: Any) -> None:
        self._inflight: dict[Any, float] = {}
        self.stuck_overlay = ""  # a covering layer already waited out in full: not waited for again
        page.on("request", lambda req: self._inflight.__setitem__(req, time.monotonic()))
        page.on("requestfinished", lambda req: self._inflight.pop(req, None))
        page.on("requestfailed", lambda req: self._inflight.pop(req, None))

    def busy(self, ignore_after_s: float) -> bool:
        now = time.monotonic()
        return any(now - started < ignore_after_s for started in self._inflight.values())


def wait_settled(page: Any, tracker: RequestTracker, config: SettleConfig) -> float:
    """Block until the page is quiet and uncovered, or a bound passes; returns the seconds waited.

    A busy page is waited for at most ``max_s``; a loading layer over the page at most
    ``overlay_max_s`` (once: a layer that outlasts it is not waited for again on later steps);
    pending short timers at most ``timers_max_s``.
    """
    started = time.monotonic()
    deadline = started + config.max_s
    overlay, next_look = "", started
    while time.monotonic() < deadline:
        busy = tracker.busy(config.ignore_request_after_s)
        try:
            quiet, due = (0.0, 0.0) if busy else page.evaluate(QUIET_FOR_MS, config.ignore_request_after_s * 1000)
            if due > 0 and time.monotonic() - started < config.timers_max_s:
                quiet = 0.0  # the page is about to act on a timer of its own
            if quiet >= config.quiet_ms or time.monotonic() >= next_look:  # a splash shows while the page loads too
                overlay, next_look = page.evaluate(OVERLAY_JS), time.monotonic() + OVERLAY_LOOK_S
        except Exception as exc:  # navigation in progress destroys the context: wait for the new one
            if "closed" in str(exc).lower() or "crash" in str(exc).lower():
                raise
            quiet = 0.0
        if overlay and overlay != tracker.stuck_overlay:
            deadline = max(deadline, started + config.overlay_max_s)
        elif quiet >= config.quiet_ms:
            break
        page.wait_for_timeout(config.poll_s * 1000)
    else:
        if overlay:
            tracker.stuck_overlay = overlay
    return time.monotonic() - started
