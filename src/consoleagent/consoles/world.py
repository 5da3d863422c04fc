"""One world starter for every console: the benchmark, verification and GRPO all start a console
backend, prepare its world and build workers from it here.

A *world* is a started backend plus a folder for what its workers share (stratus: the account pool
and the snapshot index). Worker processes cannot inherit a running console object, so they get a
:class:`ConsoleRef` (the backend's name and the options that reach the running console, from its
``connection()``) and connect to it themselves. A backend without ``connection()`` (pgAdmin in
desktop mode has one user) runs its episodes in the process that started it.

A backend may provide ``prepare_world(world, slots)`` and ``rollout_parts(world, tasks,
lease_ttl_s=...)``; without them a backend runs one episode at a time through ``begin_episode`` /
``end_episode`` (:class:`~consoleagent.consoles.base.EpisodePool`, ``EpisodePreparer``) and its
``audit_records``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.consoles.base import ConsoleBackend, EpisodePool, EpisodePreparer, ReadState


@dataclass
class RolloutParts:
    """What a rollout needs of the console: pool, preparer, audit reader, state reader, audit delay."""

    pool: Any
    preparer: Any
    collect_audit: Callable[[Any, str], list[dict[str, Any]]]
    state_reader: Callable[[dict[str, Any]], ReadState | None]
    delivery_delay_s: float | None = None  # wall-clock seconds, when known: the judge stops waiting early


@dataclass
class ConsoleRef:
    """A picklable way to reach a started console from another process."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)


def rollout_parts(backend: Any, world: Path, tasks: list[Any], *, lease_ttl_s: float) -> RolloutParts:
    """The backend's own parts, or the generic ones built on its episode methods."""
    own = getattr(backend, "rollout_parts", None)
    if own is not None:
        return own(world, tasks, lease_ttl_s=lease_ttl_s)
    return RolloutParts(EpisodePool(backend), EpisodePreparer(backend), _episode_audit(backend),
                        lambda extra: backend.read_state(None), getattr(backend, "delivery_delay_s", None))


def _episode_audit(backend: Any) -> Callable[[Any, str], list[dict[str, Any]]]:
    """Records since the episode's start (``credentials.extra["since"]``), of its principal when named."""
    own = getattr(backend, "collect_audit", None)
    if own is not None:
        return own

    def collect(credentials: Any, console: str) -> list[dict[str, Any]]:
        extra = getattr(credentials, "extra", None) or {}
        return backend.audit_records(since=extra.get("since"), principal=extra.get("principal"))

    return collect


def start_world(backend: ConsoleBackend, world: Path, *, slots: int, fresh: bool = True) -> None:
    """Start ``backend`` and prepare its shared world in ``world`` for ``slots`` concurrent episodes.

    ``fresh``: the folder is emptied first (an in-process console is new each run, so the last run's
    accounts and snapshots mean nothing to it); a backend that reaches a console which outlives the
    run (``keeps_world``: stratus at --url) keeps it, so a resumed run finds its pool again."""
    if fresh and not getattr(backend, "keeps_world", False):
        shutil.rmtree(world, ignore_errors=True)
    world.mkdir(parents=True, exist_ok=True)
    backend.start()
    prepare = getattr(backend, "prepare_world", None)
    if prepare is not None:
        prepare(world, slots)


def reference(backend: Any) -> ConsoleRef | None:
    """How a worker process reaches the started ``backend``; None when it cannot (one process only)."""
    connection = getattr(backend, "connection", None)
    return ConsoleRef(backend.name, connection()) if connection is not None else None


def connect(ref: ConsoleRef) -> Any:
    """A backend in this process attached to the console ``ref`` describes (it starts nothing)."""
    from consoleagent.consoles import get_backend

    backend = get_backend(ref.name, **ref.options)
    backend.start()
    return backend


def describe(backend: Any) -> str:
    """How results and reports name the console."""
    own = getattr(backend, "describe", None)
    if own is not None:
        return own()
    return f"{backend.name} at {backend.base_url}"


class Borrowed:
    """The backend as the environment's adapter, minus ``stop``: closing a worker's browser must
    not stop the console that the world's owner started (and stops)."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.name = backend.name

    def __getattr__(self, item: str) -> Any:
        return getattr(self._backend, item)

    @property
    def base_url(self) -> str:
        return self._backend.base_url

    def start(self) -> None:
        """Started by the world's owner."""

    def stop(self) -> None:
        """Stopped by the world's owner."""
