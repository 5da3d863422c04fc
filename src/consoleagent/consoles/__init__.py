"""Console backends by name: ``get_backend("pgadmin")``.

Each console is one package ``consoleagent.consoles.<name>`` whose ``__init__`` exposes
``BACKEND``, the backend class (see :mod:`consoleagent.consoles.base` for what it must offer).
Adding a console is adding such a package; nothing here lists them by hand, so the registry finds
every package that has a ``BACKEND``.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from consoleagent.consoles.base import ConsoleBackend, EpisodeHandle, EpisodePool, EpisodePreparer, GroundTruth, utc_now

__all__ = ["ConsoleBackend", "EpisodeHandle", "EpisodePool", "EpisodePreparer", "GroundTruth", "UnknownConsole",
           "backend_class", "backend_names", "get_backend", "utc_now"]


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
