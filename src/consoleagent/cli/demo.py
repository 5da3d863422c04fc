"""``consoleagent demo``: the embedded stratus with a seeded demo account, for a first look."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from consoleagent.cli.console_choice import check_release
from consoleagent.terminal import error, out

DEMO_PORT = 8000


def demo(
    host: str = typer.Option("127.0.0.1", help="Interface for the embedded stratus console."),
    port: Optional[int] = typer.Option(None, help=f"TCP port (default: {DEMO_PORT}, or a free one if it is taken)."),
    database: str = typer.Option("sqlite:///stratus-demo.db", help="Where the demo cloud keeps its state."),
    time_scale: float = typer.Option(5.0, help="Virtual seconds per real second (faster resource state changes)."),
    keep: bool = typer.Option(False, help="Reuse the demo database of an earlier run instead of starting fresh."),
    release: Optional[str] = typer.Option(None, help="Console release (default: the latest, the one `make verify` checks)."),
) -> None:
    """Start the embedded stratus cloud with a seeded demo account and print the console URL and login."""
    from consoleagent.consoles import DEFAULT_CONSOLE, backend_class

    check_release(release, stratus=True)
    port = _demo_port(host, port)
    if not keep and database.startswith("sqlite:///"):
        # A fresh demo each time: an old file may hold a schema from an earlier version.
        for suffix in ("", "-wal", "-shm"):
            Path(database.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
    # The stratus backend serves it (the latest release unless one is given: the one `make verify` checks).
    backend_class(DEFAULT_CONSOLE).serve_demo(host=host, port=port, database=database, time_scale=time_scale,
                                              release=release)


def _demo_port(host: str, port: int | None) -> int:
    """The asked port if it is free (exit 2 naming it otherwise); without one, 8000 or any free port.
    Checked before anything is printed, so the URL shown is one that will answer."""
    import socket

    def free(candidate: int) -> bool:
        with socket.socket() as probe:
            try:
                probe.bind((host, candidate))
            except OSError:
                return False
            return True

    if port is not None:
        if not free(port):
            error(f"port {port} on {host} is taken (another server?); pick another with --port, or leave it out")
            raise typer.Exit(2)
        return port
    if free(DEMO_PORT):
        return DEMO_PORT
    with socket.socket() as probe:
        probe.bind((host, 0))
        chosen = probe.getsockname()[1]
    out.print(f"port {DEMO_PORT} is taken; using {chosen}")
    return chosen


