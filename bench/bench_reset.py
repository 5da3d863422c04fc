"""Resetting a task's starting state: snapshot restore vs provisioning and destroying its resources
through the API (Resource META templates), for a small and a large task, in one run.

stratus runs in-process with a x50 clock, so asynchronous states (Pending → Running) take
milliseconds; with a real clock provisioning waits seconds per resource and the ratio grows.
Run: python bench/bench_reset.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from common import machine

from consoleagent.adapters.stratus import StratusAdapter
from consoleagent.provisioning.engine import ProvisioningEngine, parse_requirements
from consoleagent.consoles.stratus.templates import stratus_library
from consoleagent.provisioning.pool import AccountPool
from consoleagent.consoles.stratus.accounts import StratusAccountSource
from consoleagent.rollout.reset import ProvisionAndDestroy, SnapshotReset

SMALL = [{"name": "net", "template": "vpc"}, {"name": "sub", "template": "vswitch", "params": {"vpc_id": "${net.vpc_id}"}}]
LARGE = SMALL + [
    {"name": "sub2", "template": "vswitch", "params": {"vpc_id": "${net.vpc_id}"}},
    {"name": "sg", "template": "security_group", "params": {"vpc_id": "${net.vpc_id}", "rules": ["tcp:22:0.0.0.0/0", "tcp:443:0.0.0.0/0"]}},
    {"name": "key", "template": "key_pair"},
    {"name": "web", "template": "ecs_instance", "params": {"vswitch_id": "${sub.vswitch_id}", "security_group_id": "${sg.security_group_id}"}},
    {"name": "db", "template": "ecs_instance", "params": {"vswitch_id": "${sub2.vswitch_id}", "security_group_id": "${sg.security_group_id}", "state": "stopped"}},
    {"name": "data", "template": "disk", "params": {"instance_id": "${web.instance_id}"}},
    {"name": "snap", "template": "snapshot", "params": {"disk_id": "${data.disk_id}"}},
    {"name": "ip", "template": "eip", "params": {"instance_id": "${web.instance_id}"}},
    {"name": "nat", "template": "nat_gateway", "params": {"vswitch_id": "${sub2.vswitch_id}"}},
]


def timed(fn, repeats: int) -> list[float]:  # noqa: ANN001
    values = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        values.append(time.perf_counter() - started)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    adapter = StratusAdapter(time_scale=50.0)
    adapter.start()
    pool = AccountPool(Path(tempfile.mkdtemp()) / "pool.db", StratusAccountSource(adapter.base_url, adapter.admin_token))
    pool.fill(1)
    engine = ProvisioningEngine(stratus_library())
    lease = pool.lease("bench")
    account = lease.account
    print(f"machine: {machine()}")
    print(f"{'task':6s} {'resources':>9s} {'provision+destroy ms':>21s} {'snapshot restore ms':>20s} {'ratio':>7s}")
    for label, spec in (("small", SMALL), ("large", LARGE)):
        requirements = parse_requirements(spec)
        fallback = ProvisionAndDestroy(engine)

        def provision_and_destroy() -> None:
            prepared = fallback.prepare(account, label, requirements)
            fallback.cleanup(account, prepared)

        slow = timed(provision_and_destroy, args.repeats)
        reset = SnapshotReset(engine, adapter.admin)
        first = reset.prepare(account, label, requirements)  # provisions once and snapshots
        fast = timed(lambda: reset.prepare(account, label, requirements), args.repeats)
        count = len(first.report.resources)
        slow_ms, fast_ms = statistics.median(slow) * 1000, statistics.median(fast) * 1000
        print(f"{label:6s} {count:9d} {slow_ms:21.1f} {fast_ms:20.1f} {slow_ms / fast_ms:6.1f}x")
        adapter.admin.reset_account(account.account_id)
    pool.release(lease, dirty=True)
    pool.close()
    adapter.stop()


if __name__ == "__main__":
    main()
