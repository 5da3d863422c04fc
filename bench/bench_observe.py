"""Observation speed and coverage on real stratus console pages: our Set-of-Mark marking against
Playwright's aria_snapshot and BrowserGym's observation extraction, in one run; then our marking
alone on the widget fixture pages of the tests (React-library patterns: trees, grids, portaled
dialogs, searchable selects, dock tabs).

    python bench/bench_observe.py [--runs 20] [--browsergym-python /tmp/bench-venv/bin/python]

BrowserGym pins an older Playwright than this project, so it runs in its own virtual environment
(`python -m venv /tmp/bench-venv && /tmp/bench-venv/bin/pip install browsergym-core==0.14.3`) as a
worker process of this script; it drives the same Debian Chromium against the same server.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
PAGES = ["/ecs/instances", "/ecs/instances/create", "/vpc/vswitches", "/ecs/security-groups"]
LOGIN, PASSWORD = "root@demo", "Demo-Passw0rd"
VIEWPORT = {"width": 1440, "height": 900}
FIXTURES = ROOT / "tests" / "fixtures" / "observation"
FIXTURE_PAGES = ["controls.html", "big.html", "tree.html", "form.html", "grid.html", "dock.html", "portal_dialog.html"]
AI_INTERACTIVE = ("button", "link", "textbox", "combobox", "checkbox", "radio", "switch", "tab", "menuitem", "option",
                  "searchbox", "spinbutton", "slider", "listbox", "treeitem")


def login(page: Any, base: str) -> None:
    page.goto(f"{base}/login")
    page.get_by_label("Login name").fill(LOGIN)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)


def timed(fn: Any, runs: int) -> tuple[list[float], Any]:
    fn()  # warm-up: first call compiles scripts and may lay out the page
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times, out


def ai_interactive_count(text: str) -> int:
    """Lines of aria_snapshot(mode="ai") that a model could act on: interactive roles, or cursor=pointer."""
    count = 0
    for line in text.splitlines():
        item = line.strip().removeprefix("- ")
        role = item.split(" ", 1)[0].rstrip(":")
        if "[ref=" in item and (role in AI_INTERACTIVE or "[cursor=pointer]" in item):
            count += 1
    return count


# --- BrowserGym worker (runs in the BrowserGym virtual environment) ---------------------------------------


def browsergym_worker(base: str, runs: int) -> None:
    import playwright.sync_api
    from browsergym.core.observation import (
        _post_extract, _pre_extract, extract_dom_extra_properties, extract_dom_snapshot, extract_focused_element_bid,
        extract_merged_axtree)
    from browsergym.utils.obs import flatten_axtree_to_str

    results: dict[str, Any] = {"versions": {"playwright": playwright.__version__ if hasattr(playwright, "__version__") else ""}}
    try:
        from importlib.metadata import version
        results["versions"] = {"playwright": version("playwright"), "browsergym-core": version("browsergym-core")}
    except Exception:
        pass
    with playwright.sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        login(page, base)
        for path in PAGES:
            page.goto(base + path)
            page.wait_for_load_state("networkidle")

            def observe() -> tuple[dict[str, Any], str]:
                # What BrowserEnv._get_obs does, minus the screenshot; plus the text form agents read.
                _pre_extract(page, tags_to_mark="standard_html")
                dom = extract_dom_snapshot(page)
                axtree = extract_merged_axtree(page)
                extract_focused_element_bid(page)
                props = extract_dom_extra_properties(dom, scale_factor=1.0)
                _post_extract(page)
                text = flatten_axtree_to_str(axtree, extra_properties=props, filter_visible_only=True)
                return props, text

            times, (props, text) = timed(observe, runs)
            som = sum(1 for p in props.values() if p.get("set_of_marks"))
            clickable = sum(1 for p in props.values() if p.get("clickable") and (p.get("visibility") or 0) > 0.5)
            results[path] = {"times": times, "som": som, "clickable": clickable, "chars": len(text)}
        browser.close()
    print(json.dumps(results))


# --- main ----------------------------------------------------------------------------------------------------


def start_stratus() -> tuple[str, Any]:
    sys.path.insert(0, str(ROOT / "src"))
    from stratus.config import Settings
    from stratus.seed import seed_demo
    from stratus.server import start_in_thread

    db = Path(tempfile.mkdtemp(prefix="stratus-observe-")) / "bench.db"
    handle = start_in_thread(Settings(database_url=f"sqlite:///{db}", admin_token="bench-admin-token", time_scale=20.0))
    seed_demo(handle.runtime)
    return handle.url, handle


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def bench_fixtures(browser: Any, runs: int) -> dict[str, dict[str, Any]]:
    """snapshot() on the test fixture pages, served over HTTP (the dialog page with its dialog open)."""
    from consoleagent.observation.marking import install, snapshot

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(FIXTURES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    install(context)
    page = context.new_page()
    rows: dict[str, dict[str, Any]] = {}
    for name in FIXTURE_PAGES:
        page.goto(f"{base}/{name}")
        if name == "portal_dialog.html":
            page.locator("#drop").click()
        page.wait_for_timeout(200)
        times, snap = timed(lambda: snapshot(page), runs)
        rows[name] = {"times": times, "count": len(snap.marks), "script_ms": statistics.median(
            [snapshot(page).script_ms for _ in range(5)])}
    context.close()
    server.shutdown()
    return rows


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--browsergym-python", default="/tmp/bench-venv/bin/python")
    parser.add_argument("--worker-browsergym", metavar="BASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker_browsergym:
        browsergym_worker(args.worker_browsergym, args.runs)
        return

    from playwright.sync_api import sync_playwright

    from consoleagent.observation.marking import install, snapshot

    base, handle = start_stratus()
    rows: dict[str, dict[str, Any]] = {"som": {}, "som_snapshot": {}, "aria_ai": {}, "aria_default": {}, "browsergym": {}}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=VIEWPORT)
        install(context)
        page = context.new_page()
        login(page, base)
        for path in PAGES:
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            times, snap = timed(lambda: snapshot(page), args.runs)
            rows["som_snapshot"][path] = {"times": times, "count": len(snap.marks)}
            times, (snap, text) = timed(lambda: (lambda s: (s, s.text(2000)))(snapshot(page)), args.runs)
            rows["som"][path] = {"times": times, "count": len(snap.marks), "in_view": sum(m.in_viewport for m in snap.marks),
                                 "chars": len(text), "script_ms": snap.script_ms}
            times, text = timed(lambda: page.aria_snapshot(mode="ai"), args.runs)
            rows["aria_ai"][path] = {"times": times, "count": ai_interactive_count(text), "chars": len(text)}
            times, text = timed(lambda: page.aria_snapshot(), args.runs)
            rows["aria_default"][path] = {"times": times, "count": None, "chars": len(text)}
        fixtures = bench_fixtures(browser, args.runs)
        browser.close()

    bg_note = ""
    if Path(args.browsergym_python).exists():
        proc = subprocess.run([args.browsergym_python, __file__, "--worker-browsergym", base, "--runs", str(args.runs)],
                              capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONPATH": ""})
        if proc.returncode == 0:
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            bg_note = f"browsergym-core {data['versions'].get('browsergym-core')} on playwright {data['versions'].get('playwright')}"
            for path in PAGES:
                d = data[path]
                rows["browsergym"][path] = {"times": d["times"], "count": d["som"], "clickable": d["clickable"], "chars": d["chars"]}
        else:
            bg_note = "BrowserGym worker failed: " + proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "no output"
    else:
        bg_note = f"no BrowserGym environment at {args.browsergym_python}"
    handle.stop()

    labels = {
        "som": "consoleagent snapshot() + text(2000)",
        "som_snapshot": "consoleagent snapshot() alone",
        "aria_ai": 'Playwright aria_snapshot(mode="ai")',
        "aria_default": "Playwright aria_snapshot()",
        "browsergym": "BrowserGym obs extraction (pre_extract, DOM snapshot, AXTree, props, post_extract, flatten)",
    }
    print(f"pages: {', '.join(PAGES)}; {args.runs} runs each after one warm-up; viewport 1440x900")
    print(f"chromium: {CHROMIUM}; {bg_note}")
    print()
    print("| method | median ms | p95 ms | per page median ms | elements found per page |")
    print("|---|---:|---:|---|---|")
    for key, label in labels.items():
        per = rows[key]
        if not per:
            print(f"| {label} | – | – | not measured | – |")
            continue
        all_times = [t for d in per.values() for t in d["times"]]
        medians = " / ".join(f"{statistics.median(d['times']):.1f}" for d in per.values())
        counts = " / ".join("–" if d["count"] is None else str(d["count"]) for d in per.values())
        print(f"| {label} | {statistics.median(all_times):.1f} | {pct(all_times, 0.95):.1f} | {medians} | {counts} |")
    print()
    print("time inside the page for our script (median per page, ms): " +
          " / ".join(f"{d['script_ms']:.1f}" for d in rows["som"].values()))
    print("our marks in the viewport per page: " + " / ".join(str(d["in_view"]) for d in rows["som"].values()))
    if rows["browsergym"]:
        print("BrowserGym clickable & visible elements per page: " +
              " / ".join(str(d["clickable"]) for d in rows["browsergym"].values()))
    print("text size (chars) per page: " + "; ".join(
        f"{k}: " + " / ".join(str(d["chars"]) for d in rows[k].values()) for k in ("som", "aria_ai", "browsergym") if rows[k]))
    print()
    print("| fixture page (tests/fixtures/observation) | snapshot() median ms | p95 ms | in-page ms | marks |")
    print("|---|---:|---:|---:|---:|")
    for name, d in fixtures.items():
        print(f"| {name} | {statistics.median(d['times']):.1f} | {pct(d['times'], 0.95):.1f} | {d['script_ms']:.1f} | {d['count']} |")


if __name__ == "__main__":
    main()
