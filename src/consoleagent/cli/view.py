"""``consoleagent view``: a trajectory as an HTML page with its marked screenshots."""

from __future__ import annotations

from pathlib import Path

import typer

from consoleagent.terminal import out

def view(
    trajectories: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="Trajectory JSONL files."),
    output: Path = typer.Option(None, "--output", "-o", help="The HTML file (default: next to the first trajectory)."),
) -> None:
    """Write an HTML viewer: each step's marked screenshot beside the thought, action and result."""
    from consoleagent.trajectory.viewer import write_viewer

    target = output or trajectories[0].with_suffix(".html")
    path = write_viewer(list(trajectories), target)
    out.print(f"Viewer: {path}")


