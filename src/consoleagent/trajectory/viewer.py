"""Render trajectory files as one self-contained HTML page for a person to audit.

Per episode: the task, the policy and the outcome; per step: the marked screenshot beside what the
agent thought, did and was told, with timings and tokens. The page needs no server and no network:
CSS and the keyboard navigation are inline, and screenshots are linked relative to the page (or
embedded, so a single file can be attached to an issue).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape

from consoleagent.trajectory.reader import Trajectory, read_trajectory

_ENV = Environment(loader=PackageLoader("consoleagent.trajectory", "templates"), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)


def write_viewer(trajectory_paths: list[Path], out: Path, embed_images: bool = False) -> Path:
    """Write the viewer for ``trajectory_paths`` to ``out`` (an .html file) and return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    episodes = [_episode(read_trajectory(p), out.parent, embed_images) for p in trajectory_paths]
    html = _ENV.get_template("viewer.html").render(episodes=episodes, title=_title(episodes))
    out.write_text(html, encoding="utf-8")
    return out


def _title(episodes: list[dict[str, Any]]) -> str:
    if len(episodes) == 1:
        return f"Trajectory {episodes[0]['id']}"
    return f"{len(episodes)} trajectories"


def _episode(trajectory: Trajectory, page_dir: Path, embed: bool) -> dict[str, Any]:
    header, footer = trajectory.header, trajectory.footer or {}
    task = header.get("task") or {}
    status = footer.get("status") or ("interrupted" if trajectory.interrupted else "unknown")
    return {
        "id": header.get("episode_id") or trajectory.path.stem,
        "file": str(trajectory.path),
        "goal": task.get("goal", ""),
        "task_id": task.get("id", ""),
        "document": task.get("document") or [],
        "policy": header.get("policy", ""),
        "console": header.get("console", ""),
        "release": header.get("release"),
        "seed": header.get("seed"),
        "started_at": header.get("started_at", ""),
        "status": status,
        "cause": footer.get("cause"),
        "answer": footer.get("answer"),
        "duration_s": footer.get("duration_s"),
        "step_count": footer.get("steps", len(trajectory.steps)),
        "discrepancies": footer.get("discrepancies") or [],
        "interrupted": trajectory.interrupted,
        "truncated_line": trajectory.truncated_line,
        "tokens": _sum_usage(trajectory.steps),
        "steps": [_step(trajectory, s, page_dir, embed) for s in trajectory.steps],
    }


def _step(trajectory: Trajectory, step: dict[str, Any], page_dir: Path, embed: bool) -> dict[str, Any]:
    result = str(step.get("result", "ok"))
    return {**step, "result": result, "is_error": result != "ok", "image": _image_src(trajectory, step, page_dir, embed),
            "timings": {k: v for k, v in (step.get("timings") or {}).items() if isinstance(v, (int, float))},
            "usage": step.get("usage") or {}}


def screenshot_inside_run(trajectory: Trajectory, step: dict[str, Any]) -> Path | None:
    """The step's screenshot if it lies inside the trajectory's own directory, else None.

    A trajectory file is untrusted input (it may come from another machine or a bug report): a
    ``screenshot`` of ``../../home/me/.ssh/id_rsa``, an absolute path, or a symlink that leads out
    would otherwise be embedded into a page meant to be shared. Only a relative path without ``..``
    whose fully resolved target stays under the run directory is followed.
    """
    relative = step.get("screenshot")
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        return None
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or PureWindowsPath(relative).drive or ".." in pure.parts:
        return None
    run_dir = trajectory.path.parent.resolve()
    try:
        resolved = (run_dir / pure).resolve(strict=True)  # follows every symlink on the way
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return None
    if not resolved.is_relative_to(run_dir) or not resolved.is_file():
        return None
    return resolved


def _image_src(trajectory: Trajectory, step: dict[str, Any], page_dir: Path, embed: bool) -> str | None:
    path = screenshot_inside_run(trajectory, step)
    if path is None:
        return None
    if embed:
        data = path.read_bytes()
        mime = "image/jpeg" if data[:2] == b"\xff\xd8" else "image/png"
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    try:
        relative = Path(os.path.relpath(path.resolve(), page_dir.resolve())).as_posix()
    except ValueError:  # another drive (Windows): fall back to an absolute URL
        return path.resolve().as_uri()
    return quote(relative)


def _sum_usage(steps: list[dict[str, Any]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for step in steps:
        for key, value in (step.get("usage") or {}).items():
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value
    return total
