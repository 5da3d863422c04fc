"""Finding a place the document does not say how to reach: a bounded best-first walk of the console.

Reference pages describe a dialog and never say how to open it; a console may move a page. A
person then looks around, the way consoles are built:

- **a tree of objects** (an object explorer): they unfold the nodes on the way to the goal's objects
  (a node named like a word or a name of the goal or of the target: "Servers", "Databases", "demo"; "Schemas"
  when the goal names an object by its qualified name, "the table public.items")
  and select the node the target belongs to ("Casts" for the Cast dialog; else the goal's own object,
  "demo" for a backup of the database demo);
- **menus**: with that node selected they open the menu bar's menus (the short-named buttons along the
  top of the page, left to right) and look at their entries; an entry naming the goal's verb or the
  target ("Create", "Register") is hovered to open its sub-menu; a menu with nothing close is closed
  (Escape) and the next one tried;
- **everything else** (links, tabs, buttons): the clickable name closest in meaning to the target or the
  goal (the sentence encoder; lexical fallback without it), going back when a branch has nothing.

It remembers what it did on each page and for each selection, never clicks anything destructive or
that leaves the console, and stops after ``MAX_HOPS`` moves or when nothing anywhere is close enough
(``MIN_SCORE``). The target itself, once visible, is clicked by the caller (an exact name match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from consoleagent.actions.spec import Action
from consoleagent.documents.labels import singular, terms
from consoleagent.encoder import get_encoder
from consoleagent.observation.types import Mark
from consoleagent.policies.docfollow.goal_fields import CREATE_VERBS, names

MAX_HOPS = 30
# the goal's verbs of making an object, which a menu says "Create"; a server is registered through its own entry
CREATING = CREATE_VERBS - {"register"}
MAX_DEFERRED = 6  # unfolds tried towards an object the goal names inside the selected node before its menus
# "the table public.items", "the view app.orders": an object of a kind, by its qualified name (not "to shop.backup")
_OBJECT_NAMED = re.compile(r"\bthe\s+[a-z]+\s+(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
# The first part of an object's qualified name names its schema, so a goal that names one ("the table public.items")
# names the tree's **Schemas** as the way to it, in words, not only in meaning: the lexical fallback scores every
# node near 0 there and wandered through Publications and Catalogs (measured: pgAdmin's five Maintenance tasks lost)
QUALIFIER = "schema"
MIN_SCORE = 0.2
ACRONYM_SCORE = 0.9  # a name an acronym of the query spells out ("EIPs": "Elastic IP addresses")
_ACRONYM = re.compile(r"\b([A-Z]{2,5})s?\b")
MENU_BAND = 60.0  # px from the top: where a console's menu bar sits
BAR_GAP = 24.0  # px between two buttons of one bar
WALK_ROLES = {"link", "menuitem", "treeitem", "tab", "button"}
# Never clicked while looking around: they change or end things, or leave the console.
UNSAFE = re.compile(r"\b(delete|drop|release|remove|stop|reboot|restart|reset|detach|unassociate|disassociate|revoke|"
                    r"leave|terminate|unbind|sign out|log out|logout|sign off|cancel|close|disable|renew|pay|buy|"
                    r"confirm|submit|save|ok|language|help|docs?|documentation|feedback|next page|previous page|"
                    r"disconnect|truncate|hide|quit|exit)\b", re.I)
# A page title ends with the application's name ("VPCs · Acme Cloud console", "Acme Admin 4").
_TITLE_PARTS = re.compile(r"\s+[·|—–-]\s+")
_EXPAND = re.compile(r"^(?:expand|open)\s+(?P<node>.+)$", re.I)
_COUNT = re.compile(r"\s*\(\d+\)\s*$")
MORE = re.compile(r"more\b", re.I)  # a row's or a page's menu of further actions ("More", "More actions for web-01")
# A cloud-style resource id ("vtb-yqptri1sas6oq243s"): a type's prefix, then random characters. The encoder reads the
# prefix alone, so which link the search opens never turns on the letters an id happened to get (measured as a search
# for "Unassociate" that passed or failed the same task from run to run, as the ids changed).
_RANDOM_ID = re.compile(r"\b([a-z]{1,6})-(?=[a-z]*\d)[a-z0-9]{10,}\b")
ON_THIS_PAGE = 0.5  # a tab at least this close in meaning is opened before any link leaves the page


_VIEW_PARAMS = {"sort", "order", "page", "page_size", "field"}  # the same list sorted or paged: the same page


def page_key(url: str) -> str:
    """A page as the search tells pages apart: a list sorted by another column (``?sort=...``) is not a new
    place to look (measured: 20 of 26 steps spent on sort orders of one list)."""
    parsed = urlparse(url)
    query = "&".join(p for p in parsed.query.split("&") if p and p.split("=", 1)[0] not in _VIEW_PARAMS)
    return parsed.path + (f"?{query}" if query else "")


def application_words(title: str) -> set[str]:
    """The words of the application's own name, the last part of the page title. A goal that names the
    tool it is done with ("... using Acme Admin's Backup dialog", "... in Acme Admin") names no place in
    it, so these words never make a link or a menu entry look like the way to the target."""
    name = _TITLE_PARTS.split(title.strip())[-1] if title.strip() else ""
    return {word for word in terms(name) if not word.isdigit()}


def node_name(name: str) -> str:
    """A tree node's name without its child count ("Databases (2)" → "Databases")."""
    return _COUNT.sub("", name).strip()


@dataclass
class Explorer:
    """One search for one target; ``move`` says the next action, a way back, or None (nothing left)."""

    target: str
    goal: str = ""
    title: str = ""  # the page's title when the search starts (its last part names the application)
    max_hops: int = MAX_HOPS
    # page → (role, name) clicked there: a row's "Manage" once for every row; a menu group's button and the link
    # named like it are two controls (measured as the link to the EIP list never opened after its group's button)
    tried: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    trail: list[str] = field(default_factory=list)  # pages we clicked away from, for going back
    hops: int = 0
    expanded: set[str] = field(default_factory=set)  # tree nodes unfolded
    selected: str = ""  # the tree node selected last
    selections: set[str] = field(default_factory=set)  # tree nodes selected so far
    collections: set[str] = field(default_factory=set)  # of those, the ones named like the target ("Casts")
    menus: dict[str, set[str]] = field(default_factory=dict)  # selected node → menu bar buttons opened for it
    entries: set[str] = field(default_factory=set)  # menu entries hovered
    waited: bool = False
    menu_open: bool = False  # a menu this search opened (menus it did not open are walked like anything else)
    unfolded: bool = False  # the last move unfolded a tree node (its children may still be loading)
    hovering: bool = False  # the last move hovered a menu entry (its sub-menu may still be opening)
    rows: list[str] = field(default_factory=list)  # names and ids of the goal's resources: their rows' menus are opened
    row_menus: set[str] = field(default_factory=set)  # row menus opened (page + button name)
    last_unfolded: str = ""  # the node unfolded last, until its children are seen
    child_waits: int = 0  # waits for the children of ``last_unfolded``
    unfolded_again: set[str] = field(default_factory=set)  # nodes clicked a second time because they stayed folded
    selected_level: int = 0  # the tree level of the node selected last
    deferred: int = 0  # moves made before the menus because the goal names an object inside the selected one

    def __post_init__(self) -> None:
        self.target_terms = terms(re.sub(r"\b(dialog(?: box)?|page|wizard|window|panel|tab)\b", " ", self.target, flags=re.I))
        self.goal_terms = terms(self.goal) - application_words(self.title)
        if self.goal_terms & CREATING:  # "add an exclusion constraint": the menu's "Create" is the goal's verb
            self.goal_terms.add("create")
        # objects the goal names by kind and qualified name, by their own last part ("items" of public.items)
        self.inner_objects = [m.group("name").rsplit(".", 1)[1].casefold() for m in _OBJECT_NAMED.finditer(self.goal)]
        if self.inner_objects:  # "the table public.items": an object inside the schema "public"
            self.goal_terms.add(QUALIFIER)

    def relevance(self, name: str) -> tuple[float, float]:
        """How much of a name is the target's words, and how much the goal's (each 0..1)."""
        words = terms(node_name(name))
        if not words:
            return 0.0, 0.0
        return len(words & self.target_terms) / len(words), len(words & self.goal_terms) / len(words)

    def move(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        if self.hops >= self.max_hops:
            return None
        unfolded, self.unfolded = self.unfolded, False
        for planner in (self._menu, self._row_menu, self._children_loading, self._tree, self._settle(unfolded),
                        self._menu_bar_here,
                        self._unfold_any, self._menu_bar, self._walk):
            step = planner(url, marks)
            if step is not None:
                self.hops += 1
                return step
        return self._back(url)

    def _children_loading(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        """The node just unfolded shows no children yet (they come from the server): wait for them, twice at most,
        before anything else on the tree is chosen (measured as a schema selected, then its database, while the
        schema's children were still loading)."""
        if not self.last_unfolded:
            return None
        items = [m for m in marks if m.role == "treeitem"]
        named = [i for i, m in enumerate(items) if node_name(m.name) == self.last_unfolded]
        at = next((i for i in named if "expanded" in items[i].states), named[0] if named else None)
        if at is None or (at + 1 < len(items) and items[at + 1].level > items[at].level):
            self.last_unfolded, self.child_waits = "", 0  # there, or gone: nothing to wait for
            return None
        if self.child_waits >= 2 and "collapsed" in items[at].states and self.last_unfolded not in self.unfolded_again:
            # still folded after the waits: a tree that fetched the children on the first click ("Widgets" became
            # "Widgets (1)") and did not open; unfolded again, once
            toggle = next((m for m in marks if m.role == "button" and (found := _EXPAND.match(m.name))
                           and node_name(found.group("node")) == self.last_unfolded), None)
            if toggle is not None:
                self.unfolded_again.add(self.last_unfolded)
                self.child_waits = 0
                return Action("click", (toggle.id,)), f"unfolding {items[at].name!r} again: it stayed folded"
        self.child_waits += 1
        if self.child_waits > 2:  # twice at most: an empty node has no children to wait for
            self.last_unfolded, self.child_waits = "", 0
            return None
        return Action("wait", (1,)), f"waiting for the children of {items[at].name!r}"

    def _settle(self, unfolded: bool):  # noqa: ANN202
        """After unfolding a node with nothing new to follow: its children may still be loading; wait once."""
        def planner(url: str, marks: list[Mark]) -> tuple[Action, str] | None:
            if unfolded and any(m.role == "treeitem" for m in marks):
                return Action("wait", (2,)), "waiting for the unfolded node's children"
            return None
        return planner

    # -- an open menu ---------------------------------------------------------------------------

    def _menu(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        entries = [m for m in marks if m.role == "menuitem" and m.name.strip() and "disabled" not in m.states]
        if not entries or not self.menu_open:
            self.waited = self.menu_open = False
            return None
        hovered = [m for m in entries if m.name in self.entries and "expanded" not in m.states]
        if self.hovering and hovered and not self.waited:  # a sub-menu takes a moment to open
            self.waited, self.hovering = True, False
            return Action("wait", (1,)), "waiting for the sub-menu to open"
        self.hovering = False
        fresh = [m for m in entries if m.name not in self.entries and not UNSAFE.search(m.name)]
        graded = sorted(((max(self.relevance(m.name)), -i, m) for i, m in enumerate(fresh)), reverse=True)
        if graded and graded[0][0] >= 1.0:  # every word of the entry is the goal's or the target's ("Create")
            mark = graded[0][2]
            self.entries.add(mark.name)
            self.waited, self.hovering = False, True
            return Action("hover", (mark.id,)), f"looking for {self.target!r}: the menu entry [{mark.id}] {mark.name!r}"
        self.waited = self.menu_open = False
        return Action("press", ("Escape",)), f"nothing close to {self.target!r} in this menu; closing it"

    def _row_menu(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        """A list with a row of the goal's resources: what acts on that resource is often in the row's "More"
        menu ("Disassociate" for an EIP); open it once (its entries are then on the page)."""
        for mark in marks:
            key = f"{page_key(url)} {mark.name}"
            if (mark.role == "button" and MORE.match(mark.name) and key not in self.row_menus
                    and "disabled" not in mark.states and any(names(mark.context + " " + mark.name, r) for r in self.rows)):
                self.row_menus.add(key)
                self.menu_open = True
                self.entries.clear()
                return Action("click", (mark.id,)), f"looking for {self.target!r}: the menu of the goal's row [{mark.id}] {mark.name!r}"
        return None

    # -- a tree of objects ----------------------------------------------------------------------

    def _tree(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        items = [m for m in marks if m.role == "treeitem" and m.name.strip() and not m.frame]
        if not items:
            return None
        # select the node the target belongs to ("Casts" for a cast), or, failing that, a node the goal names
        affine = [m for m in items if self.relevance(m.name)[0] == 1.0 and node_name(m.name) not in self.selections]
        if affine:
            mark = max(affine, key=lambda m: m.level)
            self.collections.add(node_name(mark.name))
            return self._select(mark, "the target belongs here")
        toggles = {node_name(_EXPAND.match(m.name).group("node")): m for m in marks  # type: ignore[union-attr]
                   if m.role == "button" and _EXPAND.match(m.name) and "collapsed" in m.states}
        # a node selected as the target's own collection is not unfolded: its menus are what act on it
        unfold = [(max(self.relevance(n)), m.level, n, m) for n, m in toggles.items()
                  if n not in self.expanded and n not in self.collections]
        if self.selected in self.collections and self._menus_left(marks):
            return None  # the target's collection is selected: its menus first
        relevant = sorted((u for u in unfold if u[0] >= 1.0), key=lambda u: -u[1])
        if relevant:
            _, _, name, mark = relevant[0]
            self.expanded.add(name)
            self.unfolded, self.last_unfolded, self.child_waits = True, name, 0
            return Action("click", (mark.id,)), f"looking for {self.target!r}: unfolding {name!r} (the goal names it)"
        # never back up to a node above the one selected last ("demo" after "public"): the deeper one is nearer
        named = [m for m in items if self.relevance(m.name)[1] == 1.0 and node_name(m.name) not in self.selections
                 and _is_name(node_name(m.name), self.goal) and m.level >= self.selected_level]
        if named and not self.collections:  # the target's collection, once selected, is where its menus act
            return self._select(max(named, key=lambda m: m.level), "the goal names it")
        return None

    def _menus_left(self, marks: list[Mark]) -> bool:
        opened = self.menus.get(self.selected, set())
        return any(m.name not in opened for m in menu_bar(marks) if not UNSAFE.search(m.name))

    def _select(self, mark: Mark, why: str) -> tuple[Action, str]:
        name = node_name(mark.name)
        self.selections.add(name)
        self.selected, self.selected_level = name, mark.level
        return Action("click", (mark.id,)), f"looking for {self.target!r}: selecting {name!r} ({why})"

    def _unfold_any(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        """Nothing named on the way: unfold the folded node closest in meaning to the goal, deepest first; the
        target breaks ties. The goal says where the object lives ("on the table public.bookings", "on the foreign
        server remote1"); the target's name says little about its container (measured: "User Mapping" is closest
        to **Schemas**, its goal to **Foreign Data Wrappers**, where user mappings are)."""
        toggles = [(node_name(_EXPAND.match(m.name).group("node")), m) for m in marks  # type: ignore[union-attr]
                   if m.role == "button" and _EXPAND.match(m.name) and "collapsed" in m.states]
        toggles = [(n, m) for n, m in toggles if n not in self.expanded]
        if not toggles:
            return None
        labels = [n for n, _ in toggles]
        encoder = get_encoder()
        by_target = encoder.similarities(self.target or self.goal, labels)
        by_goal = encoder.similarities(self.goal, labels) if self.goal else by_target
        scores = [round(g, 2) for g in by_goal]  # within 0.01 the goal does not tell them apart
        best = max(range(len(toggles)), key=lambda i: (toggles[i][1].level, scores[i], by_target[i]))
        name, mark = toggles[best]
        self.expanded.add(name)
        self.unfolded, self.last_unfolded, self.child_waits = True, name, 0
        return Action("click", (mark.id,)), f"looking for {self.target!r}: unfolding {name!r} ({scores[best]:.2f})"

    # -- the menu bar ---------------------------------------------------------------------------

    def _menu_bar_here(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        """The menus of the selected node, unless the goal names an object inside it still to reach: "on the table
        public.items" is acted on as the table, not as the database selected on the way (measured as a
        maintenance dialog run on the whole database). Once nothing is left to unfold, the menus come anyway."""
        if self.collections or not self.selections or self.deferred >= MAX_DEFERRED:
            return self._menu_bar(url, marks)
        if any(name not in {s.casefold() for s in self.selections} for name in self.inner_objects):
            self.deferred += 1
            return None
        return self._menu_bar(url, marks)

    def _menu_bar(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        if not self.selections:
            return None  # menus act on a selected object: nothing is selected yet
        opened = self.menus.setdefault(self.selected, set())
        bar = [m for m in menu_bar(marks) if "disabled" not in m.states and not UNSAFE.search(m.name) and m.name not in opened]
        if not bar:
            return None
        mark = min(bar, key=lambda m: m.bbox[0])
        opened.add(mark.name)
        self.entries.clear()
        self.menu_open = True
        return Action("click", (mark.id,)), f"looking for {self.target!r}: opening the menu [{mark.id}] {mark.name!r}"

    # -- anything else, by meaning ----------------------------------------------------------------

    def _walk(self, url: str, marks: list[Mark]) -> tuple[Action, str] | None:
        if any(m.role == "treeitem" for m in marks):
            return None  # a console with an object tree is searched through its tree and menus, not its other buttons
        here = page_key(url)
        tried = self.tried.setdefault(here, set())
        bar = menu_bar(marks)
        # an expanded control (a side bar's open group, an open menu's button) only folds up again when clicked,
        # hiding the links it shows (measured: the EIP group's button clicked, its EIP link gone, the search ended)
        candidates = [m for m in marks if m.role in WALK_ROLES and m.name.strip() and (m.role, m.name) not in tried
                      and "disabled" not in m.states and "expanded" not in m.states and not UNSAFE.search(m.name)
                      and not m.frame and m not in bar]
        best = self._best(candidates)
        if best is None:
            return None
        mark, score = best
        tried.add((mark.role, mark.name))
        if not self.trail or self.trail[-1] != here:
            self.trail.append(here)
        return Action("click", (mark.id,)), f"looking for {self.target or 'the page'!r}: [{mark.id}] {mark.name!r} ({score:.2f})"

    def _back(self, url: str) -> tuple[Action, str] | None:
        here = page_key(url)
        while self.trail:
            back = self.trail.pop()
            if back != here:
                self.hops += 1
                return Action("goto", (back,)), f"nothing closer to {self.target or 'the goal'!r} here; back to {back}"
        return None

    def _best(self, marks: list[Mark]) -> tuple[Mark, float] | None:
        if not marks:
            return None
        labels = [without_ids(m.name) for m in marks]
        encoder = get_encoder()
        wanted = [without_ids(q) for q in (self.target, self.goal) if q]
        graded = [max(s) for s in zip(*(encoder.similarities(q, labels) for q in wanted))] if wanted else [0.0] * len(marks)
        acronyms = {a for q in wanted for a in _ACRONYM.findall(q)}
        graded = [max(g, ACRONYM_SCORE) if any(spells(a, n) for a in acronyms) else g for g, n in zip(graded, labels)]
        # of links named alike ("Manage" in every row), the one in the row of the goal's resource, its first-named
        # one weighing most (every row may name the goal's VPC): the others are never tried once one is (``tried``
        # is by role and name; measured as a walk through another route table's page). Scores within 0.01 are alike: one
        # name encoded in one batch scores differently in its last digits from row to row.
        in_goal_row = [sum(len(self.rows) - k for k, r in enumerate(self.rows) if names(m.context, r)) for m in marks]
        # a link in the goal resource's row opens that resource's page, where what acts on it is, whatever the link
        # is called ("Manage", "Details"): worth opening when nothing closer is left (the lexical fallback scores
        # "Manage" 0 against "Unassociate"; measured as a search that gave up on the route table's own page)
        graded = [max(g, MIN_SCORE) if m.role == "link" and row else g for g, m, row in zip(graded, marks, in_goal_row)]
        # a person reads the page they are on before leaving it: a tab close to what is sought (the resource's own
        # **Associated vSwitches** when its vSwitches are to be unassociated) comes before a navigation link named
        # closer (**vSwitches**, every vSwitch in the region)
        stays = [m.role == "tab" and g >= ON_THIS_PAGE for m, g in zip(marks, graded)]
        order = max(range(len(marks)), key=lambda i: (stays[i], round(graded[i], 2), in_goal_row[i], marks[i].in_viewport, -i))
        return (marks[order], graded[order]) if graded[order] >= MIN_SCORE else None



def without_ids(text: str) -> str:
    """The text as the encoder should read it: each cloud-style resource id reduced to its type's prefix."""
    return _RANDOM_ID.sub(r"\1", text)


def spells(acronym: str, name: str) -> bool:
    """Whether a name of several words is what an acronym stands for: "EIP" for "Elastic IP addresses" (a word
    in capitals counts whole), which the encoder does not know (cosine 0.32, as for "VPCs")."""
    words = re.findall(r"[A-Za-z][\w-]*", name)
    initials = "".join(w if len(w) > 1 and w.isupper() else w[0] for w in words).upper()
    return len(words) >= 2 and initials.startswith(acronym) and not name.upper().startswith(acronym)


def menu_bar(marks: list[Mark]) -> list[Mark]:
    """The console's menu bar: one-word buttons side by side in one row along the top of the page
    ("File", "Object", "Tools", "Help"; a button elsewhere in the band is not part of it)."""
    top = [m for m in marks if m.role == "button" and m.level == 0 and not m.frame and m.name.strip()
           and m.bbox[1] < MENU_BAND and m.bbox[2] > 0]
    for row_top in sorted({round(m.bbox[1]) for m in top}):
        row = sorted((m for m in top if abs(m.bbox[1] - row_top) <= 2), key=lambda m: m.bbox[0])
        run: list[Mark] = []
        for mark in row:
            if len(mark.name.split()) != 1 or (run and mark.bbox[0] - (run[-1].bbox[0] + run[-1].bbox[2]) > BAR_GAP):
                if len(run) >= 2:
                    return run
                run = [] if len(mark.name.split()) != 1 else [mark]
                continue
            run.append(mark)
        if len(run) >= 2:
            return run
    return []


def _is_name(name: str, goal: str) -> bool:
    """Whether the goal names this node as an object ("the database demo", "public.items"): its whole name
    is in the goal, and it is not a collection (collections are plural: "Databases")."""
    word, text = name.casefold(), (goal or "").casefold()
    if re.search(rf"\w\.{re.escape(word)}(?![\w.])", text):
        return True  # "public.items": a qualified name is an object's, plural or not (a table named "items")
    return singular(word) == word and bool(re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text))
