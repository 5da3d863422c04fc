"""The image form of an observation: a viewport screenshot with a numbered box on every mark in view,
for vision models. The boxes are an overlay drawn by the page itself (no image library needed) and
removed right after the shot, so the page is left as it was.
"""

from __future__ import annotations

from typing import Any, Iterable

from consoleagent.observation.types import Mark

_PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000", "#000075", "#c71585")

_DRAW_JS = """
(boxes) => {
  const old = document.getElementById("__som_overlay");
  if (old) old.remove();
  const layer = document.createElement("div");
  layer.id = "__som_overlay";
  layer.setAttribute("aria-hidden", "true");
  layer.style.cssText = "position:fixed;left:0;top:0;width:100vw;height:100vh;pointer-events:none;z-index:2147483647;" +
    "margin:0;padding:0;border:0;background:transparent;contain:strict;";
  for (const [id, x, y, w, h, color] of boxes) {
    const box = document.createElement("div");
    box.style.cssText = `position:absolute;left:${x}px;top:${y}px;width:${w}px;height:${h}px;` +
      `border:2px solid ${color};box-sizing:border-box;pointer-events:none;`;
    const tag = document.createElement("div");
    tag.textContent = String(id);
    tag.style.cssText = `position:absolute;left:-2px;top:${y >= 14 ? -14 : 0}px;background:${color};color:#fff;` +
      "font:bold 11px/13px monospace;padding:0 3px;pointer-events:none;white-space:nowrap;";
    box.appendChild(tag);
    layer.appendChild(box);
  }
  (document.body || document.documentElement).appendChild(layer);
}
"""

_REMOVE_JS = "() => { const o = document.getElementById('__som_overlay'); if (o) o.remove(); }"


def overlay_boxes(marks: Iterable[Mark]) -> list[list[Any]]:
    """[id, x, y, w, h, colour] for every mark in the viewport (coordinates are the marks' own)."""
    return [[m.id, m.bbox[0], m.bbox[1], m.bbox[2], m.bbox[3], _PALETTE[m.id % len(_PALETTE)]]
            for m in marks if m.in_viewport]


def marked_screenshot(page: Any, marks: Iterable[Mark]) -> bytes:
    """PNG of the viewport with each mark in view boxed and numbered."""
    page.evaluate(_DRAW_JS, overlay_boxes(marks))
    try:
        return page.screenshot(type="png", animations="disabled", caret="hide")
    finally:
        page.evaluate(_REMOVE_JS)
