// Set-of-Mark observation: one walk over the composed DOM (open shadow roots and same-origin
// iframes included) that finds the interactive elements a person could act on, names them the
// way assistive technology does, and collects the page text a person reads around them.
// Defined in every document by marking.install's init script (or on first use) and called as
// window.__somMark({start}); returns ONE JSON string (cheaper to transfer
// than an array of objects). Console-agnostic: it reads ARIA, HTML semantics and computed style,
// never any console's own classes or ids.
function __somMark(args) {
  const T0 = performance.now();
  const TOP = window;
  // Keep the compiled function in the page: later calls send a one-line wrapper, not this source.
  if (TOP.__somMark !== __somMark && !TOP.__somMark) {
    Object.defineProperty(TOP, "__somMark", {value: __somMark, configurable: true, writable: true, enumerable: false});
  }
  const START = (args && args.start) || 1;
  // Element -> id survives between observations of the same document (a new document starts a new
  // map, from an id the caller has never handed out, so a stale id can never hit a new element).
  let S = TOP.__som;
  if (!S || S.doc !== TOP.document) {
    S = {doc: TOP.document, ids: new WeakMap(), next: START, frames: new WeakMap(), nextFrame: 1};
    Object.defineProperty(TOP, "__som", {value: S, configurable: true, writable: true, enumerable: false});
  }

  const INTERACTIVE_ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem", "scrollbar"]);
  const FOCUS_ROLES = new Set(["gridcell", "row", "columnheader", "rowheader", "listbox", "tree", "grid", "separator"]);
  const NAME_FROM_CONTENT = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "gridcell", "cell", "columnheader", "rowheader", "row", "heading", "tooltip",
    "clickable", "focusable", "file"]);
  const LANDMARKS = {nav: "navigation", main: "main", aside: "complementary", search: "search"};
  const ROLE_GROUPS = new Set(["navigation", "main", "complementary", "search", "region", "menu", "menubar", "listbox",
    "tablist", "tree", "radiogroup", "toolbar", "group", "banner", "contentinfo", "form"]);
  const ALWAYS_GROUP = new Set(["navigation", "main", "complementary", "search", "menu", "menubar", "listbox", "tablist", "tree"]);
  const SKIP_TAGS = new Set(["script", "style", "template", "noscript", "head", "meta", "link", "title", "base", "datalist"]);
  const TEXT_INPUT = new Set(["text", "email", "tel", "url", "password", "", "date", "datetime-local", "month", "time", "week", "color"]);
  const STATUS_ROLES = new Set(["status", "alert", "log", "marquee", "timer"]);
  // Composite widgets nested in an item are not part of its name (a tree item's child group, a
  // menu item's submenu).
  const SUB_WIDGETS = new Set(["group", "tree", "treeitem", "menu", "listbox"]);
  const MAXN = 100;
  const MAX_OPTIONS = 50; // a native drop-down's options listed with its mark (a person sees them when it opens)
  // Keyboard shortcut hints ("Alt + Shift + N", "Ctrl+R", "⌘S", "F5") shown inside menu items and
  // buttons: a person reads them as a hint, not as the item's name.
  const KEY = "(?:ctrl|control|alt|option|opt|shift|cmd|command|meta|super|win)";
  const KEYNAME = "(?:[a-z0-9]|f\\d{1,2}|enter|return|esc|escape|tab|space|del|delete|backspace|insert|ins|home|end|" +
    "page ?up|page ?down|pgup|pgdn|up|down|left|right|[^\\w\\s])";
  const SHORTCUT_RE = new RegExp(`^(?:(?:${KEY}\\s*[+-]\\s*)+${KEYNAME}|[⌘⌥⇧⌃]+\\s*${KEYNAME}|f\\d{1,2})$`, "i");
  const TRAIL_SHORTCUT_RE = new RegExp(`\\s+((?:${KEY}\\s*[+-]\\s*)+${KEYNAME}|[⌘⌥⇧⌃]+\\s*${KEYNAME})$`, "i");
  const TRAIL_ARROW_RE = /\s*[›»▸▶►❯→⯈]+$/;
  // Generic words widget libraries put in class names for tree carets and row states.
  const TOGGLE_CLASS_RE = /(^|[\s_-])(toggle|toggler|caret|expander|expand|collapse|arrow|chevron|twisty|twistie|disclosure)/i;
  const NOT_TOGGLE_RE = /spacer|placeholder|space|empty|leaf|none|hidden|blank/i; // the gap a leaf keeps instead
  const toggleClass = (cls) => cls.split(/\s+/).some((t) => TOGGLE_CLASS_RE.test(t) && !NOT_TOGGLE_RE.test(t));
  const OPEN_CLASS_RE = /(^|[\s_-])(open|opened|expanded)($|[\s_-])/i;
  const CLOSED_CLASS_RE = /(^|[\s_-])(closed|collapsed)($|[\s_-])/i;
  const SELECTED_CLASS_RE = /(^|[\s_-])selected($|[\s_-])/i;
  let shortcutSeen = "";   // the hint contentText skipped last (said as the element's description)
  let skipButtons = false; // naming a tab, tree item or option: its own buttons (close, more) are not its name
  const ITEM_ROLES = new Set(["tab", "treeitem", "option", "menuitem", "row", "gridcell"]);

  const marks = [];        // {id, role, name, tag, value, placeholder, states, bbox, in_viewport, frame, ...}
  const items = [];        // document-ordered outline items
  const modals = [];       // visible modal dialogs (aria-modal / dialog:modal)
  const dialogs = [];      // every dialog (a modal when drawn on a page-covering layer)
  const proxies = [];      // invisible checkbox/radio/file inputs to mark through their label
  const frameErrors = [];
  let gid = 0;
  let textBuf = "";
  let textY = 0;

  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
  const attr = (el, a) => el.getAttribute(a);
  const roleAttr = (el) => { const r = attr(el, "role"); return r ? r.trim().split(/\s+/)[0].toLowerCase() : ""; };
  const composedParent = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const byId = (el, id) => { const root = el.getRootNode(); return (root.getElementById ? root.getElementById(id) : null) || (el.ownerDocument.getElementById(id)); };

  function implicitRole(el, tag) {
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "";
      case "button": return "button";
      case "summary": return el.parentElement && el.parentElement.localName === "details" ? "button" : "";
      case "select": return (el.multiple || el.size > 1) ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "input": {
        const t = (el.type || "text").toLowerCase();
        if (t === "hidden") return "";
        if (t === "button" || t === "submit" || t === "reset" || t === "image") return "button";
        if (t === "checkbox") return "checkbox";
        if (t === "radio") return "radio";
        if (t === "range") return "slider";
        if (t === "number") return "spinbutton";
        if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        if (t === "file") return "file";
        return el.hasAttribute("list") ? "combobox" : "textbox";
      }
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "dialog": return "dialog";
      case "form": return "form";
      case "table": return "table";
      case "tr": return "row";
      case "td": return "cell";
      case "th": return "columnheader";
      case "fieldset": return "group";
      case "option": return "option";
      case "nav": case "main": case "aside": case "search": return LANDMARKS[tag];
      case "section": return (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby")) ? "region" : "";
      case "output": return "status";
      default: return "";
    }
  }

  // ---- accessible names -------------------------------------------------------------------------
  function contentText(node, depth, skip) {
    let out = "";
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { out += c.data; continue; }
      if (c.nodeType !== 1) continue;
      const t = c.localName;
      if (SKIP_TAGS.has(t) || c === skip) continue;
      if (c.hidden || attr(c, "aria-hidden") === "true") continue;
      if (SUB_WIDGETS.has(roleAttr(c))) continue;
      if (skipButtons && (t === "button" || roleAttr(c) === "button")) continue;
      const cs = c.ownerDocument.defaultView.getComputedStyle(c);
      if (cs.display === "none" || cs.visibility !== "visible") continue;
      if (t === "kbd" || isShortcutHint(c)) {
        shortcutSeen = clean(c.textContent);
        continue;
      }
      if (t === "img" || (t === "input" && c.type === "image")) { out += " " + (attr(c, "alt") || attr(c, "aria-label") || attr(c, "title") || "") + " "; continue; }
      if (t === "input" || t === "select" || t === "textarea") { out += " " + fieldValue(c) + " "; continue; }
      if (t === "svg") { const ti = c.querySelector("title"); out += " " + (attr(c, "aria-label") || (ti ? ti.textContent : "")) + " "; continue; }
      const al = attr(c, "aria-label");
      if (al && al.trim()) { out += " " + al + " "; continue; }
      if (depth < 12) {
        const inner = contentText(c.shadowRoot || c, depth + 1, skip);
        out += (cs.display.startsWith("inline") ? inner : " " + inner + " ");
      }
    }
    return out;
  }
  function isShortcutHint(el) {
    if (el.firstElementChild && !el.querySelector(":scope > kbd")) return false;
    const t = el.textContent;
    return t.length <= 30 && SHORTCUT_RE.test(clean(t));
  }
  function stripHints(name) {
    // Shortcut text and submenu arrows typed into the item's own text.
    const m = TRAIL_SHORTCUT_RE.exec(name);
    if (m) { shortcutSeen = m[1]; name = name.slice(0, m.index); }
    return name.replace(TRAIL_ARROW_RE, "").replace(/[\s+]+$/, "");
  }
  function labelledBy(el) {
    const ids = attr(el, "aria-labelledby");
    if (!ids) return "";
    return clean(ids.split(/\s+/).map((id) => {
      const r = byId(el, id);
      if (!r) return "";
      return attr(r, "aria-label") || contentText(r, 0, null) || r.textContent || "";
    }).join(" "));
  }
  function fieldValue(el) {
    const t = el.localName;
    if (t === "select") {
      const opts = Array.from(el.selectedOptions || []).map((o) => clean(o.label || o.textContent));
      return opts.join(", ");
    }
    if (t === "input" && (el.type === "password")) return el.value ? "••••" : "";
    if (t === "input" && (el.type === "checkbox" || el.type === "radio")) return "";
    return el.value == null ? "" : String(el.value);
  }
  function nativeLabel(el) {
    const labels = el.labels;
    if (!labels || !labels.length) {
      // A <label for=id> in another shadow scope is not linked by the browser; look for it ourselves.
      return "";
    }
    return clean(Array.from(labels).map((l) => contentText(l, 0, el)).join(" "));
  }
  function headerForCell(el) {
    const cell = el.closest("td,th,[role=cell],[role=gridcell]");
    if (!cell) return "";
    const row = cell.parentElement;
    const table = cell.closest("table,[role=table],[role=grid],[role=treegrid]");
    if (!row || !table) return "";
    const head = table.querySelector("thead tr, tr:has(> th), [role=row]:has(> [role=columnheader])");
    if (!head || head === row) return "";
    const ci = attr(cell, "aria-colindex");
    const h = (ci && head.querySelector(`:scope > [aria-colindex="${ci}"]`)) || head.children[Array.prototype.indexOf.call(row.children, cell)];
    return h ? clean(h.textContent) : "";
  }
  const FIELDS = "input:not([type=hidden]),select,textarea,[role=combobox],[role=textbox],[role=listbox]";
  function divGridHeader(el) {
    // A grid drawn with divs (react-table and the like, no table roles): the field's cell is one of
    // at least three side-by-side cells of a row, and an earlier row of the same grid (a previous
    // sibling of the row or of one of its ancestors, or inside one) has a cell spanning the same x
    // range above it, holding a short text: the column header.
    let cell = el;
    for (let k = 0; k < 8 && cell && cell.parentElement; k++, cell = cell.parentElement) {
      const row = cell.parentElement;
      const kids = Array.from(row.children);
      if (kids.length < 3) continue;
      const boxes = kids.map((c) => c.getBoundingClientRect());
      if (!boxes.every((q) => Math.abs(q.top - boxes[0].top) < 4 && q.height > 0)) continue;
      const i = kids.indexOf(cell), at = boxes[i];
      let cur = row;
      for (let up = 0; up < 4 && cur && !cur.matches("form,[role=dialog],body"); up++, cur = cur.parentElement) {
        let sib = cur.previousElementSibling;
        for (let n = 0; n < 3 && sib; n++, sib = sib.previousElementSibling) {
          const rows = [sib, ...Array.from(sib.querySelectorAll(":scope > *, :scope > * > *, :scope > * > * > *"))];
          for (const head of rows) {
            if (head.children.length < 3 || head.querySelector(FIELDS)) continue;
            for (const h of head.children) {
              const hb = h.getBoundingClientRect();
              if (Math.abs(hb.left - at.left) > 4 || Math.abs(hb.right - at.right) > 4 || hb.bottom > at.top + 2) continue;
              const t = clean(h.textContent);
              if (t && t.length <= 40) return t;
            }
          }
        }
      }
      return "";
    }
    return "";
  }
  function cellLabel(cell) {
    // A label/value table: the cell before the field's cell names it ("Comment | [    ]").
    const prev = cell.previousElementSibling;
    if (!prev || prev.querySelector(FIELDS + ",button")) return "";
    const t = clean(prev.textContent);
    return t && t.length <= 40 ? t.replace(/[:：*]\s*$/, "") : "";
  }
  function nearbyLabel(el, start, labelsOnly) {
    // The label of the field's form row: a short text (or, first, a <label> element) just before the
    // field or before one of its ancestors up to the row (label/value layouts built from divs and
    // grid columns without <label for>). `start` is the widget's own box, whose texts are its value.
    let cur = start || el;
    for (let level = 0; level < 7 && cur; level++) {
      if (cur.matches("td,th,[role=cell],[role=gridcell]")) return labelsOnly ? "" : cellLabel(cur);
      let sib = cur.previousElementSibling;
      for (let k = 0; k < 2 && sib; k++, sib = sib.previousElementSibling) {
        if (sib.matches("input,select,textarea,button,[role]")) break;
        if (sib.querySelector(FIELDS)) break; // another form row
        if (!sib.checkVisibility || sib.checkVisibility()) {
          const lab = sib.localName === "label" ? sib : sib.querySelector("label");
          if (labelsOnly && (!lab || (lab.control && lab.control !== el) || clean(lab.textContent) !== clean(sib.textContent))) {
            if (clean(sib.textContent)) break;
            continue;
          }
          const t = clean(sib.textContent);
          if (t && t.length <= 40) return t.replace(/\s*\*$/, "").replace(/[:：]\s*$/, "");
          if (t) break;
        }
      }
      cur = cur.parentElement;
      if (cur && cur.matches("form,fieldset,table,[role=dialog],[role=form],[role=group],[role=radiogroup],body")) break;
    }
    return "";
  }
  function holdsControls(el) {
    return !!el.querySelector(`${FIELDS},button,a[href],[tabindex]`);
  }
  function bigContainer(el, r) {
    return r.width * r.height > VW * VH * 0.25 || clean(el.textContent).length > 200;
  }
  function displayBox(el) {
    // A searchable select draws its value (or placeholder) beside its own, empty, input: the
    // nearest ancestor with text, within the widget, holds what the person sees as the value.
    let cur = el.parentElement;
    for (let k = 0; k < 3 && cur; k++, cur = cur.parentElement) {
      if (cur.matches("form,fieldset,td,th,label,[role=cell],[role=gridcell],[role=dialog],[role=group],body")) return null;
      const t = clean(cur.textContent);
      if (!t) continue;
      if (t.length > 200 || cur.querySelectorAll(FIELDS).length > 1) return null;
      const ph = cur.querySelector('[class*="placeholder" i]');
      return {box: cur, text: t, placeholder: !!ph && clean(ph.textContent) === t};
    }
    return null;
  }
  function accName(el, role, tag, shown) {
    let n = labelledBy(el);
    if (n) return n;
    n = clean(attr(el, "aria-label"));
    if (n) return n;
    const isField = tag === "input" || tag === "select" || tag === "textarea";
    if (isField) {
      const t = (el.type || "").toLowerCase();
      if (tag === "input" && (t === "button" || t === "submit" || t === "reset")) {
        return clean(el.value) || clean(attr(el, "title")) || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : "");
      }
      if (tag === "input" && t === "image") return clean(attr(el, "alt")) || clean(el.value) || clean(attr(el, "title")) || "Submit";
      n = nativeLabel(el);
      if (n) return n;
      n = nearbyLabel(el, shown && shown.box, true);
      if (n) return n;
      n = clean(attr(el, "title")) || clean(attr(el, "placeholder"));
      if (n) return n;
    } else if (NAME_FROM_CONTENT.has(role)) {
      shortcutSeen = "";
      skipButtons = ITEM_ROLES.has(role);
      n = clean(contentText(el.shadowRoot || el, 0, null));
      if (!n && el.shadowRoot) n = clean(contentText(el, 0, null));
      skipButtons = false;
      if (!n && shortcutSeen) { n = shortcutSeen; shortcutSeen = ""; }
      if (n) return stripHints(n);
      n = clean(attr(el, "title"));
      if (n) return n;
    } else {
      n = clean(attr(el, "title")) || clean(attr(el, "placeholder")) || clean(attr(el, "aria-placeholder"));
      if (n) return n;
      if (el.labels && el.labels.length) { n = nativeLabel(el); if (n) return n; }
    }
    // A control wrapped alone in an element that carries its name (a tooltip wrapper around a
    // disabled icon button).
    const wrap = el.parentElement;
    if (wrap && wrap.firstElementChild === el && wrap.lastElementChild === el) {
      n = clean(attr(wrap, "aria-label")) || clean(attr(wrap, "title"));
      if (n) return n;
    }
    // Fallbacks for unnamed fields: what a person reads next to it, then the column, then `name`.
    if (role === "link" || role === "button" || role === "clickable") return "";
    // Digits alone name nothing: beside a code editor they are its gutter's line numbers.
    const near = () => { const t = nearbyLabel(el, shown && shown.box, false); return /^[\d\s]+$/.test(t) ? "" : t; };
    return headerForCell(el) || divGridHeader(el) || near() || clean(attr(el, "name"));
  }
  function description(el) {
    const ids = attr(el, "aria-describedby");
    let d = "";
    if (ids) d = clean(ids.split(/\s+/).map((id) => { const r = byId(el, id); return r ? r.textContent : ""; }).join(" "));
    return d;
  }

  // ---- geometry ------------------------------------------------------------------------------------
  const VW = TOP.document.documentElement.clientWidth || TOP.innerWidth;
  const VH = TOP.document.documentElement.clientHeight || TOP.innerHeight;
  const INF = 1e9;
  const inter = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const nonEmpty = (r) => r[2] > r[0] && r[3] > r[1];

  function clipChildren(ctx, el, st, rect, ox, oy) {
    // Overflow clipping for descendants: hidden/clip cut them off (a person cannot reach them), while
    // auto/scroll only hide them until scrolled.
    const ovx = st.overflowX;
    if (ovx === "visible") return ctx; // then overflow-y is visible too (or clip, which nobody uses alone)
    const ovy = st.overflowY;
    const r = rect || el.getBoundingClientRect();
    const box = [r.left + ox + el.clientLeft, r.top + oy + el.clientTop, r.left + ox + el.clientLeft + el.clientWidth,
      r.top + oy + el.clientTop + el.clientHeight];
    const hard = ctx.hard.slice(), soft = ctx.soft.slice();
    if (ovx === "hidden" || ovx === "clip") { hard[0] = Math.max(hard[0], box[0]); hard[2] = Math.min(hard[2], box[2]); }
    else if (ovx !== "visible") { soft[0] = Math.max(soft[0], box[0]); soft[2] = Math.min(soft[2], box[2]); }
    if (ovy === "hidden" || ovy === "clip") { hard[1] = Math.max(hard[1], box[1]); hard[3] = Math.min(hard[3], box[3]); }
    else if (ovy !== "visible") { soft[1] = Math.max(soft[1], box[1]); soft[3] = Math.min(soft[3], box[3]); }
    return {hard, soft};
  }

  // ---- trees ------------------------------------------------------------------------------------------
  function findToggle(row, r) {
    // The caret of a tree row: a small element (no text, or one glyph) at the row's left that says
    // it toggles: aria-expanded, a button role, a listener of its own, or a class name such as
    // "caret" or "toggle". A few elements deep at most: it comes before the row's label.
    if (r.width < 24 || r.height > 60) return null;
    const stack = [row.firstElementChild];
    for (let seen = 0; stack.length && seen < 8; ) {
      const n = stack.pop();
      if (!n) continue;
      seen++;
      if (n.nextElementSibling) stack.push(n.nextElementSibling);
      const b = n.getBoundingClientRect();
      if (b.width >= 6 && b.width <= 32 && b.height >= 6 && b.height <= 32 && b.left - r.left <= r.width * 0.4 &&
        clean(n.textContent).length <= 1) {
        const cls = n.getAttribute("class") || "";
        const view = n.ownerDocument.defaultView;
        if (n.hasAttribute("aria-expanded") || roleAttr(n) === "button" || toggleClass(cls) || n.onclick ||
          (view.__somListeners && view.__somListeners.has(n))) return n;
      }
      if (n.firstElementChild && n.localName !== "svg") stack.push(n.firstElementChild);
    }
    return null;
  }
  function siblingToggle(m, f, c) {
    // A row whose clickable part is its label, with the caret just before it (row > caret + label):
    // the caret is marked here (it was walked already, inside no control) and the row is the parent.
    const row = m.el.parentElement;
    if (!row) return;
    for (let sib = m.el.previousElementSibling, k = 0; sib && k < 2; sib = sib.previousElementSibling, k++) {
      const r = sib.getBoundingClientRect();
      if (r.width < 6 || r.width > 32 || r.height < 6 || r.height > 32 || clean(sib.textContent).length > 1) continue;
      if (!(sib.hasAttribute("aria-expanded") || toggleClass(sib.getAttribute("class") || ""))) continue;
      if (marks.some((x) => x.el === sib)) return; // already a control of its own
      const x = r.left + f.ox, y = r.top + f.oy;
      const box = [x, y, x + r.width, y + r.height];
      const t = {el: sib, kind: "native", role: "button", tag: sib.localName, box, inView: nonEmpty(inter(box, [0, 0, VW, VH])),
        f, c, ah: m.ah, toggleOf: m, order: marks.length};
      m.toggle = sib;
      m.rowEl = row;
      marks.push(t);
      items.push({k: "m", m: t, y});
      return;
    }
  }
  function indentOf(m) {
    // Where a row's content starts, relative to the row: its caret, else its first small child.
    const rowEl = m.rowEl || m.el;
    const r = rowEl.getBoundingClientRect();
    if (m.toggle) return m.toggle.getBoundingClientRect().left - r.left;
    const stack = [rowEl.firstElementChild];
    for (let seen = 0; stack.length && seen < 6; ) {
      const n = stack.pop();
      if (!n) continue;
      seen++;
      if (n.nextElementSibling) stack.push(n.nextElementSibling);
      const b = n.getBoundingClientRect();
      if (b.width > 0 && b.height > 0 && b.width < r.width * 0.6) return b.left - r.left;
      if (n.firstElementChild) stack.push(n.firstElementChild);
    }
    return parseFloat(getComputedStyle(rowEl).paddingLeft) || 0;
  }
  function listOf(rowEl) {
    // The list a row belongs to: its scrolling container (virtualized lists wrap each row), else its parent.
    for (let p = rowEl.parentElement, k = 0; p && k < 6; p = p.parentElement, k++) {
      const oy = getComputedStyle(p).overflowY;
      if (oy === "auto" || oy === "scroll") return p;
    }
    return rowEl.parentElement;
  }
  function treeLevels(rows) {
    // Depth: aria-level, else nesting of ARIA tree items; for role-less rows a depth attribute
    // (0- or 1-based: the smallest on the page is the top) or the rank of their indentation among
    // the rows of the same list.
    const lists = new Map();
    const depthAttr = (m) => { const e = m.rowEl || m.el; const d = attr(e, "data-depth") ?? attr(e, "data-level"); return d != null && d !== "" ? parseInt(d, 10) : NaN; };
    const withDepth = rows.filter((m) => m.treeRow && depthAttr(m) >= 0);
    const base = withDepth.some((m) => depthAttr(m) === 0) ? 1 : 0;
    for (const m of rows) {
      const el = m.field || m.el;
      const al = parseInt(attr(el, "aria-level") || "", 10);
      if (al > 0) m.level = al;
      else if (!m.treeRow) {
        let n = 1;
        for (let p = el.parentElement; p && roleAttr(p) !== "tree"; p = p.parentElement) if (roleAttr(p) === "treeitem") n++;
        m.level = n;
      } else if (depthAttr(m) >= 0) m.level = depthAttr(m) + base;
      const key = listOf(m.rowEl || m.el);
      if (!lists.has(key)) lists.set(key, []);
      lists.get(key).push(m);
    }
    for (const list of lists.values()) {
      const open = list.filter((m) => m.treeRow && !m.level);
      if (open.length) {
        const ind = open.map((m) => Math.round(indentOf(m) / 3));
        const steps = [...new Set(ind)].sort((a, b) => a - b);
        open.forEach((m, i) => { m.level = steps.indexOf(ind[i]) + 1; });
      }
      list.forEach((m, i) => { m.nextDeeper = i + 1 < list.length && list[i + 1].level > m.level; });
    }
    for (const m of rows) m.treeState = treeState(m);
  }
  function treeState(m) {
    const el = m.field || m.el;
    const ae = attr(el, "aria-expanded") || (m.toggle && attr(m.toggle, "aria-expanded"));
    if (ae === "true") return "expanded";
    if (ae === "false") return "collapsed";
    if (!m.toggle || !m.treeRow) return "";
    const cls = (m.toggle.getAttribute("class") || "") + " " + ((m.rowEl || el).getAttribute("class") || "");
    if (OPEN_CLASS_RE.test(cls)) return "expanded";
    if (CLOSED_CLASS_RE.test(cls)) return "collapsed";
    return m.nextDeeper ? "expanded" : "collapsed"; // its children are drawn under it
  }

  // ---- telling identical controls apart -----------------------------------------------------------------
  const SECTION_HEAD = "h1,h2,h3,h4,h5,h6,[role=heading],legend,caption";
  function sectionLabels(el) {
    // The labels of the sections around a control, innermost first: a short text or heading just
    // before it or one of its ancestors, or a named region, group or tab panel around it.
    const out = [];
    let cur = el;
    for (let level = 0; level < 8 && cur && out.length < 3; level++) {
      for (let sib = cur.previousElementSibling, k = 0; sib && k < 3; sib = sib.previousElementSibling, k++) {
        if (sib.checkVisibility && !sib.checkVisibility()) continue;
        const head = sib.matches(SECTION_HEAD) ? sib : sib.querySelector(SECTION_HEAD);
        const t = clean(contentText(head || sib, 0, null));
        if (!t) continue;
        if (head || (t.length <= 60 && !sib.querySelector("input,select,textarea,button,a[href],[role=button]"))) { out.push(cut(t, 60)); break; }
        break;
      }
      cur = composedParent(cur);
      if (!cur || cur.matches("body,dialog,[role=dialog],[role=alertdialog]")) break;
      if (cur.matches("[role=region],[role=group],[role=tabpanel],[role=toolbar],[role=form],section,fieldset,form")) {
        const lab = labelledBy(cur) || clean(attr(cur, "aria-label"));
        if (lab) out.push(cut(lab, 60));
      } else if (cur.matches("nav,aside,main,header,footer,[role=navigation],[role=complementary],[role=main],[role=banner]")) {
        const lab = labelledBy(cur) || clean(attr(cur, "aria-label"));
        out.push(cut(lab || roleAttr(cur) || LANDMARKS[cur.localName] || cur.localName, 60));
      }
    }
    return out;
  }
  function tellApart(live) {
    const groups = new Map();
    for (const m of live) {
      if (!m.name) continue;
      const key = `${m.rec.role}|${m.name}|${m.rec.context}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(m);
    }
    for (const same of groups.values()) {
      if (same.length < 2) continue;
      const labels = same.map((m) => sectionLabels(m.field || m.el));
      // Each one's innermost section label that none of the others has.
      const own = labels.map((l, i) => l.find((t) => labels.every((o, j) => j === i || !o.includes(t))));
      const said = own.every(Boolean) && new Set(own).size === same.length;
      if (said) same.forEach((m, i) => { m.rec.context = (m.rec.context ? m.rec.context + "; " : "") + `section "${own[i]}"`; });
      if (!said) same.forEach((m, i) => { m.rec.context = (m.rec.context ? m.rec.context + "; " : "") + `#${i + 1} of ${same.length}`; });
    }
  }

  // ---- the walk -------------------------------------------------------------------------------------
  function flushText() {
    const t = clean(textBuf);
    textBuf = "";
    if (t) items.push({k: "t", t: cut(t, 600), y: textY});
  }

  function frameSelector(iframe) {
    let n = S.frames.get(iframe);
    if (!n) { n = S.nextFrame++; S.frames.set(iframe, n); }
    if (attr(iframe, "data-som-frame") !== String(n)) iframe.setAttribute("data-som-frame", String(n));
    return `iframe[data-som-frame="${n}"]`;
  }

  // Frame context: document, offsets of its viewport inside the top viewport, listener set.
  function walkDocument(doc, fctx) {
    const root = doc.documentElement;
    if (!root) return;
    const view = doc.defaultView;
    const f = {...fctx, listeners: (view && view.__somListeners) || null, doc};
    walkChildren(doc, f, {
      flow: fctx.clip, abs: fctx.clip, fixed: fctx.fixedClip,
      pointer: false, opacity0: false, inert: false, sink: null, groups: [], dialog: null, form: null, row: null,
      table: null, inMark: null, modals: [], depth: 0, ah: false,
    });
  }

  function walkChildren(parent, f, c) {
    for (let el = parent.firstElementChild; el; el = el.nextElementSibling) walkEl(el, f, c);
  }

  function walkEl(el, f, c) {
    const tag = el.localName;
    if (SKIP_TAGS.has(tag)) return;
    if (tag === "slot") { // slotted light-DOM children are walked from the host; render fallback content only
      if (!el.assignedNodes().length) walkChildren(el, f, c);
      return;
    }
    const st = f.view.getComputedStyle(el);
    const display = st.display;
    if (display === "none") return;
    if (el.hasAttribute("inert")) {
      flushText();
      return; // not perceivable, not actionable
    }
    let ah = c.ah;
    if (!ah && attr(el, "aria-hidden") === "true") {
      // Hidden from assistive technology: decoration (icons) or the page behind a modal. But modal
      // managers also leave aria-hidden on layers that hold what the user sees (a dialog portaled
      // into a hidden container). Walk such a subtree without its text; its controls count only
      // where they are on top, and a dialog inside it is shown as what it is.
      flushText();
      if (!el.firstElementChild) return;
      ah = true;
      c = {...c, ah: true, sink: {t: ""}};
    }
    const opacity0 = c.opacity0 || st.opacity === "0";
    const visible = st.visibility === "visible" && !opacity0;
    const pos = st.position;
    const clip = pos === "fixed" ? c.fixed : pos === "absolute" ? c.abs : c.flow;
    const block = !display.startsWith("inline") && display !== "contents";
    const explicit = roleAttr(el);
    let role = explicit && explicit !== "presentation" && explicit !== "none" ? explicit : implicitRole(el, tag);
    // Inside a control the cursor only inherits; inside a delegating container (a listener without a
    // pointer cursor: a framework handling its rows' clicks) each row still says what it is.
    const delegated = c.inMark && c.inMark.kind === "listen" && !c.inMark.ownPointer;
    const pointer = c.inMark && !delegated ? c.pointer : st.cursor === "pointer";
    const baseRole = role; // what the element is in the page's structure, even if it also takes clicks

    // --- is it interactive? ---
    let kind = "";
    if (INTERACTIVE_ROLES.has(role) || role === "file" || role === "listbox") kind = "native";
    if (tag === "option" && el.parentElement && (el.parentElement.localName === "select" || el.parentElement.localName === "optgroup")) kind = "";
    if (role === "listbox" && tag !== "select") kind = el.hasAttribute("tabindex") && !el.querySelector("[role=option]") ? "native" : "";
    if (!kind && FOCUS_ROLES.has(role) && el.hasAttribute("tabindex") && el.tabIndex >= 0) kind = "native";
    if (!kind && el.hasAttribute("contenteditable") && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) { kind = "native"; role = "textbox"; }
    if (!kind && tag !== "body" && tag !== "html") {
      const listener = el.hasAttribute("onclick") || el.onclick !== null || el.hasAttribute("onmousedown") ||
        (f.listeners !== null && f.listeners.has(el));
      if (listener) {
        kind = pointer ? "click" : "listen";
      } else if (pointer && !c.pointer && (!c.inMark || delegated) && tag !== "label" && tag !== "iframe") {
        kind = "pointer";
      } else if (el.hasAttribute("tabindex") && el.tabIndex >= 0 && tag !== "iframe") {
        kind = "focus";
      }
      if (kind && !role) role = kind === "focus" ? "focusable" : "clickable";
      if (kind && !INTERACTIVE_ROLES.has(role) && role !== "clickable" && role !== "focusable") {
        role = kind === "focus" ? "focusable" : "clickable";
      }
    }
    if (tag === "label" && kind && kind !== "native" && el.control) kind = ""; // the input is marked
    if (!kind && role === "gridcell" && c.table && c.table.grid) kind = "native"; // cells of a data grid take clicks and edits
    let toggleOf = null;
    if (c.inMark && c.inMark.toggle === el) { kind = "native"; role = "button"; toggleOf = c.inMark; } // a tree row's caret

    // --- groups and text structure ---
    let ctx = c;
    let group = null;
    const isDialog = baseRole === "dialog" || baseRole === "alertdialog";
    if (ah && !isDialog) {
      // no structure or text from a subtree hidden from assistive technology
    } else if (role === "heading") {
      flushText();
      const lvl = parseInt(attr(el, "aria-level") || (tag.length === 2 && tag[0] === "h" ? tag[1] : "2"), 10) || 2;
      const it = {k: "h", l: lvl, t: ""};
      const r = el.getBoundingClientRect();
      it.y = r.top + f.oy;
      items.push(it);
      ctx = {...c, sink: it};
    } else if (STATUS_ROLES.has(role) || (attr(el, "aria-live") && attr(el, "aria-live") !== "off")) {
      flushText();
      const it = {k: role === "alert" ? "alert" : "status", t: "", y: 0};
      items.push(it);
      ctx = {...c, sink: it};
      group = it;
    } else if (role === "tooltip") {
      flushText();
      const it = {k: "tip", t: "", y: 0};
      items.push(it);
      ctx = {...c, sink: it};
    } else if (isDialog) {
      flushText();
      const name = dialogName(el);
      const isModal = attr(el, "aria-modal") === "true" || (tag === "dialog" && el.matches(":modal"));
      group = {k: "open", g: ++gid, t: `${baseRole === "alertdialog" ? "alert dialog" : "dialog"} "${cut(name, 80)}"`, dialog: 1, modal: isModal ? 1 : 0};
      items.push(group);
      ctx = {...c, dialog: {name, el}, groups: c.groups, ah: false, sink: null};
      const dr = el.getBoundingClientRect();
      const d = {el, name, gid: group.g, order: modals.length, ah, box: [dr.left + f.ox, dr.top + f.oy, dr.right + f.ox, dr.bottom + f.oy]};
      dialogs.push(d);
      if (isModal) { modals.push(d); ctx.modals = c.modals.concat([d]); }
    } else if (baseRole === "table" || baseRole === "grid" || baseRole === "treegrid") {
      flushText();
      const name = labelledBy(el) || clean(attr(el, "aria-label")) || (el.caption ? clean(el.caption.textContent) : "");
      group = {k: "open", g: ++gid, t: name ? `table "${cut(name, 60)}"` : "table", table: 1, cols: [], grid: baseRole !== "table",
        headerRows: 0, rows: 0};
      items.push(group);
      ctx = {...c, table: group, row: null};
    } else if (baseRole === "row" && c.table) {
      flushText();
      const headerRow = el.querySelector(":scope > th, :scope > [role=columnheader]") && !el.querySelector(":scope > td, :scope > [role=gridcell], :scope > [role=cell]");
      if (headerRow) {
        c.table.headerRows++;
        ctx = {...c, sink: null, row: {header: true, cells: c.table.cols}};
      } else {
        const ri = parseInt(attr(el, "aria-rowindex") || "", 10);
        c.table.rows++;
        group = {k: "open", g: ++gid, row: 1, t: "", cells: [], n: ri > 0 ? ri - c.table.headerRows : c.table.rows};
        const r = el.getBoundingClientRect();
        group.y = r.top + f.oy; group.h = r.height;
        items.push(group);
        ctx = {...c, row: group};
      }
    } else if ((baseRole === "cell" || baseRole === "gridcell" || baseRole === "columnheader" || baseRole === "rowheader") && c.row) {
      const cell = {t: ""};
      c.row.cells.push(cell);
      ctx = {...c, sink: cell, cellIndex: c.row.cells.length - 1};
    } else if (tag === "fieldset" || (role && ROLE_GROUPS.has(role) && role !== "listbox" || role === "listbox" && !kind)) {
      const name = tag === "fieldset" ? legendText(el) : (labelledBy(el) || clean(attr(el, "aria-label")));
      if (name || ALWAYS_GROUP.has(role)) {
        flushText();
        const label = role === "group" || tag === "fieldset" ? "group" : role;
        group = {k: "open", g: ++gid, t: name ? `${label} "${cut(name, 60)}"` : label};
        items.push(group);
        if (role === "form" || tag === "form") ctx = {...c, form: name};
        else if (tag === "fieldset") ctx = {...c, fieldset: name};
      } else if (tag === "form") {
        ctx = {...c, form: ""};
      }
    } else if (tag === "legend" || (tag === "label" && el.control) || tag === "caption") {
      ctx = {...c, sink: {t: ""}}; // already said by the group or the field's name
    }

    // --- mark it ---
    let mark = null;
    if (kind) {
      const r = el.getBoundingClientRect();
      const x = r.left + f.ox, y = r.top + f.oy;
      const box = [x, y, x + r.width, y + r.height];
      const seen = inter(box, clip.hard);
      let ok = visible && r.width > 1 && r.height > 1 && nonEmpty(seen) && (f.path !== "" || (seen[2] + f.sx > 0 && seen[3] + f.sy > 0));
      if (!ok && visible === false && !c.opacity0 && st.visibility === "visible" && st.opacity === "0" && (role === "checkbox" || role === "radio" || role === "switch" || role === "file") && r.width >= 8 && r.height >= 8 && nonEmpty(seen)) {
        ok = true; // a transparent native control laid over its styled stand-in is the real click target
      }
      if (!ok && visible === false && !c.opacity0 && st.visibility === "visible" && st.opacity === "0" && role === "combobox" && tag === "input" && r.width > 1 && r.height > 1 && nonEmpty(seen) && displayBox(el)) {
        ok = true; // a searchable select hides its input while it shows the chosen value beside it: still the field
      }
      if (!ok && tag === "input" && (role === "checkbox" || role === "radio" || role === "switch" || role === "file") && el.labels && el.labels.length) {
        const p = {el, role, f, c, item: {k: "m", m: null}};
        proxies.push(p);
        items.push(p.item);
      }
      if (ok) {
        flushText();
        const vis = inter(seen, inter(clip.soft, [0, 0, VW, VH]));
        mark = {el, kind, role, tag, box, inView: nonEmpty(vis), f, c, st, ah, ownPointer: st.cursor === "pointer"};
        mark.order = marks.length;
        if (toggleOf) mark.toggleOf = toggleOf;
        else if (kind === "pointer" || kind === "click" || role === "treeitem") mark.toggle = findToggle(el, r);
        marks.push(mark);
        items.push({k: "m", m: mark, y});
        if (!toggleOf && !mark.toggle && (kind === "pointer" || kind === "click")) siblingToggle(mark, f, c);
        // A link's text identifies its row or heading ("web-01"); a button's ("Stop") does not.
        const keepSink = ctx.sink !== c.sink || (c.sink && (c.sink.k === "h" || role === "link"));
        // A panel that takes focus (tabindex, no role) or a framework's root that listens for its children's
        // events holds the page's text, not a control's label (the root is dropped as delegation below).
        const panel = ((kind === "focus" && role === "focusable") || kind === "listen") && (holdsControls(el) || bigContainer(el, r));
        ctx = {...ctx, inMark: mark, sink: keepSink || panel ? ctx.sink : {t: ""}, textFlows: panel};
        if (c.inMark) (c.inMark.kids || (c.inMark.kids = [])).push(mark);
      }
    }

    // --- text and descendants ---
    const nextFlow = clipChildren(clip, el, st, null, f.ox, f.oy);
    const positioned = pos !== "static";
    if (kind && !mark) ctx = {...ctx, sink: {t: ""}}; // an unreachable control's label is not page text
    const childCtx = ctx === c ? {...c} : ctx;
    childCtx.flow = nextFlow;
    childCtx.abs = positioned ? nextFlow : c.abs;
    childCtx.pointer = pointer;
    childCtx.opacity0 = opacity0;
    if (block && !ctx.sink) flushText();
    else if (block && ctx.sink) ctx.sink.t += " ";
    if (tag === "iframe") {
      walkFrame(el, f, childCtx);
    } else if (tag !== "svg" && tag !== "select" && tag !== "textarea") {
      if (el.shadowRoot) walkShadow(el, f, childCtx, visible);
      else walkKids(el, f, childCtx, visible);
    }
    if (block && !ctx.sink) flushText();
    else if (block && ctx.sink) ctx.sink.t += " ";
    if (group) {
      if (group.k === "open") { flushText(); items.push({k: "close", g: group.g}); }
      if (group.cells) group.t = group.cells.map((x) => clean(x.t)).filter(Boolean).map((x) => cut(x, 60)).join(" | ");
      if (group.k === "status" || group.k === "alert") group.t = cut(clean(group.t), 300);
    }
    if (ctx.sink && ctx.sink !== c.sink && ctx.sink.k) ctx.sink.t = cut(clean(ctx.sink.t), 200);
  }

  function walkKids(el, f, c, visible) {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) {
        if (!visible) continue;
        const d = n.data;
        if (c.sink) c.sink.t += d;
        else if ((!c.inMark || c.textFlows) && d.trim()) { if (!textBuf) textY = n.parentElement ? n.parentElement.getBoundingClientRect().top + f.oy : 0; textBuf += d; }
        else if (!c.inMark || c.textFlows) textBuf += " ";
      } else if (n.nodeType === 1) {
        walkEl(n, f, c);
      }
    }
  }

  function walkShadow(host, f, c, visible) {
    // The composed tree: the shadow root renders; light-DOM children appear through its slots.
    const sr = host.shadowRoot;
    for (let n = sr.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1) walkEl(n, f, c);
      else if (n.nodeType === 3 && visible && n.data.trim()) { if (c.sink) c.sink.t += n.data; else if (!c.inMark || c.textFlows) textBuf += n.data; }
    }
    // Slotted children: walk them in light-DOM order after the shadow content (their layout comes
    // from the slot; their geometry is measured directly, so order is the only approximation).
    for (let n = host.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1) { if (n.assignedSlot) walkEl(n, f, c); }
      else if (n.nodeType === 3 && visible && n.data.trim() && n.assignedSlot) { if (c.sink) c.sink.t += n.data; else if (!c.inMark || c.textFlows) textBuf += n.data; }
    }
  }

  function walkFrame(iframe, f, c) {
    let doc = null;
    try { doc = iframe.contentDocument; } catch (e) { doc = null; }
    const sel = frameSelector(iframe);
    if (!doc || !doc.documentElement) {
      if (iframe.src && !/^(about:|javascript:)/.test(iframe.src)) frameErrors.push({frame: f.path ? f.path + " >> " + sel : sel, src: iframe.src});
      return;
    }
    const r = iframe.getBoundingClientRect();
    const fst = f.view.getComputedStyle(iframe);
    const ox = f.ox + r.left + iframe.clientLeft + parseFloat(fst.paddingLeft || "0");
    const oy = f.oy + r.top + iframe.clientTop + parseFloat(fst.paddingTop || "0");
    const box = [ox, oy, ox + iframe.clientWidth, oy + iframe.clientHeight];
    const clip = {hard: inter(c.flow.hard, box), soft: inter(c.flow.soft, box)};
    const view = doc.defaultView;
    const title = clean(attr(iframe, "title") || attr(iframe, "name") || "");
    flushText();
    const g = {k: "open", g: ++gid, t: title ? `frame "${cut(title, 60)}"` : "frame"};
    items.push(g);
    const se = doc.scrollingElement || doc.documentElement;
    walkDocument(doc, {view, ox, oy, sx: se.scrollLeft, sy: se.scrollTop, clip, fixedClip: {hard: box, soft: box},
      path: f.path ? f.path + " >> " + sel : sel, frameName: title, parentCtx: c});
    flushText();
    items.push({k: "close", g: g.g});
  }

  function legendText(fs) {
    const lg = fs.querySelector(":scope > legend");
    return lg ? clean(lg.textContent) : (labelledBy(fs) || clean(attr(fs, "aria-label")));
  }
  function dialogName(el) {
    const n = labelledBy(el) || clean(attr(el, "aria-label"));
    if (n) return n;
    const h = el.querySelector("h1,h2,h3,h4,h5,h6,[role=heading]") || (el.shadowRoot && el.shadowRoot.querySelector("h1,h2,h3,h4,[role=heading]"));
    return h ? clean(h.textContent) : "";
  }

  // ---- run the walk ------------------------------------------------------------------------------------
  const topDoc = TOP.document;
  const se = topDoc.scrollingElement || topDoc.documentElement;
  const viewClip = {hard: [-INF, -INF, INF, INF], soft: [-INF, -INF, INF, INF]};
  const fixedClip = {hard: [0, 0, VW, VH], soft: [0, 0, VW, VH]};
  walkDocument(topDoc, {view: TOP, ox: 0, oy: 0, sx: se.scrollLeft, sy: se.scrollTop, clip: viewClip, fixedClip, path: "", frameName: ""});
  flushText();
  const T_WALK = performance.now() - T0;

  // Checkbox/radio/file inputs drawn by a styled label: act through the visible label.
  for (const p of proxies) {
    for (const lab of p.el.labels) {
      if (marks.some((m) => m.el === lab)) break;
      if (lab.checkVisibility && !lab.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
      const r = lab.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue;
      const x = r.left + p.f.ox, y = r.top + p.f.oy;
      const box = [x, y, x + r.width, y + r.height];
      const mark = {el: lab, field: p.el, kind: "native", role: p.role, tag: "label", box, inView: nonEmpty(inter(box, [0, 0, VW, VH])),
        f: p.f, c: p.c, order: marks.length};
      marks.push(mark);
      p.item.m = mark;
      break;
    }
  }

  // ---- modal scope ------------------------------------------------------------------------------------
  function deepHit(x, y) {
    let el = topDoc.elementFromPoint(x, y);
    let ox = 0, oy = 0;
    for (let guard = 0; el && guard < 20; guard++) {
      if (el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x - ox, y - oy); if (inner && inner !== el) { el = inner; continue; } }
      if (el.localName === "iframe") {
        let d = null; try { d = el.contentDocument; } catch (e) { d = null; }
        if (!d) break;
        const r = el.getBoundingClientRect();
        ox += r.left + el.clientLeft; oy += r.top + el.clientTop;
        const inner = d.elementFromPoint(x - ox, y - oy);
        if (!inner) break;
        el = inner; continue;
      }
      break;
    }
    return el;
  }
  function composedContains(a, b) { // does a contain b, across shadow roots and frames
    for (let n = b; n; ) {
      if (n === a) return true;
      const p = composedParent(n);
      if (p) { n = p; continue; }
      const view = n.ownerDocument && n.ownerDocument.defaultView;
      n = view && view.frameElement ? view.frameElement : null;
    }
    return false;
  }
  function onTop(m) {
    const b = m.box;
    const cx = Math.min(Math.max((b[0] + b[2]) / 2, 0), VW - 1), cy = Math.min(Math.max((b[1] + b[3]) / 2, 0), VH - 1);
    const hit = deepHit(cx, cy);
    return !!hit && (composedContains(m.el, hit) || composedContains(hit, m.el) || (m.field && composedContains(hit, m.field)));
  }
  const shown = (d) => d.box[2] > d.box[0] && d.box[3] > d.box[1];
  let modal = null;
  const visModals = modals.filter((m) => shown(m) && (!m.ah || onTop(m)));
  if (visModals.length) {
    const native = visModals.filter((m) => m.el.localName === "dialog");
    modal = native.length ? native[native.length - 1] : visModals[visModals.length - 1];
  }
  let blocker = null;
  if (!modal) {
    // A full-viewport fixed layer that takes every click (a backdrop without aria-modal).
    const probes = [[VW / 2, 2], [2, VH / 2], [VW - 3, VH / 2], [VW / 2, VH - 3]];
    let common = null;
    for (const [x, y] of probes) {
      let n = topDoc.elementFromPoint(x, y), found = null;
      for (; n && n !== topDoc.documentElement && n !== topDoc.body; n = composedParent(n)) {
        if (getComputedStyle(n).position === "fixed") {
          const r = n.getBoundingClientRect();
          if (r.width >= VW * 0.95 && r.height >= VH * 0.95) { found = n; break; }
        }
      }
      if (!found || (common && common !== found)) { common = null; break; }
      common = found;
    }
    blocker = common;
    if (blocker) {
      // A dialog drawn on that layer (inside it, or after it in document order) is a modal dialog,
      // aria-modal or not.
      const on = dialogs.filter((d) => shown(d) && (composedContains(blocker, d.el) ||
        (blocker.compareDocumentPosition(d.el) & 4)) && onTop(d));
      if (on.length) { modal = on[on.length - 1]; blocker = null; }
    }
  }
  let kept = marks;
  if (modal) {
    const inModal = (m) => composedContains(modal.el, m.el);
    kept = marks.filter((m) => inModal(m) || (m.inView && (modal.el.compareDocumentPosition(m.el) & 4) && onTop(m)));
  } else if (blocker) {
    const inside = marks.filter((m) => composedContains(blocker, m.el));
    kept = marks.filter((m) => (inside.length && composedContains(blocker, m.el)) || (m.inView && onTop(m)));
  }
  // Hidden from assistive technology: a control counts only inside a dialog (revealed above), or on a
  // page-covering layer the user sees (a confirmation drawn without a dialog role).
  kept = kept.filter((m) => !m.ah || (blocker && m.inView && (composedContains(blocker, m.el) ||
    (blocker.compareDocumentPosition(m.el) & 4)) && onTop(m)));
  const keptSet = new Set(kept);

  // A listener without a pointer cursor on a big container is event delegation (a framework's root),
  // not a control.
  for (const m of kept) {
    if (m.kind !== "listen") continue;
    if ((m.kids && m.kids.length) || bigContainer(m.el, {width: m.box[2] - m.box[0], height: m.box[3] - m.box[1]})) keptSet.delete(m);
  }
  // Nested actionables: keep the innermost when the outer adds nothing of its own.
  for (const m of kept) {
    if (!m.kids || !keptSet.has(m)) continue;
    const kids = m.kids.filter((k) => keptSet.has(k) && !k.toggleOf);
    if (!kids.length) continue;
    const outer = clean(m.el.textContent);
    const inner = clean(kids.map((k) => k.el.textContent).join(" "));
    const heuristic = m.kind !== "native";
    if (m.role === "gridcell" && kids.length) { keptSet.delete(m); continue; } // a cell being edited: its editor is the control
    if ((heuristic && outer.length <= inner.length + 2) || (kids.length === 1 && outer === inner && (m.role === "link" || m.role === "button" || heuristic))) {
      keptSet.delete(m);
    }
  }

  // ---- tree rows, names, one mark per control ------------------------------------------------------------
  const ordered = items.filter((it) => it.k === "m" && it.m).map((it) => it.m); // document order
  let live = ordered.filter((m) => keptSet.has(m));
  // Role-less tree rows: a clickable row with a caret, and the clickable rows beside it.
  const treeParents = new Set();
  const rowParent = (m) => (m.rowEl || m.el).parentElement;
  for (const m of live) if (m.toggle && m.kind !== "native") { m.role = "treeitem"; m.treeRow = true; treeParents.add(rowParent(m)); }
  for (const m of live) {
    if (m.treeRow || m.kind === "native" || m.toggleOf) continue;
    if (treeParents.has(m.el.parentElement)) { m.role = "treeitem"; m.treeRow = true; continue; }
    // a leaf of a label-clicked tree: same shape as its caret-bearing neighbours (row > label)
    const row = m.el.parentElement;
    if (row && row.parentElement && treeParents.has(row.parentElement) === false && live.some((x) => x.rowEl && x.rowEl !== row && x.el.className === m.el.className &&
      (x.rowEl.classList[0] || "") === (row.classList[0] || ""))) {
      m.role = "treeitem"; m.treeRow = true; m.rowEl = row;
    }
  }
  treeLevels(live.filter((m) => m.role === "treeitem"));
  for (const m of live) {
    const field = m.field || m.el;
    const ftag = field.localName;
    m.shown = m.role === "combobox" && ftag === "input" && !field.value ? displayBox(field) : null;
    shortcutSeen = "";
    if (m.toggleOf) {
      const row = m.toggleOf;
      m.treeState = row.treeState;
      m.name = cut(clean(attr(field, "aria-label")) || clean(attr(field, "title")) ||
        `${row.treeState === "expanded" ? "Collapse" : row.treeState === "collapsed" ? "Expand" : "Toggle"} ${row.name || ""}`.trim(), MAXN);
      continue;
    }
    m.name = cut(accName(field, m.role, ftag, m.shown), MAXN);
    m.hint = shortcutSeen || clean(attr(field, "aria-keyshortcuts"));
    if (m.role === "gridcell") { // a data grid's cell is named by its column; its content is its value
      const col = headerForCell(field) || (m.c.table && m.c.cellIndex != null && m.c.table.cols[m.c.cellIndex] ? clean(m.c.table.cols[m.c.cellIndex].t) : "");
      if (col) { m.cellValue = clean(contentText(field, 0, null)); m.name = cut(col, MAXN); }
    }
  }
  // One mark per control: a framework's inner handler named like the control around it (a tab's
  // drag handle, a tree item's row) is that control; act on the inner one when the outer also
  // holds other controls (a tree item with its children), where its centre would hit a child.
  for (const m of live) {
    const outer = m.c.inMark;
    if (!outer || !keptSet.has(outer) || outer.kind !== "native" || m.toggleOf || outer.toggleOf) continue;
    if (m.kind === "native" && m.role !== outer.role) continue; // a tab in a tab: one tab
    if (!m.name || m.name !== outer.name) continue;
    keptSet.delete(m);
    if ((outer.kids || []).some((k) => k !== m && keptSet.has(k) && !k.toggleOf)) {
      outer.field = outer.field || outer.el;
      outer.el = m.el; outer.box = m.box; outer.inView = m.inView;
    }
  }
  // The same control drawn twice in the same place (a label over its control, a handle over a tab).
  const byPlace = new Map();
  for (const m of live) {
    if (!keptSet.has(m) || !m.name) continue;
    const b = m.box;
    const key = `${m.f.path}|${m.name}|${Math.round(b[0] / 4)}|${Math.round(b[1] / 4)}|${Math.round(b[2] / 4)}|${Math.round(b[3] / 4)}`;
    const prev = byPlace.get(key);
    if (!prev) { byPlace.set(key, m); continue; }
    if (prev.kind !== "native" && m.kind === "native") { keptSet.delete(prev); byPlace.set(key, m); } else keptSet.delete(m);
  }
  live = live.filter((m) => keptSet.has(m));

  // ---- ids, states, context ---------------------------------------------------------------------------------
  const active = (() => { let a = topDoc.activeElement; for (let g = 0; a && g < 20; g++) {
    if (a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    else if (a.localName === "iframe") { let d = null; try { d = a.contentDocument; } catch (e) { d = null; } if (!d || !d.activeElement) break; a = d.activeElement; }
    else break; } return a; })();
  const out = [];
  for (const m of live) {
    const el = m.el;
    let id = S.ids.get(el);
    if (!id) { id = S.next++; S.ids.set(el, id); }
    m.id = id;
    if (attr(el, "data-som") !== String(id)) el.setAttribute("data-som", String(id));
    const field = m.field || el;
    const ftag = field.localName;
    const name = m.name;
    let value = null;
    let ph = attr(field, "placeholder") || attr(field, "aria-placeholder");
    if (ftag === "input" || ftag === "select" || ftag === "textarea") {
      if (m.role !== "checkbox" && m.role !== "radio" && m.role !== "button") value = fieldValue(field);
      if (!value && m.shown && m.shown.text !== name) { if (m.shown.placeholder) ph = ph || m.shown.text; else value = m.shown.text; }
    } else if (attr(field, "aria-valuetext") || attr(field, "aria-valuenow")) {
      value = attr(field, "aria-valuetext") || attr(field, "aria-valuenow");
    } else if (m.cellValue != null) {
      value = m.cellValue;
    } else if (m.role === "textbox" || m.role === "combobox" || m.role === "searchbox") {
      const own = clean(contentText(field, 0, null));
      if (own && own !== name) value = own;
    }
    if (value != null) value = cut(String(value), MAXN);
    const states = [];
    const disabled = (field.matches && field.matches(":disabled")) || !!field.closest("[aria-disabled=true]");
    if (disabled) states.push("disabled");
    const ac = attr(field, "aria-checked");
    if (field.checked === true || ac === "true") states.push("checked");
    else if (ac === "mixed" || field.indeterminate === true) states.push("mixed");
    const tree = m.role === "treeitem" || m.toggleOf;
    if (tree) { if (m.treeState) states.push(m.treeState); }
    else if (attr(field, "aria-expanded") === "true" || (ftag === "summary" && field.parentElement && field.parentElement.open)) states.push("expanded");
    if (attr(field, "aria-selected") === "true" || (ftag === "option" && field.selected) ||
      (m.treeRow && SELECTED_CLASS_RE.test(((m.rowEl || field).getAttribute("class") || "") + " " + (field.getAttribute("class") || "")))) {
      states.push("selected");
    }
    if (field.required || attr(field, "aria-required") === "true") states.push("required");
    const ai = attr(field, "aria-invalid");
    let invalid = ai && ai !== "false";
    if (!invalid) { try { invalid = field.matches(":user-invalid"); } catch (e) { invalid = false; } }
    if (invalid) states.push("invalid");
    if (field.readOnly === true || attr(field, "aria-readonly") === "true") states.push("readonly");
    // A text field that takes lines of its own (a code editor), told from a one-line box; a native
    // <textarea> says so by its tag.
    if (attr(field, "aria-multiline") === "true" && ftag !== "textarea") states.push("multiline");
    if (active === field || active === el) states.push("focused");
    // Context a person uses to tell identical buttons apart.
    const ctx = [];
    const c = m.c;
    if (m.f.frameName) ctx.push(`frame "${cut(m.f.frameName, 40)}"`);
    if (c.dialog) ctx.push(`dialog "${cut(c.dialog.name, 60)}"`);
    if (c.form) ctx.push(`form "${cut(c.form, 60)}"`);
    if (c.fieldset) ctx.push(`group "${cut(c.fieldset, 60)}"`);
    if (c.row && !c.row.header && c.row.cells) {
      const texts = c.row.cells.map((x) => clean(x.t));
      if (m.role === "gridcell") { // named by its column: say which row (its number, and its first cell)
        const first = texts.find((t, i) => t && i !== c.cellIndex);
        ctx.push(`row ${c.row.n}` + (first ? `: ${cut(first, 40)}` : ""));
      } else {
        // The first cell is the row's identity (an address, an id and a name together: "47.123.48.58 eip-bn6…
        // pilot-nat-eip"); cut at 40 it lost the name, and the wrong EIP's row was taken for the goal's.
        const cells = texts.filter(Boolean).filter((t) => t !== name).slice(0, 5).map((t, i) => cut(t, i === 0 ? 100 : 40));
        if (cells.length) ctx.push("row: " + cells.join(" | "));
        else if (!texts.some(Boolean)) ctx.push(`row ${c.row.n}`); // a new row has no text yet
        if (c.table && c.cellIndex != null && c.table.cols[c.cellIndex] && clean(c.table.cols[c.cellIndex].t)) ctx.push(`column "${cut(clean(c.table.cols[c.cellIndex].t), 40)}"`);
      }
    }
    let desc = description(field);
    const title = clean(attr(field, "title"));
    if (!desc && title && title !== name) desc = title;
    if (!desc && m.hint) desc = `shortcut ${m.hint}`;
    const rec = {id, role: m.role, name, tag: m.field ? ftag : m.tag, value, placeholder: ph ? cut(ph, MAXN) : null, states,
      bbox: [Math.round(m.box[0] * 10) / 10, Math.round(m.box[1] * 10) / 10, Math.round((m.box[2] - m.box[0]) * 10) / 10,
        Math.round((m.box[3] - m.box[1]) * 10) / 10], in_viewport: m.inView, frame: m.f.path, context: ctx.join("; ")};
    const level = m.toggleOf ? m.toggleOf.level : m.level;
    if (level) rec.level = level;
    if (desc) rec.desc = cut(desc, 200);
    // What a native drop-down offers, its disabled entries left out as the executor leaves them out ("No options
    // available" is a reason, not a choice): without them an agent learnt them only from a failed select.
    // Each option's value too: a select names an option by its label or its value (an id, a zone), as the executor does.
    if (ftag === "select") {
      const kept = Array.from(field.options).filter((o) => !o.disabled).slice(0, MAX_OPTIONS);
      rec.options = kept.map((o) => clean(o.label || o.textContent));
      rec.option_values = kept.map((o) => o.value);
    }
    if (invalid) {
      const err = description(field);
      if (err) rec.error = cut(err, 200);
    }
    m.rec = rec;
    out.push(rec);
  }
  tellApart(live);

  // ---- outline items, with table headers resolved; what a modal covers is left out ------------------------
  const outItems = [];
  let inModal = !modal;
  const droppedGroups = new Set();
  for (const it of items) {
    if (it.k === "m") { if (it.m && keptSet.has(it.m)) outItems.push({k: "m", id: it.m.id, y: Math.round(it.m.box[1])}); continue; }
    if (modal && it.k === "open" && it.g === modal.gid) inModal = true;
    if (modal && it.k === "close" && it.g === modal.gid) inModal = false;
    if (!inModal) { // behind the modal: only controls drawn above it (menus it opened) and messages stay
      if ((it.k === "open" && (it.row || it.dialog)) || it.k === "t" || it.k === "h" || it.k === "tip") {
        if (it.k === "open") droppedGroups.add(it.g);
        continue;
      }
      if (it.k === "close" && droppedGroups.has(it.g)) continue;
    }
    const o = {k: it.k};
    if (it.g) o.g = it.g;
    if (it.k === "open") {
      o.t = it.t;
      if (it.row) { o.row = 1; if (it.n) o.n = it.n; }
      if (it.table) { o.table = 1; o.cols = it.cols.map((x) => cut(clean(x.t), 40)); }
      if (it.dialog) { o.dialog = 1; o.modal = modal && modal.gid === it.g ? 1 : 0; }
      if (it.y != null) o.y = Math.round(it.y);
    } else if (it.k !== "close") {
      o.t = clean(it.t);
      if (!o.t) continue;
      if (it.l) o.l = it.l;
      o.y = Math.round(it.y || 0);
    }
    outItems.push(o);
  }

  const result = {
    url: TOP.location.href, title: topDoc.title, vw: VW, vh: VH, sx: se.scrollLeft, sy: se.scrollTop,
    page_h: se.scrollHeight, next: S.next, modal: modal ? modal.name || "dialog" : (blocker ? "overlay" : null),
    marks: out, items: outItems, skipped_frames: frameErrors, ms: 0,
  };
  result.ms = Math.round((performance.now() - T0) * 100) / 100;
  result.ms_walk = Math.round(T_WALK * 100) / 100;
  return JSON.stringify(result);
}
