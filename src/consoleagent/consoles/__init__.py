"""Console backends by name: ``get_backend("pgadmin")``, or ``resolve_backend`` for a name or a console file.

Each console is one package ``consoleagent.consoles.<name>`` whose ``__init__`` exposes
``BACKEND``, the backend class (see :mod:`consoleagent.consoles.base` for what it must offer).
Adding a console is adding such a package; nothing here lists them by hand, so the registry finds
every package that has a ``BACKEND``.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path
from typing import Any

from consoleagent.consoles.base import ConsoleBackend, EpisodeHandle, EpisodePool, EpisodePreparer, GroundTruth, utc_now

__all__ = ["DEFAULT_CONSOLE", "ConsoleBackend", "EpisodeHandle", "EpisodePool", "EpisodePreparer", "GroundTruth",
           "UnknownConsole", "backend_class", "backend_names", "get_backend", "resolve_backend", "state_file",
           "tasks_root_of", "utc_now"]

DEFAULT_CONSOLE = "stratus"


class UnknownConsole(ValueError):
    """No backend package of that name."""


def backend_names() -> list[str]:
    """Every console package that defines a backend, sorted."""
    names = []
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            names.append(module.name)
    return sorted(names)


def backend_class(name: str) -> type:
    """The backend class of console ``name`` (imports its package only)."""
    if name not in backend_names():
        raise UnknownConsole(f"unknown console {name!r}; known: {', '.join(backend_names()) or 'none'}")
    package = importlib.import_module(f"{__name__}.{name}")
    cls = getattr(package, "BACKEND", None)
    if cls is None:
        raise UnknownConsole(f"consoleagent.consoles.{name} defines no BACKEND class")
    return cls


def get_backend(name: str, **options: Any) -> ConsoleBackend:
    """A new (not yet started) backend of console ``name``, built with ``options``."""
    return backend_class(name)(**options)


def is_console_file(console: str | Any) -> bool:
    """``--console`` names a console file (YAML) rather than a backend package."""
    return str(console).endswith((".yaml", ".yml"))


def resolve_backend(console: str | Any, **options: Any) -> ConsoleBackend:
    """A backend for ``--console``: a package name (built with ``options``) or a console YAML file."""
    if is_console_file(console):
        from consoleagent.consoles.configured import ConfiguredBackend

        if options:
            raise UnknownConsole(f"{console}: a console file takes no options ({', '.join(sorted(options))}); "
                                 "put them in the file")
        return ConfiguredBackend.from_file(console)
    return get_backend(str(console), **options)


def state_file(name: str) -> Path:
    """Where ``consoleagent console up NAME`` records what it started (PIDs, ports, scratch folder), so that
    other commands attach to it and ``console down`` stops exactly that."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "consoleagent" / f"console-{name}.json"


def tasks_root_of(console: str | Any) -> Path | None:
    """The folder of the console's own task files (None when it ships none)."""
    backend = resolve_class(console)
    return (backend() if isinstance(backend, type) else backend).tasks_root


def resolve_class(console: str | Any) -> Any:
    """The backend class of a name, or a console file's backend (not started): what task checks read."""
    if is_console_file(console):
        return resolve_backend(console)
    return backend_class(str(console))
