"""Set-of-Mark marking: run marks.js in the page, turn its JSON into `Mark`s, find a mark again,
and say in plain words why an action on it would fail.

One `page.evaluate` per observation returning one JSON string: DESIGN §6 measured that as the
difference between single-digit milliseconds and the hundreds that other tools take.
"""

from __future__ import annotations

import json
import time
import weakref
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from consoleagent.observation.types import Mark

# Records which elements got click-like listeners through addEventListener, so a <div> a framework
# made clickable is found even without role, onclick or a pointer cursor. Runs before any page
# script, in every frame.
LISTENER_INIT_SCRIPT = """
(() => {
  if (window.__somListeners) return;
  const seen = new WeakSet();
  Object.defineProperty(window, "__somListeners", {value: seen, enumerable: false});
  const kinds = new Set(["click", "mousedown", "pointerdown", "mouseup", "pointerup", "touchstart", "dblclick"]);
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (kinds.has(type) && this && this.nodeType === 1) seen.add(this);
    return original.call(this, type, listener, options);
  };
})();
"""

# Ids handed out per Page, so a new document never reuses an id a policy saw on the previous one.
_next_id: "weakref.WeakKeyDictionary[Any, int]" = weakref.WeakKeyDictionary()


_CALL = "(a) => { const f = window.__somMark; return typeof f === 'function' ? f(a) : null; }"


@cache
def marks_script() -> str:
    """The injected marking function (shipped as package data next to this module)."""
    return resources.files("consoleagent.observation").joinpath("marks.js").read_text(encoding="utf-8")


def init_script() -> str:
    """The listener recorder plus the marking function, defined in every document before its own scripts."""
    return LISTENER_INIT_SCRIPT + "\n(() => { const f = " + marks_script() + """;
  if (!window.__somMark) Object.defineProperty(window, "__somMark", {value: f, configurable: true, writable: true, enumerable: false});
})();\n"""


@cache
def _fallback_call() -> str:
    return "(a) => (\n" + marks_script() + "\n)(a)"


def install(context: Any) -> None:
    """Add the init script to a BrowserContext (once per context, before its pages load).

    Without it marking still works, but misses listener-only clickables and sends the whole script
    with the first call on each document.
    """
    context.add_init_script(script=init_script())


@dataclass
class PageSnapshot:
    """One observation of a page: its marks and the outline items around them."""

    url: str
    title: str
    marks: list[Mark]
    items: list[dict[str, Any]]
    viewport: tuple[int, int] = (0, 0)
    scroll: tuple[float, float] = (0.0, 0.0)
    page_height: float = 0.0
    modal: str | None = None  # the name of the open modal dialog that scopes the marks
    extras: dict[int, dict[str, str]] = field(default_factory=dict)  # per id: desc (tooltip/title), error
    skipped_frames: list[dict[str, str]] = field(default_factory=list)  # cross-origin frames not observed
    elapsed_ms: float = 0.0  # wall time of the evaluate round trip
    script_ms: float = 0.0  # time inside the page
    walk_ms: float = 0.0  # of which the DOM walk

    def mark(self, mark_id: int) -> Mark | None:
        return next((m for m in self.marks if m.id == mark_id), None)

    def text(self, budget_tokens: int = 2000) -> str:
        from consoleagent.observation.outline import render

        return render(self, budget_tokens)


def snapshot(page: Any) -> PageSnapshot:
    """Mark the page's interactive elements and collect its outline, in one evaluate call."""
    start = _next_id.get(page, 1)
    t0 = time.perf_counter()
    raw = page.evaluate(_CALL, {"start": start})
    if raw is None:  # no init script in this document: send the source (it then keeps itself)
        raw = page.evaluate(_fallback_call(), {"start": start})
    elapsed = (time.perf_counter() - t0) * 1000
    return parse(raw, elapsed, page)


def parse(raw: str, elapsed_ms: float = 0.0, page: Any = None) -> PageSnapshot:
    data = json.loads(raw)
    if page is not None:
        _next_id[page] = max(_next_id.get(page, 1), int(data["next"]))
    marks: list[Mark] = []
    extras: dict[int, dict[str, str]] = {}
    for rec in data["marks"]:
        extra = {k: rec.pop(k) for k in ("desc", "error") if k in rec}
        if extra:
            extras[rec["id"]] = extra
        marks.append(Mark.from_dict(rec))
    return PageSnapshot(
        url=data["url"], title=data["title"], marks=marks, items=data["items"], viewport=(data["vw"], data["vh"]),
        scroll=(data["sx"], data["sy"]), page_height=data["page_h"], modal=data["modal"], extras=extras,
        skipped_frames=data["skipped_frames"], elapsed_ms=round(elapsed_ms, 2), script_ms=data["ms"], walk_ms=data.get("ms_walk", 0.0),
    )


def locate(page: Any, mark: Mark) -> Any:
    """A Playwright Locator for the marked element, inside its iframe path (CSS pierces open shadow roots)."""
    scope: Any = page
    if mark.frame:
        for selector in mark.frame.split(" >> "):
            scope = scope.frame_locator(selector)
    return scope.locator(f'[data-som="{mark.id}"]')


# Runs in the element's own frame over every element carrying the id attribute; the WeakMap in the
# top window decides which one is really the marked element (a cloned node copies the attribute).
_DIAGNOSE_JS = """
(els, id) => {
  const top = window.top;
  const S = top.__som;
  const el = els.find((e) => S && S.ids.get(e) === id);
  if (!el || !el.isConnected) return {kind: "stale"};
  const clean = (s) => (s || "").replace(/\\s+/g, " ").trim();
  const tip = () => {
    const ids = el.getAttribute("aria-describedby");
    if (ids) { const t = clean(ids.split(/\\s+/).map((i) => { const r = el.getRootNode().getElementById ?
      el.getRootNode().getElementById(i) : document.getElementById(i); return r ? r.textContent : ""; }).join(" ")); if (t) return t; }
    for (let n = el, k = 0; n && k < 4; n = n.parentElement, k++) { const t = clean(n.getAttribute("title")); if (t) return t; }
    return "";
  };
  const disabled = (el.matches(":disabled")) || !!el.closest("[aria-disabled=true]");
  if (disabled) return {kind: "disabled", tip: tip()};
  if (el.closest("[inert]")) return {kind: "covered", by: "an inert region (a modal dialog is open)"};
  const visible = el.checkVisibility({opacityProperty: false, visibilityProperty: true});
  let r = el.getBoundingClientRect();
  if (!visible || r.width < 1 || r.height < 1) return {kind: "hidden"};
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const inView = (b) => b.left < vw && b.top < vh && b.right > 0 && b.bottom > 0;
  if (!inView(r)) { el.scrollIntoView({block: "center", inline: "center", behavior: "instant"}); r = el.getBoundingClientRect(); }
  if (!inView(r)) return {kind: "unreachable"};
  const up = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const contains = (a, b) => { for (let n = b; n; n = up(n)) if (n === a) return true; return false; };
  const hitAtCentre = () => {
    const cx = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1), cy = Math.min(Math.max(r.top + r.height / 2, 0), vh - 1);
    let h = document.elementFromPoint(cx, cy);
    while (h && h.shadowRoot) { const inner = h.shadowRoot.elementFromPoint(cx, cy); if (!inner || inner === h) break; h = inner; }
    return h;
  };
  const reaches = (h) => contains(el, h) || contains(h, el) || (el.labels && Array.from(el.labels).some((l) => contains(l, h)));
  let hit = hitAtCentre();
  if (hit && !reaches(hit)) {
    // Inside the page's viewport is not inside a scrolled panel's: an element below a dialog's visible
    // part, or under the bar pinned to its bottom, is reached by scrolling the panel, as a person would.
    el.scrollIntoView({block: "center", inline: "nearest", behavior: "instant"});
    r = el.getBoundingClientRect();
    if (inView(r)) hit = hitAtCentre();
  }
  if (!hit) return {kind: "unreachable"};
  if (reaches(hit)) return null;
  let dlg = null;
  for (let n = hit; n; n = up(n)) {
    const role = n.getAttribute && n.getAttribute("role");
    if (n.localName === "dialog" || role === "dialog" || role === "alertdialog" || (n.getAttribute && n.getAttribute("aria-modal") === "true")) { dlg = n; break; }
  }
  if (!dlg) {  // a backdrop: name the dialog that sits on it
    const open = Array.from(document.querySelectorAll("dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]"))
      .filter((d) => d.checkVisibility() && d.getBoundingClientRect().width > 0);
    dlg = open.length ? open[open.length - 1] : null;
  }
  if (dlg) {
    let name = clean(dlg.getAttribute("aria-label"));
    const lb = dlg.getAttribute("aria-labelledby");
    if (!name && lb) name = clean(lb.split(/\\s+/).map((i) => { const x = document.getElementById(i); return x ? x.textContent : ""; }).join(" "));
    if (!name) { const h = dlg.querySelector("h1,h2,h3,h4,[role=heading]"); name = h ? clean(h.textContent) : ""; }
    return {kind: "covered", by: name ? `dialog '${name}'` : "a dialog"};
  }
  const label = clean(hit.getAttribute("aria-label")) || clean(hit.textContent).slice(0, 60);
  return {kind: "covered", by: `${hit.localName}${label ? ` '${label}'` : ""}`};
}
"""

_TOOLTIP_JS = """
() => Array.from(document.querySelectorAll('[role=tooltip]')).filter((t) => t.checkVisibility())
  .map((t) => (t.textContent || '').replace(/\\s+/g, ' ').trim()).filter(Boolean).join(' ')
"""


def describe(mark: Mark) -> str:
    """How a person would refer to the element: "button 'Delete' [12]"."""
    name = f" '{mark.name}'" if mark.name else ""
    return f"{mark.role}{name} [{mark.id}]"


def why_not_actionable(page: Any, mark: Mark) -> str | None:
    """A diagnosis a person can act on when the page would reject an action on `mark`; None if actionable.

    Order matters: a removed element cannot be disabled, a disabled one need not be hit-tested.
    """
    stale = f"element [{mark.id}] is no longer on the page (the page changed since it was observed)"
    try:
        found = locate(page, mark).evaluate_all(_DIAGNOSE_JS, mark.id)
    except Exception:  # the frame itself is gone or navigated
        return stale
    if found is None:
        return None
    kind = found["kind"]
    who = describe(mark)
    if kind == "stale":
        return stale
    if kind == "disabled":
        tip = found.get("tip") or _hover_tooltip(page, mark)
        return f"{who} is disabled" + (f' ("{tip}")' if tip else "")
    if kind == "hidden":
        return f"{who} is hidden"
    if kind == "unreachable":
        return f"{who} is outside the viewport and cannot be scrolled into view"
    return f"{who} is covered by {found['by']}"


def _hover_tooltip(page: Any, mark: Mark) -> str:
    """Disabled controls often explain themselves only in a tooltip that appears on hover."""
    try:
        box = locate(page, mark).bounding_box(timeout=500)
        if not box:
            return ""
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(150)
        return page.evaluate(_TOOLTIP_JS) or ""
    except Exception:
        return ""
