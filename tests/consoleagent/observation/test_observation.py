"""Set-of-Mark observation on fixture pages in real Chromium, served over real HTTP (iframes need
real same-origin URLs): what gets marked, how it is named, ids that stay put, finding a mark again,
and the diagnoses for actions the page would reject.
"""

from __future__ import annotations

from tests import FIXTURES
import functools
import http.server
import re
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from consoleagent.observation.marking import PageSnapshot, install, locate, snapshot, why_not_actionable
from consoleagent.observation.outline import estimate_tokens
from consoleagent.observation.screenshot import marked_screenshot
from consoleagent.observation.types import Mark

pytestmark = pytest.mark.browser

FIXTURES = FIXTURES / "observation"
VIEWPORT = {"width": 1280, "height": 800}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """The fixture files, and ``/slow?ms=N``: an answer that comes N ms late, as a console's busy backend's does."""

    def do_GET(self) -> None:  # noqa: N802 (the handler's protocol)
        slow = re.fullmatch(r"/slow\?ms=(\d+)", self.path)
        if slow is None:
            return super().do_GET()
        time.sleep(int(slow.group(1)) / 1000)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(FIXTURES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def som(browser: Any) -> Iterator[Any]:
    """A page in a context with the observation init script installed, as the env sets it up."""
    context = browser.new_context(viewport=VIEWPORT)
    install(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert not errors, errors
    context.close()


def by_name(snap: PageSnapshot, name: str, role: str | None = None) -> Mark:
    found = [m for m in snap.marks if m.name == name and (role is None or m.role == role)]
    assert len(found) == 1, (name, [(m.id, m.role, m.name) for m in snap.marks])
    return found[0]


def names(snap: PageSnapshot) -> set[str]:
    return {m.name for m in snap.marks}


def log(page: Any) -> str:
    return page.locator("#log").text_content() or ""


def test_shadow_dom_controls_are_marked_and_clicked(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    assert {"Shadow save", "Inner name", "Deep go"} <= names(snap)
    assert by_name(snap, "Inner name").role == "textbox"
    locate(som, by_name(snap, "Deep go")).click()
    assert log(som) == "deep clicked"
    locate(som, by_name(snap, "Inner name")).fill("nested")
    assert som.evaluate("document.querySelector('x-panel').shadowRoot.querySelector('x-inner').shadowRoot"
                        ".getElementById('n').value") == "nested"


def test_iframe_controls_carry_their_frame_path(som: Any, site: str) -> None:
    som.goto(f"{site}/frame.html")
    som.frame_locator("iframe").frame_locator("iframe").locator("button").wait_for()
    snap = snapshot(som)
    host = by_name(snap, "Host")
    assert host.value == "proxy.local" and host.frame and "frame \"Settings frame\"" in host.context
    assert 'form "Proxy settings"' in host.context
    frame_box = som.locator("iframe").bounding_box()
    assert host.bbox[1] > frame_box["y"]  # coordinates are in the top viewport, iframe offset included
    nested = by_name(snap, "Nested button")
    assert nested.frame.count(">>") == 1
    locate(som, host).fill("edge.local")
    locate(som, by_name(snap, "Apply")).click()
    assert som.locator("#result").text_content() == "applied edge.local"
    locate(som, nested).click()
    assert som.locator("#result").text_content() == "nested clicked"
    assert why_not_actionable(som, nested) is None
    som.evaluate("document.querySelector('iframe').remove()")
    t0 = time.monotonic()
    assert why_not_actionable(som, host) == f"element [{host.id}] is no longer on the page (the page changed since it was observed)"
    assert time.monotonic() - t0 < 2  # no waiting for a frame that is gone


def test_clickable_divs_without_roles(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    trigger = by_name(snap, "Choose a zone")
    assert trigger.role == "clickable" and trigger.tag == "div"
    assert by_name(snap, "Open the billing card").role == "clickable"  # onclick attribute + pointer cursor
    assert "cn-hangzhou-h" not in names(snap)  # the menu is closed
    locate(som, trigger).click()
    opened = snapshot(som)
    option = by_name(opened, "cn-hangzhou-i")  # a listener via addEventListener, no role, no pointer
    assert option.role == "clickable"
    locate(som, option).click()
    assert som.locator("#zone-trigger").text_content() == "cn-hangzhou-i"
    locate(som, by_name(snap, "Open the billing card")).click()
    assert log(som) == "card clicked"


def test_open_modal_hides_the_background(som: Any, site: str) -> None:
    som.goto(f"{site}/modal.html")
    before = snapshot(som)
    assert {"Release", "Background action"} <= names(before) and before.modal is None
    locate(som, by_name(before, "Release")).click()
    after = snapshot(som)
    assert after.modal == "Release instance"
    assert names(after) == {"Type the instance name", "Confirm", "Cancel"}
    assert all(m.context == 'dialog "Release instance"' for m in after.marks)
    background = by_name(before, "Background action")
    assert why_not_actionable(som, background) == f"button 'Background action' [{background.id}] is covered by dialog 'Release instance'"
    assert why_not_actionable(som, by_name(after, "Confirm")) is None
    text = after.text()
    assert 'dialog "Release instance" (modal' in text and "Background action" not in text


def test_backdrop_without_aria_modal_blocks_the_page(som: Any, site: str) -> None:
    som.goto(f"{site}/overlay.html")
    snap = snapshot(som)
    assert names(snap) == {"Discard", "Keep editing"}
    assert snap.modal == "overlay"


def test_a_field_a_scrolled_panel_hides_is_scrolled_to_not_called_covered(som: Any, site: str) -> None:
    """Inside the page's viewport is not inside a dialog's scrolled body: the field below its visible part,
    or under the bar pinned to its bottom, is reached by scrolling the body; a mask over a panel is not."""
    som.goto(f"{site}/scrolled_panel.html")
    snap = snapshot(som)
    below, under_bar = by_name(snap, "Binary?"), by_name(snap, "Enabled?")
    assert why_not_actionable(som, below) is None  # was: covered by div 'Database sessions'
    locate(som, below).check(timeout=2000)
    assert locate(som, below).is_checked()
    assert why_not_actionable(som, under_bar) is None  # was: covered by div 'Publication must be specified.'
    locate(som, under_bar).check(timeout=2000)
    assert locate(som, under_bar).is_checked()
    masked = by_name(snap, "Behind the mask")
    assert why_not_actionable(som, masked) == f"button 'Behind the mask' [{masked.id}] is covered by div 'Loading'"


def test_disabled_controls_and_their_reasons(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    delete = by_name(snap, "Delete")
    assert "disabled" in delete.states
    assert why_not_actionable(som, delete) == f"button 'Delete' [{delete.id}] is disabled (\"Stop the instance first\")"
    resize = by_name(snap, "Resize")  # aria-disabled, explained by aria-describedby
    assert "disabled" in resize.states
    assert why_not_actionable(som, resize) == f"button 'Resize' [{resize.id}] is disabled (\"Resizing needs a stopped instance\")"
    for name in ("CIDR block", "Add CIDR"):  # inside <fieldset disabled>
        mark = by_name(snap, name)
        assert "disabled" in mark.states and mark.context == 'group "Network"'
    assert '(disabled) — Stop the instance first' in snap.text()


def test_names_for_unlabeled_fields_and_nesting(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    assert by_name(snap, "Search by name").role == "textbox"  # placeholder
    assert by_name(snap, "instance_name").role == "textbox"  # name attribute
    assert by_name(snap, "Description").role == "textbox"  # the text just before it
    hostnames = [m for m in snap.marks if m.name == "Hostname"]  # the table's column header
    assert len(hostnames) == 2
    agree = by_name(snap, "I agree to the terms")  # wrapped by its label: the input is marked, once
    assert agree.role == "checkbox" and agree.tag == "input"
    qty = by_name(snap, "Quantity")
    assert (qty.role, qty.value, qty.states) == ("spinbutton", "2", ["required"])
    zone = [m for m in snap.marks if m.role == "combobox" and m.tag == "select"][0]
    assert zone.value == "cn-hangzhou-i"
    assert by_name(snap, "Go inside link").role == "button"  # a link wrapping a button: one mark
    assert not [m for m in snap.marks if m.role == "link"]
    assert all(m.context.startswith('form "Instance details"') for m in (agree, qty, zone))


def test_row_actions_know_their_row(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    stops = [m for m in snap.marks if m.name == "Stop"]
    assert [m.context for m in stops] == ['row: web-01 | Running; column "Actions"', 'row: web-02 | Stopped; column "Actions"']
    locate(som, stops[1]).click()
    assert log(som) == "stop web-02"
    text = snap.text()
    assert 'table "Servers" columns: Name | Status | Hostname | Actions:' in text
    assert re.search(r"row: web-02 \| Stopped\n +\[\d+\] textbox \"Hostname\"\n +\[\d+\] button \"Stop\"", text)


def test_a_rows_first_cell_keeps_the_name_after_a_long_address_and_id(som: Any) -> None:
    """Measured as vpc-release-eip-03 (training split): the first cell "47.123.48.58 eip-bn6elmlomq48lqvqm
    pilot-nat-eip" was cut at 40 characters, so neither row's buttons named their EIP, and after the row's
    association was undone the follower released the other EIP, pilot-nat-eip-keep."""
    som.set_content("""<table aria-label="EIPs"><thead><tr><th>EIP</th><th>Status</th><th>Actions</th></tr></thead><tbody>
      <tr><td>47.102.218.131 eip-r2xscr9q3fd5txvah pilot-nat-eip-keep</td><td>Available</td><td><button>More</button></td></tr>
      <tr><td>47.123.48.58 eip-bn6elmlomq48lqvqm pilot-nat-eip</td><td>Available</td><td><button>More</button></td></tr>
      </tbody></table>""")
    contexts = [m.context for m in snapshot(som).marks if m.name == "More"]
    assert [c.split(" | ")[0] for c in contexts] == ["row: 47.102.218.131 eip-r2xscr9q3fd5txvah pilot-nat-eip-keep",
                                                     "row: 47.123.48.58 eip-bn6elmlomq48lqvqm pilot-nat-eip"]
    long_status = "x" * 70
    som.set_content(f"<table><tr><td>web-01</td><td>{long_status}</td><td><button>Stop</button></td></tr></table>")
    assert snapshot(som).marks[0].context.startswith(f"row: web-01 | {long_status[:39]}…")  # other cells stay short


def test_hidden_and_offscreen(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    assert not [n for n in names(snap) if n.startswith("Hidden")]
    far = by_name(snap, "Far below")
    assert far.in_viewport is False and far.bbox[1] > VIEWPORT["height"]
    assert by_name(snap, "Delete").in_viewport is True
    assert why_not_actionable(som, far) is None  # it can be scrolled into view


def test_ids_are_stable_and_new_elements_get_new_ones(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    first = snapshot(som)
    second = snapshot(som)
    assert [(m.id, m.name) for m in first.marks] == [(m.id, m.name) for m in second.marks]
    som.evaluate("""() => { const b = document.createElement('button'); b.textContent = 'Brand new';
                    document.querySelector('h1').after(b); }""")
    third = snapshot(som)
    new = by_name(third, "Brand new")
    assert new.id > max(m.id for m in first.marks)
    assert {m.name: m.id for m in third.marks if m.name != "Brand new"} == {m.name: m.id for m in first.marks if m.name != "Stop"} | {
        "Stop": [m for m in first.marks if m.name == "Stop"][-1].id}
    assert [m.id for m in third.marks if m.name == "Stop"] == [m.id for m in first.marks if m.name == "Stop"]
    # A new document never reuses an id the policy saw before.
    som.goto(f"{site}/modal.html")
    assert min(m.id for m in snapshot(som).marks) > max(m.id for m in third.marks)
    assert why_not_actionable(som, new) == f"element [{new.id}] is no longer on the page (the page changed since it was observed)"


def test_diagnoses_hidden_and_removed_after_the_snapshot(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    later = by_name(snap, "Goes away later")
    assert why_not_actionable(som, later) is None
    som.evaluate("document.getElementById('later').style.display = 'none'")
    assert why_not_actionable(som, later) == f"button 'Goes away later' [{later.id}] is hidden"
    som.evaluate("document.getElementById('later').remove()")
    assert why_not_actionable(som, later) == f"element [{later.id}] is no longer on the page (the page changed since it was observed)"
    # A clone carries our attribute but is not the element that was observed.
    som.evaluate("document.body.append(document.getElementById('del').cloneNode(true))")
    som.evaluate("document.getElementById('del').remove()")
    delete = by_name(snap, "Delete")
    assert why_not_actionable(som, delete).startswith(f"element [{delete.id}] is no longer on the page")


def test_outline_shape(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    text = snap.text()
    assert text == snapshot(som).text()  # deterministic
    lines = text.splitlines()
    assert lines[0] == "# Controls"
    assert "This page collects the controls that other observation tools miss." in lines
    assert re.search(r'^region "Shadow area":\n  ## Shadow\n  \[\d+\] button "Shadow save"$', text, re.M)
    assert re.search(r'^  \[\d+\] spinbutton "Quantity" value="2" \(required\)$', text, re.M)
    assert re.search(r'^  \[\d+\] checkbox "I agree to the terms"$', text, re.M)
    assert "(scroll position 0–800 of" in lines[-1]


def test_budget_keeps_dialog_errors_and_controls_in_view(som: Any, site: str) -> None:
    som.goto(f"{site}/big.html")
    snap = snapshot(som)
    assert len(snap.marks) == 502
    full = snap.text(budget_tokens=100_000)
    assert "event-499" in full and full.count("Lorem ipsum") >= 10  # a text block is capped at 600 characters
    text = snap.text(budget_tokens=800)
    assert estimate_tokens(text) <= 800
    assert "alert: Quota exceeded: you can create at most 10 VPCs." in text
    assert re.search(r'\[\d+\] textbox "Name" \(required, invalid\)\n +! Name is required', text)
    assert 'dialog "Tips":' in text and 'button "Dismiss tips"' in text
    assert "# Audit" in text
    assert re.search(r"… \d+ more rows", text) and "event-499" not in text
    in_view = [m for m in snap.marks if m.in_viewport]
    assert all(f"[{m.id}]" in text for m in in_view)
    assert text.count("Lorem ipsum") <= 4
    tiny = snap.text(budget_tokens=300)  # below what must stay: the essentials still do
    assert "Quota exceeded" in tiny and "Dismiss tips" in tiny


def test_marked_screenshot_is_a_viewport_png(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    snap = snapshot(som)
    png = marked_screenshot(som, snap.marks)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (VIEWPORT["width"], VIEWPORT["height"])
    assert som.evaluate("document.getElementById('__som_overlay')") is None
    assert png != som.screenshot(type="png")  # the boxes are drawn
    assert [m.id for m in snapshot(som).marks] == [m.id for m in snap.marks]  # and leave no trace


def test_works_without_the_init_script(page: Any, site: str) -> None:
    page.goto(f"{site}/controls.html")
    snap = snapshot(page)
    assert "Delete" in names(snap) and "Choose a zone" in names(snap)  # pointer cursor still finds it
    assert snapshot(page).marks[0].id == snap.marks[0].id


def test_observation_is_fast(som: Any, site: str) -> None:
    som.goto(f"{site}/controls.html")
    times = sorted(snapshot(som).elapsed_ms for _ in range(9))
    print(f"controls.html snapshot median {times[4]:.1f} ms")
    assert times[4] < 200


def test_native_modal_dialog_and_a_menu_portaled_above_it(som: Any) -> None:
    som.set_content("""<button>Behind</button>
      <dialog aria-label="Edit tags"><input aria-label="Tag"><button id="more">More</button></dialog>
      <div id="menu" role="listbox" style="position:fixed;top:0;left:0;z-index:5" hidden>
        <div role="option">prod</div></div>
      <script>document.querySelector('dialog').showModal();</script>""")
    snap = snapshot(som)
    assert names(snap) == {"Tag", "More"} and snap.modal == "Edit tags"
    # A dropdown a framework appends to <body> while the dialog is open sits above it and stays usable.
    som.evaluate("""() => { const d = document.querySelector('dialog'); d.close(); d.setAttribute('aria-modal', 'true');
                    d.setAttribute('role', 'dialog'); d.setAttribute('open', ''); d.style.cssText = 'position:fixed;top:200px';
                    document.getElementById('menu').hidden = false; }""")
    opened = snapshot(som)
    assert names(opened) == {"Tag", "More", "prod"}


def test_field_help_text_is_said_once(som: Any) -> None:
    som.set_content("""<main><h1>Create</h1><form aria-label="New VPC">
      <label for="d">Description</label><input id="d" aria-describedby="d-help">
      <p id="d-help">Up to 256 characters.</p></form></main>""")
    text = snapshot(som).text(2000)
    assert 'textbox "Description" — Up to 256 characters.' in text
    assert text.count("Up to 256 characters.") == 1
