"""Issue 13, item 10: model output and trajectory files are untrusted input to the agent's tools.

Each test replays one attack: a screenshot path that leaves the run directory (``../``, absolute,
a symlink out), an element id of 1e308, and tool-call arguments nested deeper than Python's stack.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from consoleagent.actions.parser import MAX_ELEMENT_ID, ActionParseError, parse_action
from consoleagent.actions.schema import action_from_tool_call, tool_schemas
from consoleagent.trajectory.viewer import write_viewer
from tests.consoleagent.trajectory.test_trajectory import header, make_png, step

SECRET = b"\x89PNG\r\n\x1a\nTOP-SECRET-OUTSIDE-THE-RUN"


def _trajectory_with_screenshot(run_dir: Path, screenshot: str) -> Path:
    """A trajectory whose only step points its screenshot at ``screenshot`` (as a hostile file would)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    record = {**step(1).to_dict(), "screenshot": screenshot}
    lines = [json.dumps(header().to_dict()), json.dumps(record)]
    path = run_dir / "ep.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "private" / "secret.png"
    secret.parent.mkdir()
    secret.write_bytes(SECRET)
    return secret


@pytest.mark.parametrize("embed", [True, False])
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlinked-file", "symlinked-dir"])
def test_viewer_never_follows_a_screenshot_out_of_the_run_directory(tmp_path: Path, outside: Path, kind: str,
                                                                    embed: bool) -> None:
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    if kind == "dotdot":
        shot = "../../private/secret.png"
    elif kind == "absolute":
        shot = str(outside)
    elif kind == "symlinked-file":
        os.symlink(outside, run / "shot.png")
        shot = "shot.png"
    else:
        os.symlink(outside.parent, run / "ep_screens")
        shot = "ep_screens/secret.png"
    html = write_viewer([_trajectory_with_screenshot(run, shot)], tmp_path / "view.html", embed_images=embed)
    text = html.read_text(encoding="utf-8")
    assert "no screenshot" in text and "<img" not in text
    assert base64.b64encode(SECRET).decode()[:20] not in text


def test_viewer_still_shows_a_screenshot_inside_the_run_directory(tmp_path: Path) -> None:
    run = tmp_path / "r"
    path = _trajectory_with_screenshot(run, "ep_screens/step-0001.png")
    (run / "ep_screens").mkdir()
    (run / "ep_screens" / "step-0001.png").write_bytes(make_png())
    text = write_viewer([path], tmp_path / "v.html", embed_images=True).read_text(encoding="utf-8")
    assert text.count('src="data:image/png;base64,') == 1 and "no screenshot" not in text


@pytest.mark.parametrize("text", ["click(1e308)", "click(1e6)", f"click({10 ** 400})", "click(-1)",
                                  'report_discrepancy(1e300, "label_changed", "a", "b")'])
def test_unbounded_ids_are_rejected(text: str) -> None:
    with pytest.raises(ActionParseError, match=r"\((0|1) or more\)|\(9+ or less\)"):
        parse_action(text)


def test_the_largest_id_is_still_accepted() -> None:
    assert parse_action(f"click({MAX_ELEMENT_ID})").args == (MAX_ELEMENT_ID,)


@pytest.mark.parametrize("arguments", [json.dumps({"id": 1e308}), '{"id": 1e999}', '{"id": ' + "9" * 400 + "}"])
def test_tool_call_ids_are_bounded_like_the_dsl(arguments: str) -> None:
    with pytest.raises(ActionParseError):
        action_from_tool_call("click", arguments)


def test_tool_schema_states_the_id_bound() -> None:
    click = next(t for t in tool_schemas() if t["function"]["name"] == "click")
    assert click["function"]["parameters"]["properties"]["id"]["maximum"] == MAX_ELEMENT_ID


@pytest.mark.parametrize("arguments", ["[" * 100000, "[" * 5000, '{"id": ' + "[" * 5000 + "]" * 5000 + "}",
                                       '{"id": ' + "[" * 900 + "1" + "]" * 900 + "}"])
def test_deeply_nested_tool_arguments_are_a_parse_error_not_a_crash(arguments: str) -> None:
    with pytest.raises(ActionParseError) as exc:
        action_from_tool_call("click", arguments)
    assert len(str(exc.value)) < 400  # the message is shown to the model: short, no echo of the input
