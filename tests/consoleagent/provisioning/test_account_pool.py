"""The account pool against a real stratus (Uvicorn on a SQLite file) and real worker processes.

No doubles: accounts are created, checked, repaired and rotated through stratus's admin API;
concurrency is real OS processes (spawn) sharing one SQLite state file.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from consoleagent.provisioning.pool import AccountPool
from consoleagent.consoles.stratus.accounts import StratusAccountSource, stratus_login_check
from consoleagent.provisioning.sources import AccountSource, FileAccountSource
from consoleagent.provisioning.types import Lease, PooledAccount, ProvisioningError
from stratus.sdk import AuthenticationError, Client, NotFoundError
from tests.conftest import ADMIN_TOKEN, LiveServer


def make_source(url: str, **kwargs: Any) -> StratusAccountSource:
    return StratusAccountSource(url, ADMIN_TOKEN, **kwargs)


@pytest.fixture
def pool(live_server: LiveServer, tmp_path: Path) -> Any:
    source = make_source(live_server.url)
    with AccountPool(tmp_path / "pool.db", source) as p:
        yield p
    source.close()


def provisioner(account: PooledAccount) -> Client:
    assert account.provisioner_key
    return Client(account.console, *account.provisioner_key)


def leftover_rows(live: LiveServer, account_id: str) -> dict[str, int]:
    state = json.loads(live.admin.account_state(account_id))
    return {t: len(rows) for t, rows in state.items() if rows and t not in {"accounts", "access_keys", "idempotency_tokens"}}


def row(pool: AccountPool, account_id: str) -> dict[str, Any]:
    return next(r for r in pool.status() if r["account_id"] == account_id)


# --- worker processes (module-level so spawn can import them) -----------------------------


def _cycle_worker(state_path: str, url: str, worker: str, cycles: int, out: Any) -> None:
    """Lease, hold briefly, release; report each holding interval as (account, start, end)."""
    source = make_source(url, check_login=False)  # login is covered elsewhere; keep 40 cycles fast
    intervals: list[Any] = []
    try:
        with AccountPool(state_path, source) as pool:
            for _ in range(cycles):
                lease = pool.lease(worker, wait_s=60)
                start = time.time()
                time.sleep(0.01)
                end = time.time()
                pool.release(lease)
                intervals.append((lease.account.account_id, start, end))
    except Exception as err:  # report, so the test fails at once with the reason
        intervals.append(repr(err))
    out.put((worker, intervals))


def _crashing_worker(state_path: str, url: str, out: Any) -> None:
    """Lease with a short TTL and die without releasing, as a crashed rollout worker would."""
    pool = AccountPool(state_path, make_source(url))
    lease = pool.lease("doomed", ttl_s=0.5)
    out.put({"lease_id": lease.lease_id, "account": lease.account.to_dict(), "expires_at": lease.expires_at})
    out.close()
    out.join_thread()  # flush the queue: os._exit skips the feeder thread
    os._exit(0)


# --- tests -----------------------------------------------------------------------------------


def test_source_satisfies_protocol(live_server: LiveServer, tmp_path: Path) -> None:
    path = tmp_path / "accounts.json"
    path.write_text("[]")
    assert isinstance(make_source(live_server.url), AccountSource)
    assert isinstance(FileAccountSource(path), AccountSource)


def test_fill_creates_healthy_stratus_accounts(pool: AccountPool, live_server: LiveServer) -> None:
    added = pool.fill(2)
    assert len(added) == 2 and pool.fill(2) == []
    account = added[0]
    assert account.login_name.startswith("root@pool-") and account.console == live_server.url
    assert live_server.admin.get_account(account.account_id)["balance_cents"] == 1_000_000
    assert stratus_login_check(account) == []
    assert stratus_login_check(PooledAccount(**{**account.to_dict(), "password": "wrong"}))  # a bad password is caught
    lease = pool.lease("w1")
    assert lease.account.account_id in {a.account_id for a in added}
    provisioner(lease.account).call("vpc", "DescribeVpcs")  # the provisioner key works
    assert row(pool, lease.account.account_id)["status"] == "leased"
    assert row(pool, lease.account.account_id)["episodes"] == 1
    pool.release(lease)


def test_concurrent_processes_never_share_an_account(live_server: LiveServer, tmp_path: Path) -> None:
    state = tmp_path / "pool.db"
    source = make_source(live_server.url)
    with AccountPool(state, source) as owner:
        owner.fill(3)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_cycle_worker, args=(str(state), live_server.url, f"w{i}", 10, out)) for i in range(4)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    errors = [item for intervals in results.values() for item in intervals if isinstance(item, str)]
    assert not errors
    assert sorted(results) == ["w0", "w1", "w2", "w3"] and all(len(v) == 10 for v in results.values())
    by_account: dict[str, list[tuple[float, float]]] = {}
    for intervals in results.values():
        for account_id, start, end in intervals:
            by_account.setdefault(account_id, []).append((start, end))
    assert len(by_account) <= 3
    for spans in by_account.values():
        spans.sort()
        for (_, prev_end), (next_start, _) in zip(spans, spans[1:]):
            assert next_start >= prev_end, "two workers held one account at once"
    with AccountPool(state, source) as owner:
        rows = owner.status()
    assert sum(r["episodes"] for r in rows) == 40 and all(r["status"] == "available" for r in rows)


def test_ttl_returns_a_crashed_workers_account(live_server: LiveServer, tmp_path: Path) -> None:
    state = tmp_path / "pool.db"
    source = make_source(live_server.url)
    pool = AccountPool(state, source)
    pool.fill(1)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_crashing_worker, args=(str(state), live_server.url, out))
    proc.start()
    crashed = out.get(timeout=60)
    proc.join(30)
    lease = pool.lease("survivor", wait_s=10)
    assert time.time() >= crashed["expires_at"]
    assert lease.account.account_id == crashed["account"]["account_id"]
    assert row(pool, lease.account.account_id)["worker"] == "survivor"
    stale = Lease(crashed["lease_id"], PooledAccount.from_dict(crashed["account"]), "doomed", crashed["expires_at"])
    with pytest.raises(ProvisioningError, match="stale lease.*leased to 'survivor'"):
        pool.release(stale)
    with pytest.raises(ProvisioningError, match="stale"):
        pool.renew(stale)
    pool.release(lease)
    with pytest.raises(ProvisioningError, match="released already"):
        pool.release(lease)  # twice
    pool.close()


def test_lease_waits_then_gives_up_and_renew_extends(pool: AccountPool) -> None:
    pool.fill(1)
    lease = pool.lease("a", ttl_s=30)
    before = lease.expires_at
    pool.renew(lease, ttl_s=60)
    assert lease.expires_at > before and row(pool, lease.account.account_id)["expires_in_s"] > 30
    started = time.monotonic()
    with pytest.raises(ProvisioningError, match="no healthy account free for 'b' within 0.3s .*1 leased") as err:
        pool.lease("b", wait_s=0.3)
    assert err.value.phase == "lease" and time.monotonic() - started >= 0.3
    pool.release(lease)


def test_dirty_release_is_cleaned_before_the_next_lease(pool: AccountPool, live_server: LiveServer) -> None:
    pool.fill(1)
    lease = pool.lease("w")
    provisioner(lease.account).call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8", VpcName="left-over")
    assert leftover_rows(live_server, lease.account.account_id)["vpc_vpcs"] == 1
    pool.release(lease, dirty=True)
    assert row(pool, lease.account.account_id)["dirty"] is True
    again = pool.lease("w")
    assert leftover_rows(live_server, again.account.account_id) == {}
    info = row(pool, again.account.account_id)
    assert info["repairs"] == 1 and info["dirty"] is False and "cleaned" in info["health"]
    pool.release(again)


def test_leftovers_after_a_clean_release_are_found_by_the_health_check(pool: AccountPool, live_server: LiveServer) -> None:
    pool.fill(1)
    lease = pool.lease("w")
    provisioner(lease.account).call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12", VpcName="forgotten")
    pool.release(lease)  # the worker claims it is clean; the check knows better
    again = pool.lease("w")
    info = row(pool, again.account.account_id)
    assert leftover_rows(live_server, again.account.account_id) == {}
    assert info["repairs"] == 1 and "leftover resources" in info["health"] and "vpc_vpcs=1" in info["health"]
    pool.release(again)


def test_low_balance_and_zero_quota_are_repaired(pool: AccountPool, live_server: LiveServer) -> None:
    [account] = pool.fill(1)
    live_server.admin.set_balance(account.account_id, 50)
    live_server.admin.set_quotas(account.account_id, **{"vpc.vpcs": 0})
    lease = pool.lease("w")
    summary = live_server.admin.get_account(account.account_id)
    assert summary["balance_cents"] == 1_000_000 and summary["quotas"]["vpc.vpcs"] == 10
    health = row(pool, account.account_id)["health"]
    assert "balance 50 cents is below the floor" in health and "quota vpc.vpcs is overridden to 0" in health
    pool.release(lease)


def test_unrepairable_and_retired_accounts_are_never_leased(pool: AccountPool, live_server: LiveServer) -> None:
    a, b, c = pool.fill(3)
    pool.retire(a.account_id, "operator says so")
    assert b.provisioner_key
    live_server.admin.set_access_key_status(b.account_id, b.provisioner_key[0], "Inactive")  # repair cannot fix this
    seen = set()
    for _ in range(3):
        lease = pool.lease("w")
        seen.add(lease.account.account_id)
        pool.release(lease)
    assert seen == {c.account_id}
    assert row(pool, a.account_id)["status"] == "retired" and "operator says so" in row(pool, a.account_id)["health"]
    assert row(pool, b.account_id)["status"] == "retired"
    assert "provisioner access key" in row(pool, b.account_id)["health"] and "Inactive" in row(pool, b.account_id)["health"]
    held = pool.lease("x")
    pool.retire(held.account.account_id, "mid-episode")
    pool.release(held)  # the holder may still finish
    assert row(pool, c.account_id)["status"] == "retired"
    with pytest.raises(ProvisioningError, match="3 retired"):
        pool.lease("w", wait_s=0.1)
    assert pool.fill(1)  # retired ones do not count as usable


def test_state_survives_a_restart(live_server: LiveServer, tmp_path: Path) -> None:
    source = make_source(live_server.url)
    first = AccountPool(tmp_path / "pool.db", source)
    added = first.fill(2)
    lease = first.lease("before-restart")
    first.close()
    second = AccountPool(tmp_path / "pool.db", source)
    assert {r["account_id"] for r in second.status()} == {a.account_id for a in added}
    assert row(second, lease.account.account_id)["worker"] == "before-restart"
    assert second.fill(2) == []
    other = second.lease("after-restart", wait_s=0.5)
    assert other.account.account_id != lease.account.account_id
    with pytest.raises(ProvisioningError):
        second.lease("third", wait_s=0.2)
    second.release(lease)  # the lease object from before the restart is still valid
    second.release(other)
    second.close()


def test_rotation_disables_old_keys(pool: AccountPool, live_server: LiveServer) -> None:
    [account] = pool.fill(1)
    old = provisioner(account)
    old.call("vpc", "DescribeVpcs")
    lease = pool.lease("w")
    with pytest.raises(ProvisioningError, match="leased to 'w'"):
        pool.rotate(account.account_id)
    pool.release(lease)
    new = pool.rotate(account.account_id)
    assert new.provisioner_key != account.provisioner_key and new.sdk_key != account.sdk_key
    with pytest.raises(AuthenticationError):
        old.call("vpc", "DescribeVpcs")
    assert new.sdk_key
    with pytest.raises(AuthenticationError):
        Client(live_server.url, *account.sdk_key).call("vpc", "DescribeVpcs")  # type: ignore[misc]
    provisioner(new).call("vpc", "DescribeVpcs")
    Client(live_server.url, *new.sdk_key).call("vpc", "DescribeVpcs")
    assert pool.account(account.account_id) == new and row(pool, account.account_id)["rotations"] == 1
    lease = pool.lease("w")  # healthy with its new keys
    assert lease.account == new
    pool.release(lease)


def test_admin_access_key_endpoints(live_server: LiveServer) -> None:
    creds = live_server.admin.create_account("keys-admin")
    account_id = creds["account_id"]
    created = live_server.admin.create_access_key(account_id, actor="provisioner")
    keys = {k["access_key_id"]: k for k in live_server.admin.list_access_keys(account_id)}
    assert set(keys) == {creds["access_key_id"], creds["provisioner_key_id"], created["access_key_id"]}
    assert all(k["status"] == "Active" and "access_key_secret" not in k for k in keys.values())
    client = Client(live_server.url, created["access_key_id"], created["access_key_secret"])
    client.call("vpc", "DescribeVpcs")
    assert live_server.admin.set_access_key_status(account_id, created["access_key_id"], "Inactive")["status"] == "Inactive"
    with pytest.raises(AuthenticationError):
        client.call("vpc", "DescribeVpcs")
    live_server.admin.set_access_key_status(account_id, created["access_key_id"], "Active")
    client.call("vpc", "DescribeVpcs")
    other = live_server.admin.create_account("keys-other")
    with pytest.raises(NotFoundError):  # a key is only reachable through its own account
        live_server.admin.set_access_key_status(other["account_id"], created["access_key_id"], "Inactive")


def test_file_source(tmp_path: Path) -> None:
    entries = [{"login_name": "admin@example.com", "password": "s3cret", "console": "http://pgadmin.local"},
               {"login_name": "ops@example.com", "password": "s3cret2", "console": "http://pgadmin.local",
                "account_id": "ops", "extra": {"database": "shop"}}]
    yaml_path = tmp_path / "accounts.yaml"
    yaml_path.write_text(yaml.safe_dump({"accounts": entries}))
    json_path = tmp_path / "accounts.json"
    json_path.write_text(json.dumps(entries))
    assert [a.account_id for a in (FileAccountSource(json_path).create(), FileAccountSource(yaml_path).create())] == \
        ["admin@example.com@http://pgadmin.local"] * 2
    state = tmp_path / "pool.db"
    with AccountPool(state, FileAccountSource(yaml_path)) as pool:
        assert len(pool.fill(2)) == 2
        with pytest.raises(ProvisioningError, match="all 2 accounts are in use") as err:
            pool.fill(3)
        assert err.value.phase == "create"
        lease = pool.lease("w")
        assert lease.account.login_name == "admin@example.com"
        with pytest.raises(ProvisioningError, match="rotate credentials in the file"):
            pool.rotate("ops")
        pool.release(lease)
    with AccountPool(state, FileAccountSource(yaml_path)) as pool:  # a restart hands out no entry twice
        assert pool.fill(2) == [] and len(pool.status()) == 2
        assert pool.account("ops").extra == {"database": "shop"}
    failing = FileAccountSource(json_path, login_check=lambda account: ["login page unreachable"])
    with AccountPool(tmp_path / "other.db", failing) as pool:
        pool.fill(2)
        with pytest.raises(ProvisioningError, match="2 retired"):
            pool.lease("w", wait_s=0.1)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump([{"login_name": "x"}]))
    with pytest.raises(ProvisioningError, match="entry 0 lacks password, console"):
        FileAccountSource(bad)
