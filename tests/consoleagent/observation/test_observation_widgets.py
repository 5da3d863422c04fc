"""Observation on widgets as common React component libraries draw them (fixture pages written for
these tests, in real Chromium over real HTTP): a dialog portaled into an aria-hidden layer, ARIA and
role-less trees, searchable selects beside unlinked labels, data grids, dock tabs, menus with
shortcut hints, a loading splash, and the dblclick action.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.env.executor import Executor
from consoleagent.env.faults import ActionRejected
from consoleagent.env.settle import MUTATION_TRACKER, RequestTracker, SettleConfig, wait_settled
from consoleagent.observation.marking import PageSnapshot, locate, snapshot
from consoleagent.observation.types import Mark
from tests.consoleagent.observation import test_observation as base
from tests.consoleagent.observation.test_observation import by_name, names

site = base.site  # the fixture page server and the observed page, as test_observation sets them up
som = base.som

pytestmark = pytest.mark.browser


def marks_named(snap: PageSnapshot, name: str, role: str | None = None) -> list[Mark]:
    return [m for m in snap.marks if m.name == name and (role is None or m.role == role)]


def act(page: Any, snap: PageSnapshot, action: str) -> None:
    """Run one action text through the parser and the executor, as the environment does."""
    Executor(page, "", {m.id: m for m in snap.marks}).run(parse_action(action))


# --- modals --------------------------------------------------------------------------------------------


def test_dialog_portaled_into_an_aria_hidden_layer_is_the_modal(som: Any, site: str) -> None:
    som.goto(f"{site}/portal_dialog.html")
    before = snapshot(som)
    assert {"Drop", "Refresh", "Server activity", "Configure"} <= names(before) and before.modal is None
    locate(som, by_name(before, "Drop")).click()
    snap = snapshot(som)
    assert snap.modal == "Drop Database?"
    assert names(snap) == {"Close", "No", "Yes"}
    assert all(m.context == 'dialog "Drop Database?"' for m in snap.marks)
    text = snap.text()
    assert 'dialog "Drop Database?" (modal: only its controls can be used):' in text
    assert "Are you sure you want to drop database sales?" in text
    for behind in ("Dashboard", "Welcome to the sessions dashboard.", "Object Explorer", "Server activity"):
        assert behind not in text  # what the modal covers is not listed
    act(som, snap, f"click({by_name(snap, 'Yes').id})")
    assert som.title() == "dropped"


def test_page_hidden_behind_a_dialog_by_a_modal_manager(som: Any, site: str) -> None:
    """The other way modal managers do it: aria-hidden on the page, the dialog's layer left alone."""
    som.goto(f"{site}/portal_dialog.html")
    som.locator("#drop").click()
    som.evaluate("""() => { const host = document.getElementById('portal-host'); host.removeAttribute('aria-hidden');
                    document.getElementById('app').setAttribute('aria-hidden', 'true'); }""")
    snap = snapshot(som)
    assert snap.modal == "Drop Database?" and names(snap) == {"Close", "No", "Yes"}
    assert "Dashboard" not in snap.text()


# --- trees ---------------------------------------------------------------------------------------------


def test_aria_tree_items_carry_level_state_and_appear_once(som: Any, site: str) -> None:
    som.goto(f"{site}/tree.html")
    snap = snapshot(som)
    items = [(m.name, m.level, m.states) for m in snap.marks if m.role == "treeitem" and m.tag == "li"]
    assert items == [("public", 1, ["expanded"]), ("orders", 2, ["selected"]), ("Functions", 2, ["collapsed"])]
    for name in ("public", "orders", "Functions"):
        assert len(marks_named(snap, name)) == 1  # the item, not also its clickable row
    text = snap.text()
    assert re.search(r'tree "Schemas":\n  \[\d+\] treeitem "public" \(level 1, expanded\)\n'
                     r'    \[\d+\] treeitem "orders" \(level 2, selected\)\n    \[\d+\] treeitem "Functions" \(level 2, collapsed\)', text)
    act(som, snap, f"click({by_name(snap, 'Functions').id})")
    opened = snapshot(som)
    assert "expanded" in by_name(opened, "Functions").states
    assert by_name(opened, "total_due").level == 3
    # Clicking "public" acts on its own row, not on a child drawn inside its box.
    locate(som, by_name(opened, "public")).click()
    assert "collapsed" in by_name(snapshot(som), "public").states


def test_roleless_tree_rows_become_tree_items_with_an_expand_control(som: Any, site: str) -> None:
    som.goto(f"{site}/tree.html")
    snap = snapshot(som)
    servers = by_name(snap, "Servers")
    assert (servers.role, servers.level, servers.states) == ("treeitem", 1, ["collapsed"])
    caret = by_name(snap, "Expand Servers")
    assert caret.role == "button" and caret.bbox[2] <= 20  # the caret itself, not the row
    act(som, snap, f"click({caret.id})")
    snap = snapshot(som)
    assert by_name(snap, "Servers").states == ["expanded"] and "Collapse Servers" in names(snap)
    cluster = by_name(snap, "Local cluster")
    assert (cluster.role, cluster.level, cluster.states) == ("treeitem", 2, ["collapsed"])
    act(som, snap, f"click({by_name(snap, 'Expand Local cluster').id})")
    snap = snapshot(som)
    levels = {m.name: m.level for m in snap.marks if m.role == "treeitem" and m.tag == "div"}
    assert levels == {"Servers": 1, "Local cluster": 2, "Databases": 3, "Login roles": 3}
    assert by_name(snap, "Local cluster").states == ["expanded"]  # told by its open caret
    # The outline shows the structure: each row indented by depth, its caret under it.
    assert re.search(r'^\[\d+\] treeitem "Servers" \(level 1, expanded\)\n  \[\d+\] button "Collapse Servers" \(expanded\)\n'
                     r'  \[\d+\] treeitem "Local cluster" \(level 2, expanded\)\n    \[\d+\] button "Collapse Local cluster"',
                     snap.text(), re.M)
    # A double click on a row opens it (the dblclick action); a click selects it.
    act(som, snap, f"dblclick({by_name(snap, 'Databases').id})")
    snap = snapshot(som)
    assert {m.name: m.level for m in snap.marks if m.name in ("inventory", "sales")} == {"inventory": 4, "sales": 4}
    assert not marks_named(snap, "Expand inventory")  # a leaf has no caret and no state
    assert by_name(snap, "inventory").states == []
    act(som, snap, f"click({by_name(snap, 'sales').id})")
    assert som.locator("#log").text_content() == "selected sales"
    assert by_name(snapshot(som), "sales").states == ["selected"]


def test_tree_rows_clicked_by_their_label_with_the_caret_beside_it(som: Any, site: str) -> None:
    """Virtualized rows, each in its own wrapper, depth in an attribute, the label takes the clicks."""
    som.goto(f"{site}/tree.html")
    snap = snapshot(som)
    rows = [(m.name, m.level, m.states) for m in snap.marks if m.name in ("Workspaces", "notes.sql", "archive")]
    assert rows == [("Workspaces", 1, ["expanded"]), ("notes.sql", 2, []), ("archive", 2, ["collapsed"])]
    assert all(by_name(snap, n).role == "treeitem" for n in ("Workspaces", "notes.sql", "archive"))
    assert "Expand archive" in names(snap) and "Expand notes.sql" not in names(snap)
    act(som, snap, f"click({by_name(snap, 'Collapse Workspaces').id})")
    closed = snapshot(som)
    assert by_name(closed, "Workspaces").states == ["collapsed"] and "notes.sql" not in names(closed)


# --- names ---------------------------------------------------------------------------------------------


def test_fields_are_named_by_their_label_not_their_value(som: Any, site: str) -> None:
    som.goto(f"{site}/form.html")
    snap = snapshot(som)
    owner = by_name(snap, "Owner")
    assert (owner.role, owner.value) == ("combobox", "docagent")
    for label in ("Region", "Storage class"):
        mark = by_name(snap, label)
        assert (mark.role, mark.value, mark.placeholder) == ("combobox", "", "Select an item...")
    assert by_name(snap, "Name").value == "sales"
    assert by_name(snap, "Comment").tag == "textarea"  # the label cell before it
    assert not marks_named(snap, "docagent") and not marks_named(snap, "Select an item...")
    text = snap.text()
    assert re.search(r'\[\d+\] combobox "Owner" value="docagent"', text)
    assert "\ndocagent\n" not in text  # said once, as the value


def test_switches_deep_selects_and_div_grid_cells_are_named(som: Any, site: str) -> None:
    """A transparent ``<input role=switch>`` over its drawn track is the switch, named by its label; a
    select nested deep beside a button is named by its form row's label (whose ``for`` points at a
    hidden input); an unnamed field in a grid drawn with divs is named by the header above it."""
    som.goto(f"{site}/form_more.html")
    snap = snapshot(som)
    switch = by_name(snap, "Do instead?")
    assert switch.role == "switch" and "checked" not in switch.states
    assert not [m for m in snap.marks if m.role == "clickable" and not m.name]  # not its wrapper instead
    act(som, snap, f"click({switch.id})")
    assert som.locator("#s1").is_checked()
    assert "checked" in by_name(snapshot(som), "Do instead?").states
    assert by_name(snap, "Publication").role == "combobox"
    assert by_name(snap, "Operator").role == "combobox"
    assert by_name(snap, "Operator class").role == "textbox"


def test_text_in_panels_and_under_a_delegating_root_is_page_text(som: Any, site: str) -> None:
    """A form's message ("Target type must be selected.") inside a focusable panel, under an app root
    that listens for its children's clicks, is in the outline; a searchable select that hides its input
    while it shows the chosen value is still the field, with that value; a small focusable chip's text
    stays its name, not a second line of page text."""
    som.goto(f"{site}/panel.html")
    snap = snapshot(som)
    lines = snap.text().splitlines()
    assert {"Target type must be selected.", "Connected to the cluster since 10:02."} <= set(lines)
    chosen = by_name(snap, "Source type")
    assert (chosen.role, chosen.value) == ("combobox", "integer")
    assert by_name(snap, "Target type").placeholder == "Select an item..."
    chip = by_name(snap, "nightly")
    assert chip.role == "focusable" and "nightly" not in lines
    assert by_name(snap, "Create - Cast").role == "focusable"
    act(som, snap, f'type({chosen.id}, "text")')
    assert som.locator(".sel-input").first.input_value() == "text"


def test_duplicate_names_are_told_apart_and_new_rows_are_named(som: Any, site: str) -> None:
    som.goto(f"{site}/form.html")
    snap = snapshot(som)
    adds = marks_named(snap, "Add row")
    assert [m.context for m in adds] == ['section "Privileges"', 'section "Security labels"']
    act(som, snap, f"click({adds[0].id})")
    act(som, snap, f"click({adds[0].id})")
    act(som, snap, f"click({adds[1].id})")
    snap = snapshot(som)
    grantees = marks_named(snap, "Grantee", "textbox")
    assert [m.context for m in grantees] == ['row 1; column "Grantee"', 'row 2; column "Grantee"']
    assert by_name(snap, "Security label").context == 'row 1; column "Security label"'
    locate(som, grantees[1]).fill("reporter")
    assert som.locator("#privs tbody tr:nth-child(2) input").first.input_value() == "reporter"
    assert re.search(r"  row 2\n    \[\d+\] textbox \"Grantee\"", snap.text())


def test_dock_tabs_once_and_shortcut_hints_out_of_names(som: Any, site: str) -> None:
    som.goto(f"{site}/dock.html")
    snap = snapshot(som)
    assert [m.name for m in snap.marks if m.name in ("Dashboard", "Properties", "SQL")] == ["Dashboard", "Properties", "SQL"]
    assert all(m.role == "tab" for m in snap.marks if m.name in ("Dashboard", "Properties", "SQL"))
    assert by_name(snap, "Dashboard").states == ["selected"]
    closes = marks_named(snap, "Close", "button")  # not part of the tabs' names; told apart by their tab
    assert [m.context for m in closes] == ['section "Dashboard"', 'section "Properties"', 'section "SQL"']
    query = by_name(snap, "Query tool")  # a disabled icon button named by its tooltip wrapper
    assert query.role == "button" and "disabled" in query.states and by_name(snap, "Filter objects").role == "button"
    assert [m.name for m in snap.marks if m.role == "menuitem"] == ["Database...", "Refresh", "Delete", "Create", "Reload"]
    assert snap.extras[by_name(snap, "Database...").id]["desc"] == "shortcut Alt + Shift + N"
    assert snap.extras[by_name(snap, "Delete").id]["desc"] == "shortcut Ctrl+Shift+D"
    assert snap.extras[by_name(snap, "Reload").id]["desc"] == "shortcut F5"
    assert 'menuitem "Database..." — shortcut Alt + Shift + N' in snap.text()
    act(som, snap, f"click({by_name(snap, 'SQL').id})")
    assert som.locator("#log").text_content() == "tab SQL"


def test_grid_cells_are_named_by_column_and_row(som: Any, site: str) -> None:
    som.goto(f"{site}/grid.html")
    snap = snapshot(som)
    bob = [m for m in snap.marks if m.role == "gridcell" and m.value == "bob"]
    assert len(bob) == 1 and (bob[0].name, bob[0].context) == ("name", "row 2: 2")
    act(som, snap, f"click({by_name(snap, 'Add new row').id})")
    snap = snapshot(som)
    new = [m for m in snap.marks if m.role == "gridcell" and m.context == "row 3"]
    assert [(m.name, m.value) for m in new] == [("id", ""), ("name", ""), ("city", "")]
    assert re.search(r'  row 3\n    \[\d+\] gridcell "id"\n', snap.text())
    act(som, snap, f"dblclick({new[1].id})")  # a double click opens the cell's editor
    assert som.locator("#log").text_content() == "editing"
    edited = snapshot(som)
    editor = [m for m in edited.marks if m.role == "textbox"]
    assert len(editor) == 1 and editor[0].name == "name" and "focused" in editor[0].states
    assert not [m for m in edited.marks if m.role == "gridcell" and m.name == "name" and m.context == "row 3"]


def test_a_lists_disabled_entries_are_not_offered_nor_waited_for(som: Any, site: str) -> None:
    """A drop-down's disabled entry says why it offers nothing ("No options available"): it is not listed as an option
    (selected as one, Playwright waited for it to be enabled until the timeout, twice, in a validation task), and
    choosing it is refused at once."""
    som.goto(f"{site}/empty_list.html")
    snap = snapshot(som)
    nat, zone = by_name(snap, "NAT gateway").id, by_name(snap, "Zone").id
    with pytest.raises(ActionRejected) as missing:
        act(som, snap, f'select({nat}, "scrape-nat")')
    assert str(missing.value).endswith("its options are: none (the list shows: No options available)")
    with pytest.raises(ActionRejected) as other:
        act(som, snap, f'select({zone}, "cn-hangzhou-i")')
    assert str(other.value).endswith('its options are: "cn-hangzhou-h"')
    began = time.monotonic()
    with pytest.raises(ActionRejected, match="is disabled"):
        act(som, snap, f'select({nat}, "No options available")')
    assert time.monotonic() - began < 2


def test_dblclick_is_one_action_of_the_table() -> None:
    action = parse_action("dblclick(7)")
    assert (action.name, action.element_id, str(action)) == ("dblclick", 7, "dblclick(7)")


# --- readiness -----------------------------------------------------------------------------------------


def _settle_page(som: Any, url: str, config: SettleConfig) -> tuple[float, RequestTracker]:
    som.context.add_init_script(MUTATION_TRACKER)
    tracker = RequestTracker(som)
    som.goto(url)
    return wait_settled(som, tracker, config), tracker


def test_settle_waits_out_a_loading_splash(som: Any, site: str) -> None:
    waited, _ = _settle_page(som, f"{site}/splash.html?ms=1500", SettleConfig())
    assert 1.2 <= waited < 10, waited  # quiet (a CSS spinner mutates nothing) but covered
    snap = snapshot(som)
    assert {"Query tool", "Properties"} <= names(snap) and snap.modal is None


def test_settle_waits_out_a_splash_while_the_page_is_busy(som: Any, site: str) -> None:
    """A splash counting its progress is never quiet: the busy bound (max_s) must not end the wait."""
    waited, _ = _settle_page(som, f"{site}/splash.html?ms=1500&progress=1", SettleConfig(max_s=0.5))
    assert 1.2 <= waited < 10, waited
    assert "Query tool" in names(snapshot(som))


def test_settle_does_not_wait_for_modals_or_masks_with_controls(som: Any, site: str) -> None:
    config = SettleConfig()
    waited, _ = _settle_page(som, f"{site}/overlay.html", config)
    assert waited < 2.5, waited  # a mask with a dialog box above it: the agent must see it
    som.goto(f"{site}/portal_dialog.html")
    som.locator("#drop").click()
    t0 = time.monotonic()
    wait_settled(som, RequestTracker(som), config)
    assert time.monotonic() - t0 < 2.5


def test_a_splash_that_never_clears_is_waited_for_once(som: Any, site: str) -> None:
    config = SettleConfig(overlay_max_s=1.0, max_s=0.5)
    waited, tracker = _settle_page(som, f"{site}/splash.html?ms=-1", config)
    assert 1.0 <= waited < 3, waited
    assert tracker.stuck_overlay.startswith("Loading Workbench ...")
    assert wait_settled(som, tracker, config) < 0.5


def test_settle_waits_for_a_short_timer_that_moves_focus(som: Any, site: str) -> None:
    """A tab panel that focuses its first field 200 ms after it is shown: an agent acting before then
    would type into a field that then loses focus, so the timer is waited for. (How long ``wait_settled`` itself
    waited depends on how long the click took on a loaded machine: 0.148 s once in CI; what must hold is that
    the focus had moved when it returned.)"""
    waited, tracker = _settle_page(som, f"{site}/form_more.html", SettleConfig())
    snap = snapshot(som)
    act(som, snap, f"click({by_name(snap, 'Definition').id})")
    waited = wait_settled(som, tracker, SettleConfig())
    assert som.evaluate("document.activeElement.id") == "first"  # the timer had fired when settling ended
    assert waited < 1.5, waited


@pytest.mark.parametrize(("button", "sent_by"), [("save", "fetch"), ("send", "xhr")])
def test_settle_waits_for_a_request_the_page_sent_before_the_browser_reports_it(
        som: Any, site: str, button: str, sent_by: str) -> None:
    """A Save that sends a request (answered 600 ms later) and changes nothing on the page: the settle must wait for
    the answer even when the browser's report of the request has not reached us yet, as on a loaded machine (here
    the tracker listens to another page, so it never hears of it). The page's own count of its requests holds it.
    The 600 ms run from the click, not from the start of ``wait_settled``: on a loaded CI machine the click alone
    took 0.11 s, and ``wait_settled`` then waited 0.489 s."""
    _settle_page(som, f"{site}/save_fetch.html", SettleConfig())
    unaware = RequestTracker(som.context.new_page())
    clicked_at = time.monotonic()
    som.locator(f"#{button}").click()
    wait_settled(som, unaware, SettleConfig())
    since_click = time.monotonic() - clicked_at
    assert som.evaluate("window.saved") == sent_by, since_click  # the answer had been read when settling ended
    assert 0.6 <= since_click < 3.5, since_click


def test_settle_is_not_held_by_a_timer_rearmed_forever(som: Any, site: str) -> None:
    _, tracker = _settle_page(som, f"{site}/form_more.html", SettleConfig())
    som.locator("#ticker").click()
    waited = wait_settled(som, tracker, SettleConfig(timers_max_s=0.5))
    assert 0.4 <= waited < 1.5, waited


def test_a_code_editor_is_a_multiline_textbox_named_by_no_line_number(som: Any, site: str) -> None:
    """A CodeMirror-style editor: a contenteditable box of lines after a gutter of line numbers, no label. Its gutter's
    digits are no name (it was named "91": the gutter's hidden sizing "9" and line "1"); it is a text field in the
    ``multiline`` state, which a native textarea (a description field) is not; typing into it writes its lines."""
    som.goto(f"{site}/code_editor.html")
    snap = snapshot(som)
    editor = next(m for m in snap.marks if m.role == "textbox" and "multiline" in m.states)
    assert editor.name == ""
    assert "multiline" not in by_name(snap, "Description").states and "multiline" not in by_name(snap, "Name").states
    assert not [m for m in snap.marks if re.fullmatch(r"[\d\s]+", m.name)]
    act(som, snap, f'type({editor.id}, "NOTIFY widgets_changed")')
    act(som, snap, f"click({by_name(snap, 'Save').id})")
    assert som.title() == "saved: NOTIFY widgets_changed"


def test_a_native_drop_downs_options_are_listed_with_their_values_and_a_refusal_is_foreseen(som: Any, site: str) -> None:
    """Its enabled options' labels (whitespace as a person reads it) and values, at most 50; a select neither names is
    refused with the very text ``foreseen_refusal`` predicts from the mark, so the follower run beside the ranker is
    told what the console would say."""
    from consoleagent.env.faults import no_option_error
    from consoleagent.policies.follower_shadow import foreseen_refusal

    som.goto(f"{site}/listed_options.html")
    snap = snapshot(som)
    instance, kind = by_name(snap, "Instance"), by_name(snap, "Instance type")
    assert instance.options == ["Select an instance", "media-01 (i-97jp)", "media-03 (i-5zz)"]
    assert instance.option_values == ["", "i-97jp", "i-5zz"]
    assert len(kind.options or []) == len(kind.option_values or []) == 50 and (kind.options or [""])[0] == "ecs.t0.large"
    assert all(m.options is None for m in snap.marks if m.tag != "select")
    with pytest.raises(ActionRejected) as refused:
        act(som, snap, f'select({instance.id}, "media-01")')
    assert str(refused.value) == foreseen_refusal(f'select({instance.id}, "media-01")', _observed(snap))
    assert str(refused.value) == no_option_error(instance.id, "media-01", instance.options or [])
    for option in ("i-5zz", "media-01 (i-97jp)"):  # by value and by label: taken, and foreseen so
        assert foreseen_refusal(f'select({instance.id}, "{option}")', _observed(snap)) is None
        act(som, snap, f'select({instance.id}, "{option}")')
    assert som.locator("#instance").input_value() == "i-97jp"


def _observed(snap: PageSnapshot) -> Any:
    from consoleagent.observation.types import Observation

    return Observation(url=snap.url, title=snap.title, text="", marks=snap.marks)
