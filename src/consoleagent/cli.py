"""``consoleagent``: the agent's command line. Later issues add run, verify, bench, train."""

from __future__ import annotations

import typer

app = typer.Typer(help="consoleagent: verify documented console procedures with a web agent, and train it.",
                  no_args_is_help=True, add_completion=False)


@app.command()
def demo(
    host: str = typer.Option("127.0.0.1", help="Interface for the embedded stratus console."),
    port: int = typer.Option(8000, help="TCP port."),
    database: str = typer.Option("sqlite:///stratus-demo.db", help="Where the demo cloud keeps its state."),
    time_scale: float = typer.Option(5.0, help="Virtual seconds per real second (faster resource state changes)."),
    keep: bool = typer.Option(False, help="Reuse the demo database of an earlier run instead of starting fresh."),
) -> None:
    """Start the embedded stratus cloud with a seeded demo account and print the console URL and login."""
    from pathlib import Path

    from stratus.cli import serve

    if not keep and database.startswith("sqlite:///"):
        # A fresh demo each time: an old file may hold a schema from an earlier version.
        for suffix in ("", "-wal", "-shm"):
            Path(database.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)

    serve(host=host, port=port, database=database, seed=None, clock=None, time_scale=time_scale, release=None,
          popup_rate=None, audit_delay=None, admin_token=None, demo=True)


@app.command()
def version() -> None:
    """Print the version."""
    from consoleagent import __version__

    typer.echo(__version__)
