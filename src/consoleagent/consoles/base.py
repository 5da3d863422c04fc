"""The console backend seam: one object per console owns everything console-specific.

The core (environment, rollout, judge, verification, benchmark, training) talks to a console only
through :class:`ConsoleBackend`. A backend answers five questions:

1. **Where is it and is it usable?** ``start``/``stop`` (or connect), ``base_url``, ``wait_ready``
   (the page is usable: the HTTP endpoint answers and any loading splash is gone), ``credentials``
   and ``login``. A backend is also a console *adapter* (``consoleagent.adapters.ConsoleAdapter``),
   so ``ConsoleEnv(backend)`` works as it is.
2. **How does an episode start clean?** ``begin_episode(task_id, requirements)`` isolates and
   resets (a fresh account, a snapshot restore, a cloned database...), provisions the task's
   Resource META requirements through the backend's provisioner, and returns an
   :class:`EpisodeHandle`; ``end_episode`` undoes what must be undone.
3. **What did the agent do?** ``audit_records(since, until, principal)`` returns records in our
   audit format (docs/formats.md, "Audit record"), oldest first. The reward rules judge those.
4. **What can be provisioned?** ``template_library()`` (the Resource META templates; needs no
   running console, task validation reads it) and ``provisioner()`` (the engine that runs them).
5. **Which release, and what is true?** ``release`` (the console's version pin; tasks name it) and
   ``ground_truth()`` (what verification's evaluation compares against, and where the training
   filters read a change's kind: stratus has a changelog of its releases; a third-party console
   has none and returns None).

Optional, found with ``getattr`` (a backend without them still fits the protocol):
``write_actions()`` (the names of the console's state-changing audit events: verification's goal
rule for a procedure without a task; without it the backend's ``write_event`` pattern is used),
``serve_demo(host=, port=, database=, time_scale=, release=)`` (``consoleagent demo``: stratus) and
``refusal(status, body)`` (the message when a 5xx response is the console refusing the agent's input, which
the backend can prove: pgAdmin's database logged the error; the environment then goes on instead of
ending the episode as ``env_error``).

The core never imports a console's own packages: only ``consoles/<name>/`` reaches its console
(tests/test_console_seam_imports.py checks this for stratus).

The rollout lifecycle (``consoleagent.rollout.lifecycle.Rollout``) wants a pool and a preparer;
:class:`EpisodePool` and :class:`EpisodePreparer` make those from ``begin_episode``/``end_episode``
for backends that have nothing better (stratus has a real account pool and snapshots of its own).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from consoleagent.adapters.base import Credentials
from consoleagent.provisioning.types import Lease, PooledAccount, Requirement, ResourceReport

Record = dict[str, Any]
ReadState = Callable[[str, str, dict[str, Any]], dict[str, Any]]  # (product, action, params) -> response


def utc_now() -> str:
    """Now as an audit ``eventTime`` (``YYYY-MM-DDTHH:MM:SS.mmmZ``): windows compare as text."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


@dataclass
class EpisodeHandle:
    """One prepared episode: who signs in, what was provisioned, and the audit window's start.

    ``credentials.extra`` carries what the judge's record filter needs (``account_id``, and a
    ``session_id`` where the console has sessions); ``since`` bounds the audit window, so records
    of earlier episodes never count.
    """

    credentials: Credentials
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    report: ResourceReport = field(default_factory=lambda: ResourceReport([], "template"))
    since: str = field(default_factory=utc_now)
    reset_source: str = "provisioned"  # how the starting state was made: snapshot | template-clone | provisioned
    reset_seconds: float = 0.0
    state: Any = None  # the backend's own bookkeeping (what end_episode needs)


@dataclass
class GroundTruth:
    """What verification scores its findings against: the console's documented changes per release."""

    releases: list[str]
    changes: list[Any]  # the console's changelog entries (id, release, page, kind, ...)
    # documents without a task: {document id: {release: DocumentTruth}} (consoles.document_truth)
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)


@runtime_checkable
class ConsoleBackend(Protocol):
    name: str
    release: str  # the console's version pin (tasks name it; a task for another release is refused)

    # --- reach the console ------------------------------------------------------------------------
    @property
    def base_url(self) -> str: ...

    def start(self) -> None:
        """Start the console or connect to it (idempotent); returns once ``base_url`` answers."""

    def stop(self) -> None:
        """Stop exactly what ``start`` started (nothing when it only connected)."""

    def wait_ready(self, page: Any, timeout_s: float = 60.0) -> None:
        """Block until ``page`` shows the usable console (splashes and loading overlays gone)."""

    def credentials(self) -> Credentials:
        """Credentials for an episode (empty login for a console without sign-in)."""

    def login(self, page: Any, credentials: Credentials) -> None:
        """Sign ``page`` in (or just open the console where it needs no sign-in), then ``wait_ready``."""

    def is_signed_out(self, url: str) -> bool:
        """Whether ``url`` is the console's sign-in page (the environment reports a lost session)."""

    # --- episodes -----------------------------------------------------------------------------------
    def begin_episode(self, task_id: str, requirements: list[Requirement]) -> EpisodeHandle:
        """Isolate and reset, provision ``requirements``, and open the audit window."""

    def end_episode(self, episode: EpisodeHandle) -> None:
        """Undo what the episode's reset and provisioning need undone (the next begin resets anyway)."""

    # --- judging ------------------------------------------------------------------------------------
    def audit_records(self, since: str | None = None, until: str | None = None,
                      principal: str | None = None) -> list[Record]:
        """Audit records (our format) in ``[since, until]`` (``eventTime`` strings), of ``principal`` if given."""

    def read_state(self, credentials: Credentials) -> ReadState | None:
        """A reader for a rule's ``state:`` checks (``product.Action`` calls), or None if the console has none."""

    # --- provisioning, release, ground truth ------------------------------------------------------
    @classmethod
    def template_library(cls) -> Any:
        """The Resource META templates (a ``TemplateLibrary``); needs no running console."""

    def provisioner(self) -> Any:
        """The ``ProvisioningEngine`` that creates and destroys template resources in this console."""

    def ground_truth(self) -> GroundTruth | None:
        """The console's documented changes, or None when it publishes none."""

    # --- the console's own suite -------------------------------------------------------------------
    @property
    def tasks_root(self) -> Path | None:
        """The folder of this console's task files (None: the console ships no tasks)."""

    @property
    def documents_root(self) -> Path | None:
        """The folder of the documents its tasks follow."""


# --- adapters to the rollout lifecycle --------------------------------------------------------------


class EpisodePool:
    """A Pool (``rollout.lifecycle.Pool``) over a backend with one account: one lease at a time.

    A console like pgAdmin in desktop mode has one user; episodes on it must not overlap, so a
    second ``lease`` waits for the first to be released (or fails after ``wait_s``).
    """

    def __init__(self, backend: ConsoleBackend) -> None:
        self.backend = backend
        self._lock = threading.Lock()
        self._counter = 0

    def lease(self, worker: str, *, ttl_s: float | None = None, wait_s: float = 30.0) -> Lease:
        if not self._lock.acquire(timeout=wait_s):
            raise TimeoutError(f"{self.backend.name}: its one account stayed leased for {wait_s:.0f} s")
        self._counter += 1
        creds = self.backend.credentials()
        extra = {k: v for k, v in creds.extra.items() if k != "account_id"}
        account = PooledAccount(str(creds.extra.get("account_id", self.backend.name)), creds.login_name, creds.password,
                                self.backend.base_url, extra=extra)
        return Lease(f"{self.backend.name}-{self._counter}", account, worker, time.time() + (ttl_s or 3600))

    def release(self, lease: Lease, *, dirty: bool = False) -> None:
        self._lock.release()


class EpisodePreparer:
    """A Preparer (``rollout.reset.Preparer``) that calls ``begin_episode`` and ``end_episode``.

    The handle's credentials (audit window, account) are kept on the prepared record and put into
    the leased account's ``extra``, so ``Rollout`` signs in with them and the judge reads the right
    window.
    """

    def __init__(self, backend: ConsoleBackend) -> None:
        self.backend = backend

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Any:
        from consoleagent.rollout.reset import Prepared

        episode = self.backend.begin_episode(task_id, requirements)
        account.extra.update({k: v for k, v in episode.credentials.extra.items() if k != "account_id"})
        return Prepared(episode.outputs, episode.report, episode.reset_source, episode.reset_seconds, episode)

    def cleanup(self, account: PooledAccount, prepared: Any) -> None:
        self.backend.end_episode(prepared.handle)
