"""Trajectory files: the writer (durable line by line, screenshots beside the file), the reader
(what a crash leaves is accepted, other damage is named by file and line), and the HTML viewer
rendered and opened in real Chromium."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

from consoleagent.trajectory.reader import TrajectoryFormatError, read_trajectory
from consoleagent.trajectory.records import EpisodeFooter, EpisodeHeader, StepRecord
from consoleagent.trajectory.viewer import write_viewer
from consoleagent.trajectory.writer import TrajectoryWriter


def make_png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A valid PNG built by hand (signature, IHDR, IDAT, IEND), so writer tests need no browser."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def header(episode: str = "ep-1") -> EpisodeHeader:
    task = {"id": "vpc-create", "goal": "Create a VPC named <lab-vpc> & check it", "start_url": "/vpc",
            "document": ["Open the VPC console.", "Click **Create VPC**.", "Enter the name."]}
    return EpisodeHeader(episode_id=episode, task=task, policy="llm:gpt-test", seed=7, console="http://127.0.0.1:1",
                         release="2026.01", started_at="2026-01-05T08:00:00Z")


def step(n: int, action: str = "click(3)", result: str = "ok", **fields) -> StepRecord:
    return StepRecord(step=n, url=f"http://127.0.0.1:1/vpc?s={n}", title="VPC", observation=f"[3] button \"Create VPC\" #{n}",
                      action=action, thought=f"thought {n}: <b>not html</b>", raw=f"Thought: thought {n}\nAction: {action}",
                      parsed={"name": "click", "args": {"id": 3}}, result=result, document_step=n,
                      timings={"policy": 1.25, "action": 0.05, "settle": 0.2, "observe": 0.008},
                      usage={"prompt_tokens": 1000 + n, "completion_tokens": 20}, **fields)


def footer(steps: int) -> EpisodeFooter:
    return EpisodeFooter(status="success", steps=steps, duration_s=12.5, cause="goal reached", answer="created vpc-1",
                         discrepancies=[{"step": 2, "kind": "label_changed", "expected": "Create VPC", "observed": "New VPC"}],
                         finished_at="2026-01-05T08:00:12Z")


def test_writer_records_an_episode_and_the_reader_gets_it_back(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "deep" / "ep-1.jsonl"  # directories are created
    png = make_png()
    with TrajectoryWriter(path, header()) as writer:
        first = writer.step(step(1), screenshot=png)
        second = writer.step(step(2, 'type(5, "lab-vpc")', result="element 5 is disabled"))
        writer.finish(footer(2))
    assert first.screenshot == "ep-1_screens/step-0001.png" and second.screenshot is None
    assert (tmp_path / "runs" / "deep" / "ep-1_screens" / "step-0001.png").read_bytes() == png
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["header", "step", "step", "footer"]

    trajectory = read_trajectory(path)
    assert trajectory.header == header().to_dict()
    assert trajectory.steps == [first.to_dict(), second.to_dict()]
    assert trajectory.footer == footer(2).to_dict()
    assert not trajectory.interrupted and not trajectory.truncated_line
    assert trajectory.screenshot_path(trajectory.steps[0]).read_bytes() == png
    assert trajectory.screenshot_path(trajectory.steps[1]) is None


def test_every_line_is_on_disk_before_step_returns(tmp_path: Path) -> None:
    path = tmp_path / "ep.jsonl"
    writer = TrajectoryWriter(path, header())
    assert read_trajectory(path).steps == []
    writer.step(step(1))
    seen = read_trajectory(path)  # read through a separate handle while the writer is still open
    assert len(seen.steps) == 1 and seen.interrupted
    writer.close()


def test_a_killed_process_leaves_a_readable_interrupted_episode(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    script = textwrap.dedent(f"""
        import os, signal
        from consoleagent.trajectory.records import EpisodeHeader, StepRecord
        from consoleagent.trajectory.writer import TrajectoryWriter
        w = TrajectoryWriter({str(path)!r}, EpisodeHeader("ep-k", {{"goal": "g"}}, "p", None, "http://x"))
        w.step(StepRecord(1, "http://x", "t", "obs", "click(1)"), screenshot=b"\\x89PNG fake")
        w.step(StepRecord(2, "http://x", "t", "obs", "click(2)"))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == -9, done.stderr.decode()
    trajectory = read_trajectory(path)
    assert trajectory.interrupted and trajectory.footer is None
    assert [s["action"] for s in trajectory.steps] == ["click(1)", "click(2)"]
    assert not list((tmp_path / "killed_screens").glob("*.partial"))


def test_an_exception_inside_the_context_leaves_no_footer(tmp_path: Path) -> None:
    path = tmp_path / "ep.jsonl"
    with pytest.raises(RuntimeError):
        with TrajectoryWriter(path, header()) as writer:
            writer.step(step(1))
            raise RuntimeError("browser crashed")
    trajectory = read_trajectory(path)
    assert trajectory.interrupted and len(trajectory.steps) == 1


def test_writer_refuses_to_overwrite_or_write_after_finish(tmp_path: Path) -> None:
    path = tmp_path / "ep.jsonl"
    writer = TrajectoryWriter(path, header())
    writer.finish(footer(0))
    with pytest.raises(ValueError, match="closed"):
        writer.step(step(1))
    with pytest.raises(FileExistsError):
        TrajectoryWriter(path, header())


def _write_lines(path: Path, *lines: str | dict, end: str = "\n") -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + end, encoding="utf-8")
    return path


def test_a_torn_last_line_is_ignored_and_flagged(tmp_path: Path) -> None:
    whole = json.dumps(step(2).to_dict())
    path = _write_lines(tmp_path / "t.jsonl", header().to_dict(), step(1).to_dict(), whole[: len(whole) // 2], end="")
    trajectory = read_trajectory(path)
    assert trajectory.truncated_line and trajectory.interrupted
    assert [s["step"] for s in trajectory.steps] == [1]


def test_trailing_zero_bytes_from_a_crash_are_ignored(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "z.jsonl", header().to_dict(), step(1).to_dict())
    with path.open("ab") as f:
        f.write(b"\x00" * 64)
    trajectory = read_trajectory(path)
    assert len(trajectory.steps) == 1 and trajectory.interrupted


@pytest.mark.parametrize("lines, message", [
    ([], "empty file; a trajectory starts with its header line"),
    (["step"], ':1: the first record must be the episode header (type "header"), got type \'step\''),
    (["header", "{broken", "step"], ":2: not a JSON record"),
    (["header", "[1, 2]", "step"], ":2: a record must be a JSON object, got list"),
    (["header", "footer", "step"], ":3: a 'step' record after the footer"),
    (["header", {"type": "comment"}], ":2: unknown record type 'comment'"),
    ([{**header().to_dict(), "format_version": 99}], ":1: format_version 99 is newer than this reader"),
])
def test_damage_is_named_by_file_and_line(tmp_path: Path, lines: list, message: str) -> None:
    records = {"header": header().to_dict(), "step": step(1).to_dict(), "footer": footer(1).to_dict()}
    path = _write_lines(tmp_path / "bad.jsonl", *[records.get(x, x) if isinstance(x, str) else x for x in lines],
                        end="\n" if lines else "")
    with pytest.raises(TrajectoryFormatError) as info:
        read_trajectory(path)
    assert str(info.value).startswith(str(path)) and message in str(info.value)


# --- the viewer -----------------------------------------------------------------------------------


def _record_with_real_screenshots(page, directory: Path, episode: str, *, interrupted: bool = False) -> Path:
    """An episode whose screenshots are real Chromium screenshots of a tiny page."""
    path = directory / f"{episode}.jsonl"
    with TrajectoryWriter(path, header(episode)) as writer:
        for n, (action, result) in enumerate([("click(3)", "ok"), ('type(5, "lab-vpc")', "element 5 is covered by a dialog"),
                                              ('report_discrepancy(2, "label_changed", "Create VPC", "New VPC")', "ok")], 1):
            page.set_content(f"<h1 style='margin:0'>Step {n}</h1><button>Create VPC</button>")
            discrepancy = {"step": 2, "kind": "label_changed", "expected": "Create VPC", "observed": "New VPC"} if n == 3 else None
            writer.step(step(n, action, result, discrepancy=discrepancy), screenshot=page.screenshot(clip={
                "x": 0, "y": 0, "width": 320, "height": 120}))
        if not interrupted:
            writer.finish(footer(3))
    return path


@pytest.mark.browser
def test_viewer_renders_each_step_with_its_screenshot_in_chromium(page, tmp_path: Path) -> None:
    first = _record_with_real_screenshots(page, tmp_path / "runs", "ep-1")
    second = _record_with_real_screenshots(page, tmp_path / "runs", "ep-2", interrupted=True)
    out = write_viewer([first, second], tmp_path / "report" / "view.html")

    html = out.read_text(encoding="utf-8")
    for text in ["click(3)", "type(5, &#34;lab-vpc&#34;)", "Create a VPC named &lt;lab-vpc&gt; &amp; check it", "llm:gpt-test",
                 "goal reached", "12.5 s", "document step 2", "element 5 is covered by a dialog", "interrupted",
                 "prompt_tokens 1001", "policy 1.250 s"]:
        assert text in html, text
    assert "<b>not html</b>" not in html  # the model's text is escaped
    assert html.count('src="../runs/ep-1_screens/step-000') == 3

    page.goto(out.as_uri())
    images = page.locator("article.step img")
    assert images.count() == 6
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        images.nth(i).evaluate("img => img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })")
        assert images.nth(i).evaluate("img => img.naturalWidth") > 0
    errors = page.locator(".result.error")
    assert errors.count() == 2 and errors.first.inner_text() == "element 5 is covered by a dialog"
    assert page.locator(".discrepancy").count() == 1 + 2  # one in the footer, one per report_discrepancy step

    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.id") == "ep0-step2"
    page.keyboard.press("n")
    assert page.evaluate("document.activeElement.id") == "ep1-step1"
    assert page.js_errors == []


@pytest.mark.browser
def test_embedded_viewer_is_one_self_contained_file(page, tmp_path: Path) -> None:
    path = _record_with_real_screenshots(page, tmp_path / "runs", "ep-1")
    out = write_viewer([path], tmp_path / "view.html", embed_images=True)
    moved = tmp_path / "elsewhere" / "copy.html"
    moved.parent.mkdir()
    moved.write_bytes(out.read_bytes())  # the screenshots' folder is not beside it any more
    assert out.read_text(encoding="utf-8").count('src="data:image/png;base64,') == 3

    page.goto(moved.as_uri())
    img = page.locator("article.step img").first
    img.evaluate("img => img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })")
    assert img.evaluate("img => img.naturalWidth") == 320
    assert page.js_errors == []


def test_viewer_without_screenshots_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ep.jsonl"
    with TrajectoryWriter(path, header()) as writer:
        writer.step(step(1))
        writer.step(step(2), screenshot=make_png())
    (tmp_path / "ep_screens" / "step-0002.png").unlink()  # a screenshot lost after the fact
    html = write_viewer([path], tmp_path / "v.html").read_text(encoding="utf-8")
    assert html.count("no screenshot") == 2 and "interrupted" in html
