"""The stratus console backend: everything the core needs of stratus, behind the console seam.

stratus runs in this process (a throw-away database, fresh for every run) or is reached at a URL
with its admin token. What the seam asks for maps onto what stratus has:

- isolation: a pool of stratus accounts (``accounts.StratusAccountSource``), each leased by one
  episode at a time, cleaned through the admin API;
- reset: snapshot restore (``SharedSnapshotReset``: provision once per account and task, restore
  after) or provision-and-destroy (the ablation baseline), behind release pinning
  (``release.ReleasePinned``: stratus serves several console releases and each task names one);
- audit: ActionTrail's ``LookupEvents`` of the episode's sign-in session (``audit.audit_of_episode``);
- provisioning: the META library (``templates.py``) bound to the SDK (``provisioning.py``), and
  ResourceCoder's generated SDK scripts in the OS sandbox (``resourcecoder.py``, ``sandbox.py``);
- ground truth: stratus's release changelog (``stratus.releases``); verification's list of
  state-changing actions: stratus's action registry (``write_actions``);
- the demo: ``serve_demo`` (``consoleagent demo``).

Only this package (and ``consoleagent.adapters.stratus``, which it wraps) imports ``stratus``
(tests/test_console_seam_imports.py holds the rule).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from consoleagent.adapters.base import Credentials
from consoleagent.consoles.base import EpisodeHandle, GroundTruth, ReadState, Record
from consoleagent.provisioning.types import PooledAccount, Requirement

DEFAULT_TIME_SCALE = 50.0


def _latest_release() -> str:
    from stratus.releases import LATEST_RELEASE

    return LATEST_RELEASE


class StratusBackend:
    """stratus in this process (no ``url``) or the running stratus at ``url`` (with ``admin_token``)."""

    name = "stratus"
    release = _latest_release()  # the default pin; an instance may be put on another of ``releases()``

    def __init__(self, *, url: str | None = None, admin_token: str | None = None, release: str | None = None,
                 time_scale: float = DEFAULT_TIME_SCALE, database_url: str | None = None,
                 delivery_delay_s: float | None = None, reset: str = "snapshot") -> None:
        from consoleagent.adapters.stratus import StratusAdapter
        from stratus.releases import LATEST_RELEASE

        if url and not admin_token:
            raise ValueError("the stratus console at --url needs --admin-token (the account pool creates its accounts "
                             "through stratus's admin API)")
        if reset not in ("snapshot", "provision"):
            raise ValueError(f"reset must be snapshot or provision, not {reset!r}")
        self.release = release or LATEST_RELEASE
        self.time_scale = time_scale
        self.reset = reset
        self._given_delay = delivery_delay_s
        self.adapter = StratusAdapter(url, admin_token=admin_token, release=release, time_scale=time_scale,
                                      database_url=database_url)
        self._remote = url is not None
        self._accounts: dict[str, dict[str, Any]] = {}  # account id -> credentials extra (audit_records by principal)

    # --- reach the console -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return self.adapter.base_url

    @property
    def admin_token(self) -> str | None:
        return self.adapter.admin_token

    def start(self) -> None:
        self.adapter.start()

    def stop(self) -> None:
        self.adapter.stop()

    def wait_ready(self, page: Any, timeout_s: float = 60.0) -> None:
        """stratus renders on the server: a loaded page is a usable page."""
        page.wait_for_load_state("load", timeout=timeout_s * 1000)

    def credentials(self) -> Credentials:
        return self.adapter.credentials()

    def login(self, page: Any, credentials: Credentials) -> None:
        self.adapter.login(page, credentials)

    def is_signed_out(self, url: str) -> bool:
        return self.adapter.is_signed_out(url)

    @property
    def delivery_delay_s(self) -> float | None:
        """The audit delivery delay in wall-clock seconds: known for an in-process stratus, else as given."""
        runtime = self.adapter.runtime
        if runtime is not None:
            return runtime.settings.audit_delivery_delay / self.time_scale
        return self._given_delay

    @property
    def keeps_world(self) -> bool:
        """A stratus at --url outlives the run: its pool file (accounts it holds) must survive a rerun."""
        return self._remote

    def product_start_url(self, product: str) -> str | None:
        """Where a document about ``product`` starts when no step names its console: that product's console
        home (``/ecs``, as the product registers it), not the home page whose links name other products."""
        import stratus.app  # noqa: F401  (registers every product's console)
        from stratus.console.product import CONSOLE_PRODUCTS

        registered = CONSOLE_PRODUCTS.get(product)
        return registered.home_href if registered is not None else None

    def describe(self) -> str:
        """How reports name the console."""
        return self.base_url if self._remote else "in-process stratus"

    def connection(self) -> dict[str, Any]:
        """Options that make a backend in another process (a benchmark worker) reach this running stratus."""
        return {"url": self.base_url, "admin_token": self.admin_token, "release": self.release,
                "time_scale": self.time_scale, "delivery_delay_s": self.delivery_delay_s, "reset": self.reset}

    # --- episodes (one at a time, outside the pool: `consoles.check`, `run --task`) ---------------------
    def begin_episode(self, task_id: str, requirements: list[Requirement]) -> EpisodeHandle:
        """A fresh account on this release, the requirements provisioned with its provisioner key."""
        import time

        from consoleagent.consoles.stratus.accounts import StratusAccountSource

        started = time.monotonic()
        source = StratusAccountSource(self.base_url, self.admin_token or "", release=self.release,
                                      alias_prefix=f"ep-{secrets.token_hex(2)}", check_login=False)
        try:
            account = source.create()
        finally:
            source.close()
        provisioned = self.provisioner().provision(account, requirements)
        credentials = account.credentials()
        self._accounts[account.account_id] = credentials.extra
        # A fresh account: its whole trail is the episode's, so the window needs no start ("" = all).
        return EpisodeHandle(credentials, provisioned.outputs, provisioned.report(), "", "provisioned",
                             time.monotonic() - started, provisioned)

    def end_episode(self, episode: EpisodeHandle) -> None:
        self.provisioner().destroy(episode.state)

    # --- judging -----------------------------------------------------------------------------------------
    def audit_records(self, since: str | None = None, until: str | None = None,
                      principal: str | None = None) -> list[Record]:
        """stratus keeps a trail per account: ``principal`` names an account this backend began an episode
        in (default: the latest one, as ``consoles.check.judge`` asks right after its episode)."""
        from consoleagent.consoles.stratus.audit import account_records

        if principal is None and self._accounts:
            principal = next(reversed(self._accounts))
        if principal is None or principal not in self._accounts:
            raise ValueError("stratus's audit trail is per account: pass the account id of an episode this backend began")
        return account_records(self.base_url, self._accounts[principal], since or None, until)

    def collect_audit(self, credentials: Any, console: str | None = None) -> list[Record]:
        """The episode's records: those of its sign-in session (``Rollout.collect_audit`` signature)."""
        from consoleagent.consoles.stratus.audit import audit_of_episode

        return audit_of_episode(credentials, console or self.base_url)

    def read_state(self, credentials: Credentials | None) -> ReadState | None:
        from consoleagent.consoles.stratus.audit import state_reader

        if credentials is None or "access_key_id" not in (credentials.extra or {}):
            return None
        return state_reader(self.base_url, credentials.extra)

    # --- provisioning, release, ground truth -------------------------------------------------------------
    @classmethod
    def template_library(cls) -> Any:
        from consoleagent.consoles.stratus.templates import stratus_library

        return stratus_library()

    def provisioner(self) -> Any:
        from consoleagent.provisioning.engine import ProvisioningEngine

        return ProvisioningEngine(self.template_library())

    @classmethod
    def releases(cls) -> list[str]:
        from stratus.releases import RELEASES

        return list(RELEASES)

    def ground_truth(self) -> GroundTruth:
        """The release changelog, and the hand-written truth of the suite's documents without a task."""
        from stratus.releases import changelog

        from consoleagent.consoles.document_truth import load_document_truth
        from consoleagent.consoles.stratus.suite import DOCUMENTS_ROOT

        changes = list(changelog())
        return GroundTruth(self.releases(), changes, load_document_truth(DOCUMENTS_ROOT / "truth.yaml", changes))

    @classmethod
    def write_actions(cls) -> list[str]:
        """The names of stratus's state-changing API actions (its action registry), sorted: what a
        procedure without a task must cause (``verify.outcome``)."""
        import stratus.app  # noqa: F401  (registers every product's actions)
        from stratus.api.registry import ACTIONS

        return sorted(a.name for a in ACTIONS.values() if a.rw == "Write")

    @classmethod
    def serve_demo(cls, *, host: str, port: int, database: str, time_scale: float, release: str | None) -> None:
        """Serve stratus with its seeded demo account until interrupted (``consoleagent demo``): the
        given release, or the latest one (the release ``make verify`` checks the documents against)."""
        from stratus.cli import serve

        serve(host=host, port=port, database=database, seed=None, clock=None, time_scale=time_scale,
              release=release or _latest_release(), popup_rate=None, audit_delay=None, admin_token=None, demo=True)

    @property
    def tasks_root(self) -> Path:
        from consoleagent.consoles.stratus.suite import TASKS_ROOT

        return TASKS_ROOT

    @property
    def documents_root(self) -> Path:
        from consoleagent.consoles.stratus.suite import DOCUMENTS_ROOT

        return DOCUMENTS_ROOT

    # --- the benchmark's world: a shared account pool and snapshot index -------------------------------
    def prepare_world(self, world: Path, slots: int) -> None:
        """Fill the account pool in ``world`` with ``slots`` accounts (plus any an interrupted run still holds)."""
        from consoleagent.consoles.stratus.accounts import StratusAccountSource
        from consoleagent.provisioning.pool import AccountPool

        pool = AccountPool(world / "pool.db", StratusAccountSource(self.base_url, self.admin_token or ""))
        try:
            # Accounts still leased by an interrupted run come back only after their TTL: add as many.
            held = sum(1 for row in pool.status() if row["status"] == "leased" and not row["expired"])
            pool.fill(slots + held)
        finally:
            pool.close()

    def rollout_parts(self, world: Path, tasks: list[Any], *, lease_ttl_s: float) -> Any:
        """The pool (shared file), the reset (snapshot index shared by the workers) behind release
        pinning, and the audit reader, for one worker."""
        from consoleagent.rollout.snapshot_index import SharedSnapshotReset
        from consoleagent.consoles.stratus.accounts import StratusAccountSource
        from consoleagent.consoles.stratus.release import ReleasePinned
        from consoleagent.consoles.world import RolloutParts
        from consoleagent.provisioning.pool import AccountPool
        from consoleagent.rollout.reset import ProvisionAndDestroy

        pool = AccountPool(world / "pool.db", StratusAccountSource(self.base_url, self.admin_token or ""),
                           lease_ttl_s=lease_ttl_s)
        engine = self.provisioner()
        admin = self.adapter.admin
        inner = (SharedSnapshotReset(engine, admin, world / "snapshots.json") if self.reset == "snapshot"
                 else ProvisionAndDestroy(engine))
        preparer = ReleasePinned(inner, admin, {t.id: t.release for t in tasks})
        return RolloutParts(pool, preparer, self.collect_audit, self._reader_of, self.delivery_delay_s)

    def _reader_of(self, extra: dict[str, Any]) -> ReadState | None:
        from consoleagent.consoles.stratus.audit import state_reader

        return state_reader(self.base_url, extra)

    def pooled_account(self) -> PooledAccount:
        """One managed account outside any pool (``consoleagent templates --validate``)."""
        from consoleagent.consoles.stratus.accounts import StratusAccountSource

        source = StratusAccountSource(self.base_url, self.admin_token or "")
        try:
            return source.create()
        finally:
            source.close()
