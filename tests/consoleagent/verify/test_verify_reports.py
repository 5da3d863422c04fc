"""The verification reports: JUnit XML against its schema, the HTML in real Chromium, the Markdown cap,
and the review page over real HTTP (TestClient, and Uvicorn on a port with Chromium clicking the buttons)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from lxml import etree

from consoleagent.verify.model import VerifyReport
from consoleagent.verify.report_junit import XSD_PATH, render_junit
from consoleagent.verify.report_markdown import render_markdown
from consoleagent.verify.reports import apply_reviews, write_reports
from consoleagent.verify.review import ReviewStore, record_review
from consoleagent.verify.review_server import review_app
from tests.verify_fixtures import HOSTILE, build_report, build_report_dir

DRIFT_ID = "ecs-instance-create#create-an-instance"
LABEL_ID = f"{DRIFT_ID}/3/label_changed"
FIELD_ID = f"{DRIFT_ID}/4/field_added_required"
FEATURE_ID = "ecs-instance-create#create-an-instance-from-a-template/2/feature_removed"


@pytest.fixture
def report_dir(tmp_path: Path) -> tuple[Path, VerifyReport]:
    out = tmp_path / "out"
    return out, build_report_dir(out)


def _schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD_PATH)))


# --- JUnit ---------------------------------------------------------------------------------------


def test_junit_validates_against_the_schema_with_the_right_counts(report_dir: tuple[Path, VerifyReport], tmp_path: Path) -> None:
    out, report = report_dir
    paths = write_reports(report, out, junit=tmp_path / "ci" / "verify.xml")
    assert paths["junit"] == tmp_path / "ci" / "verify.xml" and not (out / "junit.xml").exists()
    doc = etree.parse(str(paths["junit"]))
    schema = _schema()
    assert schema.validate(doc), schema.error_log
    root = doc.getroot()
    # 4 procedures + the skipped and the invalid document; DRIFT + FAIL fail; ERROR + invalid err.
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "6", "failures": "2", "errors": "2", "skipped": "1"}
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"vpc-create", "ecs-instance-create", "keypair-create", "overview", "broken"}
    assert suites["ecs-instance-create"].get("file") == "docs/stratus/ecs/instance-create.md"
    drift = suites["ecs-instance-create"].find("testcase[@name='Create an instance']")
    assert (drift.get("classname"), drift.get("file"), drift.get("line"), drift.get("time")) == \
        ("ecs-instance-create", "docs/stratus/ecs/instance-create.md", "12", "42.500")
    failure = drift.find("failure")
    assert failure.get("type") == "DRIFT" and "label_changed at step 3" in failure.get("message")
    text = failure.text
    assert "step 3 (line 27): label_changed" in text and "expected: click **Create Instance**" in text
    assert "    + On the Instances page, click **Create ECS Instance**." in text and HOSTILE in text  # escaped by XML, intact
    fail_case = suites["ecs-instance-create"].find("testcase[@name='Create an instance from a launch template']")
    assert fail_case.find("failure").get("type") == "FAIL"
    error = suites["keypair-create"].find("testcase/error")
    assert error.get("type") == "ERROR" and "QuotaExceeded.Vpc" in error.get("message")
    assert suites["overview"].find("testcase/skipped") is not None
    assert suites["broken"].find("testcase/error").get("type") == "invalid"
    assert "broken.md:7" in suites["broken"].find("testcase/error").get("message")
    assert suites["vpc-create"].find("testcase/failure") is None and suites["vpc-create"].find("testcase/error") is None


def test_junit_survives_control_characters_an_agent_may_observe() -> None:
    report = build_report()
    report.documents[1].procedures[0].discrepancies[0].observed = "bell\x07 nul\x00 esc\x1b[31m red"
    xml = render_junit(report).encode("utf-8")
    doc = etree.fromstring(xml)  # would raise on an illegal character
    schema = _schema()
    assert schema.validate(etree.ElementTree(doc)), schema.error_log
    assert "bell\ufffd nul\ufffd esc\ufffd[31m red" in doc.find(".//failure").text


# --- HTML ----------------------------------------------------------------------------------------


def _visible_rows(page) -> list[str]:
    return page.eval_on_selector_all("tr.proc-row", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.verdict)")


@pytest.mark.browser
def test_html_report_in_chromium_filters_escapes_and_loads_images(report_dir: tuple[Path, VerifyReport], page) -> None:
    out, report = report_dir
    html = write_reports(report, out)["html"]
    page.goto(html.as_uri())
    assert page.title() == f"Documentation verification {report.run.id}"
    assert _visible_rows(page) == ["PASS", "DRIFT", "FAIL", "ERROR"]
    assert page.evaluate("window.pwned") is None  # the hostile observation stayed text
    assert HOSTILE in page.locator(f"[id='{FIELD_ID}'] .side.observed").inner_text()

    page.get_by_role("button", name="DRIFT (1)").click()
    assert _visible_rows(page) == ["DRIFT"]
    assert page.locator(f"section[id='{DRIFT_ID}']").is_visible()
    assert not page.locator("section[id='vpc-create#create-a-vpc']").is_visible()
    assert page.locator("#shown-count").inner_text() == "1 of 4 shown"
    page.get_by_role("button", name="all").click()
    page.locator("#kind-filter").select_option("feature_removed")
    assert _visible_rows(page) == ["FAIL"]
    page.locator("#kind-filter").select_option("")
    page.locator("#text-filter").fill("key pair")
    assert _visible_rows(page) == ["ERROR"]
    page.locator("#text-filter").fill("")
    assert len(_visible_rows(page)) == 4

    images = page.locator("section.procedure img")
    assert images.count() == 3
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete", arg=images.nth(i).element_handle())
        assert images.nth(i).evaluate("img => img.naturalWidth") == 320
    # Every relative link (screenshots, trajectories, viewers) points at a file of the report directory.
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    relative = [h.split("#")[0] for h in hrefs if not h.startswith("#")]
    assert "viewers/ecs-instance-create-03-run0.html#ep0-step3" in hrefs  # the viewer, at the evidence's agent step
    assert any(h.startswith("viewers/") for h in relative) and any(h.endswith(".jsonl") for h in relative)
    assert all((out / h).is_file() for h in relative), [h for h in relative if not (out / h).is_file()]
    # Stable anchors: the procedure's id is the fragment.
    page.goto(html.as_uri() + "#" + quote(DRIFT_ID, safe=""))
    assert page.evaluate("decodeURIComponent(location.hash.slice(1))") == DRIFT_ID
    assert page.locator(f"[id='{LABEL_ID}'] .fix .after").inner_text().startswith("+ On the Instances page, click **Create ECS")
    assert page.js_errors == []


def test_html_marks_a_missing_screenshot(report_dir: tuple[Path, VerifyReport]) -> None:
    out, report = report_dir
    (out / "screenshots/ecs-template-step2.png").unlink()
    html = write_reports(report, out)["html"].read_text(encoding="utf-8")
    assert "screenshot missing: <code>screenshots/ecs-template-step2.png</code>" in html
    assert "<script>window.pwned" not in html and "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html


# --- Markdown ------------------------------------------------------------------------------------


def _procedure_rows(markdown: str) -> list[str]:
    """The rows of the attention table (eight cells; the counts table has two)."""
    return [line for line in markdown.splitlines()
            if line.startswith("| ") and line.replace("\\|", "").count("|") == 9 and not line.startswith(("| Verdict", "| ---"))]


def test_markdown_lists_what_needs_attention_worst_first(report_dir: tuple[Path, VerifyReport]) -> None:
    out, report = report_dir
    text = write_reports(report, out)["markdown"].read_text(encoding="utf-8")
    assert text.startswith("## Documentation verification: 3 of 4 procedure(s) need attention")
    assert "| ⚠️ DRIFT | 1 |" in text and "| invalid documents | 1 |" in text
    rows = _procedure_rows(text)
    assert [r.split(" | ")[0] for r in rows] == ["| ❌ FAIL", "| ❌ FAIL", "| ⚠️ DRIFT", "| ⚠️ DRIFT", "| 💥 ERROR"]
    hostile = next(r for r in rows if "pwned" in r)
    assert "&lt;script&gt;" in hostile and "\\|" in hostile
    assert hostile.replace("\\|", "").count("|") == 9  # eight cells: the pipe in the text did not add one
    assert "left out" not in text


def test_markdown_is_capped_cleanly_and_says_what_was_left_out() -> None:
    report = build_report(extra_drift=400)
    full = render_markdown(report, limit=10_000_000)
    assert len(full) > 100_000 and "left out" not in full
    text = render_markdown(report, limit=20_000, full_report="/ci/out/report.html")
    assert len(text) <= 20_000
    last = text.rstrip().splitlines()[-1]
    kept = {row.split(" | ")[1] for row in _procedure_rows(text)}
    left = int(last.split()[0].lstrip("_"))
    assert left == 403 - len(kept) and left > 0  # 401 DRIFT + FAIL + ERROR need attention
    assert "the full report is /ci/out/report.html" in last
    assert all(line.count("|") >= 2 for line in text.splitlines() if line.startswith("|"))  # no row cut mid-way
    assert len(render_markdown(report)) <= 60_000


# --- review --------------------------------------------------------------------------------------


def test_review_over_http_last_judgement_wins_and_precision(report_dir: tuple[Path, VerifyReport]) -> None:
    out, report = report_dir
    rendered: list[int] = []

    def rerender() -> None:  # what the CLI does after each judgement: the reports show it at once
        write_reports(apply_reviews(report, out / "reviews.jsonl"), out)
        rendered.append(1)

    client = TestClient(review_app(out, on_review=rerender))
    page = client.get("/")
    assert page.status_code == 200 and page.text.count('data-decision="confirmed"') == 4
    assert "&lt;script&gt;window.pwned" in page.text
    assert client.get("/files/screenshots/ecs-create-step3.png").headers["content-type"] == "image/png"
    (out / "episodes/world").mkdir(parents=True)
    (out / "episodes/world/pool.db").write_bytes(b"account secrets")
    assert client.get("/files/episodes/world/pool.db").status_code == 404  # only report files are served
    assert client.get("/files/../../etc/passwd").status_code == 404
    assert client.get("/files/%2e%2e/report.html").status_code == 404
    forged = client.post("/api/reviews", content=json.dumps({"discrepancy_id": LABEL_ID, "decision": "confirmed"}),
                         headers={"content-type": "text/plain"})  # what another site's page could send unasked
    assert forged.status_code == 415 and not (out / "reviews.jsonl").exists()

    def post(discrepancy_id: str, decision: str, note: str = "") -> dict:
        response = client.post("/api/reviews", json={"discrepancy_id": discrepancy_id, "decision": decision,
                                                     "note": note, "reviewer": "ana"})
        assert response.status_code == 200, response.text
        return response.json()

    assert post(LABEL_ID, "confirmed")["precision"] == {"reviewed": 1, "confirmed": 1, "precision": 1.0, "reference": 0.91}
    assert post(FIELD_ID, "confirmed")["precision"]["confirmed"] == 2
    last = post(FIELD_ID, "rejected", note="the field is optional")
    assert last["review"]["procedure_id"] == DRIFT_ID and last["precision"] == {
        "reviewed": 2, "confirmed": 1, "precision": 0.5, "reference": 0.91}

    unknown = client.post("/api/reviews", json={"discrepancy_id": LABEL_ID.replace("3/", "8/"), "decision": "confirmed"})
    assert unknown.status_code == 404 and "did you mean" in unknown.json()["detail"]
    assert client.post("/api/reviews", json={"discrepancy_id": LABEL_ID, "decision": "maybe"}).status_code == 422

    listing = client.get("/api/discrepancies").json()
    states = {d["id"]: (d["review"] or {}).get("decision") for d in listing["discrepancies"]}
    assert states[LABEL_ID] == "confirmed" and states[FIELD_ID] == "rejected" and states[FEATURE_ID] is None
    lines = (out / "reviews.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[-1])["note"] == "the field is optional"

    assert len(rendered) == 3 and "Reviewed: 2, confirmed 1 (50%)." in (out / "summary.md").read_text(encoding="utf-8")
    assert '<span class="badge rejected">rejected</span>' in (out / "report.html").read_text(encoding="utf-8")

    reviewed = apply_reviews(report, out / "reviews.jsonl")
    by_id = {d.id: d.review for p in reviewed.procedures() for d in p.discrepancies}
    assert by_id[LABEL_ID] == "confirmed" and by_id[FIELD_ID] == "rejected" and by_id[FEATURE_ID] is None
    assert (reviewed.summary.reviewed, reviewed.summary.confirmed, reviewed.summary.precision_confirmed) == (2, 1, 0.5)
    assert report.summary.reviewed == 0  # the input report is left as it was


def test_record_review_offline_and_reviews_carry_over_to_the_next_report(report_dir: tuple[Path, VerifyReport]) -> None:
    out, _ = report_dir
    store = out / "reviews.jsonl"
    record_review(store, LABEL_ID, "confirmed", reviewer="bo")
    record_review(store, FEATURE_ID, "rejected", note="template feature is behind a flag",
                  procedure_id="ecs-instance-create#create-an-instance-from-a-template")  # as the CLI calls it
    with pytest.raises(KeyError, match="did you mean"):
        record_review(store, LABEL_ID + "x", "confirmed")
    # Tonight's report is built afresh; the stable ids carry last night's judgements over.
    tonight = apply_reviews(build_report(), ReviewStore(store))
    assert (tonight.summary.reviewed, tonight.summary.confirmed) == (2, 1)
    assert [d.review for d in tonight.procedures()[2].discrepancies] == ["rejected", None]
    # A torn last line (a crash mid-write) is ignored; a bad line in the middle is named.
    with store.open("a", encoding="utf-8") as fh:
        fh.write('{"discrepancy_id": "x", "decis')
    assert len(ReviewStore(store).all()) == 2
    good = store.read_text(encoding="utf-8").splitlines()[:2]
    store.write_text("\n".join([*good, '{"discrepancy_id": "x", "decision": "confirmed"}', "not json", good[0]]) + "\n",
                     encoding="utf-8")
    with pytest.raises(ValueError, match=r"reviews\.jsonl:4: not a review line"):
        ReviewStore(store).all()


@pytest.mark.browser
def test_review_page_buttons_store_judgements_over_real_http(report_dir: tuple[Path, VerifyReport], page) -> None:
    import uvicorn

    from stratus.server import free_port

    out, _ = report_dir
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(review_app(out), host="127.0.0.1", port=port, log_level="warning"))
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.locator("#reviewer").fill("cy")
        cards = page.locator("article.discrepancy-card")
        cards.nth(0).get_by_role("button", name="Confirm").click()
        page.wait_for_function("document.getElementById('reviewed-count').textContent === '1'")
        cards.nth(1).locator("input.note").fill("optional field")
        cards.nth(1).get_by_role("button", name="Reject").click()
        page.wait_for_function("document.getElementById('reviewed-count').textContent === '2'")
        assert page.locator("#precision-value").inner_text() == "50%"
        assert cards.nth(1).locator(".badge.state").inner_text() == "rejected"
        assert cards.nth(0).locator("img").evaluate("img => img.naturalWidth") == 320
        latest = ReviewStore(out / "reviews.jsonl").latest()
        assert latest[LABEL_ID].decision == "confirmed" and latest[LABEL_ID].reviewer == "cy"
        assert (latest[FIELD_ID].decision, latest[FIELD_ID].note) == ("rejected", "optional field")
        page.reload()  # the page is rendered from the store: the judgements are still there
        assert page.locator("#precision-value").inner_text() == "50%"
        page.locator("#only-open").check()
        assert page.locator("article.discrepancy-card:visible").count() == 2
        assert page.js_errors == []
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_run_with_no_procedure_still_renders_every_output(tmp_path: Path) -> None:
    """A folder of overview pages only: nothing verified, which every output must say rather than crash on."""
    report = build_report()
    report.documents = [d for d in report.documents if d.status != "verified"]
    report.documents[0].status = "verified"  # parsed, but with no procedure: shown as skipped
    report.summary = report.summary.model_copy(update={"procedures": 0, "verdicts": {}, "discrepancies": 0, "by_kind": {}})
    paths = write_reports(report, tmp_path)
    doc = etree.parse(str(paths["junit"]))
    assert _schema().validate(doc)
    assert (doc.getroot().get("tests"), doc.getroot().get("skipped"), doc.getroot().get("errors")) == ("2", "1", "1")
    assert "No procedure was verified." in paths["html"].read_text(encoding="utf-8")
    assert paths["markdown"].read_text(encoding="utf-8").rstrip().endswith("No procedure was verified.")
    assert TestClient(review_app_for(tmp_path, report)).get("/").text.count("This report has no discrepancy to review.") == 1


def review_app_for(out: Path, report: VerifyReport):
    (out / "report.json").write_text(report.model_dump_json(), encoding="utf-8")
    return review_app(out)


def test_a_fix_to_one_row_of_a_parameter_table_shows_that_row_only() -> None:
    """Steps carry their parameter tables; the reports show the changed row, not two copies of the table."""
    from consoleagent.verify.fixdiff import changed_text, line_diff

    table = "\n".join(f"| **Field {i}** | description {i} | example {i} |" for i in range(12))
    original = "On the **Create Instance** page, configure the parameters.\n" + table
    proposed = original.replace("| example 7 |", "| Enterprise SSD |") + "\n> Note: the default is **Enterprise SSD**."
    lines = line_diff(original, proposed)
    assert [(d.op, d.text) for d in lines if d.op in "-+"] == [
        ("-", "| **Field 7** | description 7 | example 7 |"), ("+", "| **Field 7** | description 7 | Enterprise SSD |"),
        ("+", "> Note: the default is **Enterprise SSD**.")]
    assert lines[0].op == "…" and lines[0].text == "7 unchanged line(s)"  # the heading and rows 0-5
    removed = next(d for d in lines if d.op == "-")
    assert ("-", "example 7") in removed.words and ("=", "| **Field 7** | description 7 |") in removed.words
    assert changed_text(original, proposed) == ("| **Field 7** | description 7 | Enterprise SSD | / "
                                                "> Note: the default is **Enterprise SSD**.")
    report = build_report()
    fix = report.documents[1].procedures[0].discrepancies[0].fix
    fix.original, fix.proposed = original, proposed
    failure = etree.fromstring(render_junit(report).encode()).find(".//failure").text
    assert "    … 7 unchanged line(s)\n      | **Field 6** |" in failure and failure.count("| **Field 0** |") == 0
    assert "Enterprise SSD \\| / &gt; Note" in render_markdown(report)  # one cell: its pipes escaped
