"""The ``--console`` option the commands share: which console backend a command runs on.

``--console`` is a backend's name (``stratus``, the default, or ``pgadmin``: any package under
``consoleagent.consoles``) or a console YAML file (``consoleagent.consoles.configured``). stratus's
connection options stay the commands' ``--url``/``--admin-token`` (a running stratus instead of one
started in this process); another backend attaches to what ``consoleagent console up NAME`` left
running when its state file exists, and otherwise starts its console itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from consoleagent.consoles import DEFAULT_CONSOLE, is_console_file, state_file
from consoleagent.terminal import error

CONSOLE_HELP = ("The console: stratus (default), pgadmin, any console backend (consoleagent console list), "
                "or a console YAML file (docs/formats.md, \"Console file\").")


class ConsoleChoiceError(ValueError):
    """The ``--console`` choice and the other options do not fit together."""


def console_options(console: str, *, url: str | None = None, admin_token: str | None = None,
                    time_scale: float | None = None) -> dict[str, Any]:
    """The options to build ``console``'s backend with, from the command's flags."""
    if console == DEFAULT_CONSOLE:
        options: dict[str, Any] = {"url": url, "admin_token": admin_token}
        if time_scale is not None:
            options["time_scale"] = time_scale
        if url and not admin_token:
            raise ConsoleChoiceError("--url needs --admin-token (the account pool creates its accounts through "
                                     "stratus's admin API)")
        return options
    if url or admin_token:
        raise ConsoleChoiceError(f"--url and --admin-token reach a running stratus; --console {console} "
                                 + ("is described by its file" if is_console_file(console)
                                    else "is reached through its backend (consoleagent console up " + console + ")"))
    if is_console_file(console):
        if not Path(console).is_file():
            raise ConsoleChoiceError(f"--console {console}: no such console file")
        return {}
    state = state_file(console)
    return {"state": state} if state.exists() else {}


def backend_for(console: str, **flags: Any) -> Any:
    """A (not yet started) backend for ``--console`` and the command's flags."""
    from consoleagent.consoles import UnknownConsole, resolve_backend

    try:
        return resolve_backend(console, **console_options(console, **flags))
    except UnknownConsole as exc:
        raise ConsoleChoiceError(str(exc)) from exc


def tasks_root(console: str, given: Path | None) -> Path:
    """The task folder a command reads: the one given, else the console's own."""
    if given is not None:
        return given
    from consoleagent.consoles import UnknownConsole, tasks_root_of

    try:
        root = tasks_root_of(console)
    except UnknownConsole as exc:
        raise ConsoleChoiceError(str(exc)) from exc
    if root is None:
        raise ConsoleChoiceError(f"--console {console} ships no task files: pass --root (a folder of task files)")
    return root


def check_release(release: str | None, *, stratus: bool) -> None:
    """``--release``: only for stratus (exit 2 otherwise), and one of its releases (exit 2 naming them)."""
    if release is None:
        return
    if not stratus:
        error("--release picks a stratus console release; another console (--url without --admin-token) has its own")
        raise typer.Exit(2)
    from consoleagent.consoles import backend_class

    RELEASES = backend_class("stratus").releases()  # noqa: N806
    if release not in RELEASES:
        error(f"unknown release {release!r}; stratus has {', '.join(RELEASES)}")
        raise typer.Exit(2)
