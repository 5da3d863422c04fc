"""Load and crash: signed SDK writes from N threads, ``kill -9`` of ``stratus serve`` mid-load, restart.

A ``stratus serve`` subprocess on 127.0.0.1 and a SQLite file in a temporary folder. N threads create
VPCs and modify their descriptions through the signed SDK; at ``--kill-at`` seconds the server is
killed with SIGKILL while the threads keep calling, then restarted on the same database, and the
load goes on until ``--seconds`` (and at least ``--after`` seconds on the restarted server). Then:

- calls attempted, acknowledged (2xx), refused by the server (4xx/5xx), failed in transport (server
  down) and in doubt (the connection broke while the server was being killed: may or may not have
  committed);
- lost writes: acknowledged but absent after the restart (a VPC gone, or a description older than
  the last acknowledged one);
- audit records of the successful calls vs acknowledged calls (the difference may only be the
  in-doubt calls that did commit);
- ``stratus verify-trail`` on the database after the restart;
- virtual time: the newest audit time and the stored clock mark before the restart vs the restarted
  server's clock, and whether every VPC created before the crash reaches Available.

Bounded and loopback only; it stops by itself and removes its folder (``--keep`` keeps it).
Run: python bench/bench_load_crash.py [--threads 4 --seconds 20 --kill-at 10 --time-scale 100]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from common import machine

import httpx2
from stratus.core.clock import parse_time
from stratus.sdk import AdminClient, Client, StratusError
from stratus.server import free_port

STRATUS = Path(sys.executable).parent / "stratus"
WRITES = ("CreateVpc", "ModifyVpcAttribute")


@dataclass
class Vpc:
    """One VPC as its thread saw it: the last acknowledged description and any later in-doubt one."""

    vpc_id: str
    created_before_crash: bool
    acked_description: str = ""
    doubtful: set[str] = field(default_factory=set)


@dataclass
class Tally:
    attempted: int = 0
    acknowledged: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # by error code
    transport: int = 0  # connection refused: nothing reached a server
    in_doubt: int = 0  # the connection broke mid-request
    lock: threading.Lock = field(default_factory=threading.Lock)


class Server:
    """``stratus serve`` as a subprocess on loopback; ``kill()`` is a real SIGKILL."""

    def __init__(self, db: Path, port: int, token: str, time_scale: float, log: Path) -> None:
        self.db, self.port, self.token, self.time_scale, self.log = db, port, token, time_scale, log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> float:
        """Start and wait until it answers; returns the seconds it took."""
        env = {**os.environ, "STRATUS_ADMIN_TOKEN": self.token}  # the environment, not argv: ps shows argv
        started = time.monotonic()
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([str(STRATUS), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                                          "--database", f"sqlite:///{self.db}", "--time-scale", str(self.time_scale)],
                                         stdout=log, stderr=subprocess.STDOUT, env=env)
        while time.monotonic() - started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"stratus serve exited with {self.proc.returncode}; see {self.log}")
            try:
                httpx2.get(f"{self.url}/healthz", timeout=2)
                return time.monotonic() - started
            except httpx2.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"stratus serve did not answer within {timeout:.0f} s; see {self.log}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def worker(index: int, client: Client, stop: threading.Event, crashed: threading.Event, tally: Tally,
           vpcs: list[Vpc]) -> None:
    """Alternate CreateVpc and ModifyVpcAttribute on the thread's newest VPC until told to stop."""
    n = 0
    mine: Vpc | None = None
    while not stop.is_set():
        n += 1
        create = mine is None or n % 2 == 1
        description = f"t{index}-d{n}"
        with tally.lock:
            tally.attempted += 1
        try:
            if create:
                vpc_id = client.call("vpc", "CreateVpc", VpcName=f"t{index}-{n}", CidrBlock="10.0.0.0/8")["VpcId"]
                mine = Vpc(vpc_id, created_before_crash=not crashed.is_set())
                with tally.lock:
                    vpcs.append(mine)
            else:
                assert mine is not None
                client.call("vpc", "ModifyVpcAttribute", VpcId=mine.vpc_id, Description=description)
                mine.acked_description, mine.doubtful = description, set()
            with tally.lock:
                tally.acknowledged["CreateVpc" if create else "ModifyVpcAttribute"] += 1
        except StratusError as exc:
            with tally.lock:
                tally.refused[exc.code] += 1
        except httpx2.ConnectError:
            with tally.lock:
                tally.transport += 1
            time.sleep(0.05)  # the server is down: do not spin
        except httpx2.TransportError:
            with tally.lock:
                tally.in_doubt += 1
            if not create and mine is not None:
                mine.doubtful.add(description)
            time.sleep(0.05)


def trail_on_disk(db: Path) -> tuple[int, datetime | None, datetime | None]:
    """Audit record count, newest event time and stored clock mark, read from the dead server's file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        count, newest = conn.execute("SELECT count(*), max(event_time) FROM audit_events").fetchone()
        mark = conn.execute("SELECT at FROM server_state WHERE name = 'clock_mark'").fetchone()
    return count, _sqlite_time(newest), _sqlite_time(mark[0] if mark else None)


def _sqlite_time(value: str | None) -> datetime | None:
    """SQLAlchemy stores UTC as naive text, "2026-11-24 08:20:48.364000"."""
    return parse_time(value.replace(" ", "T")) if value else None


def lost_writes(client: Client, vpcs: list[Vpc]) -> tuple[list[str], int]:
    """Acknowledged writes missing after the restart, and how many VPCs made before the crash are not Available."""
    stored = {v["VpcId"]: v for v in client.paginate("vpc", "DescribeVpcs", "Vpcs")}
    lost = []
    for vpc in vpcs:
        row = stored.get(vpc.vpc_id)
        if row is None:
            lost.append(f"{vpc.vpc_id}: acknowledged CreateVpc, absent")
        elif vpc.acked_description and row.get("Description") not in {vpc.acked_description, *vpc.doubtful}:
            lost.append(f"{vpc.vpc_id}: description {row.get('Description')!r}, acknowledged {vpc.acked_description!r}")
    not_available = sum(1 for vpc in vpcs if vpc.created_before_crash and stored.get(vpc.vpc_id, {}).get("Status") != "Available")
    return lost, not_available


def audited_successes(admin: AdminClient, account_id: str) -> tuple[Counter[str], Counter[str]]:
    ok: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for line in admin.export_events(account_id=account_id, include_undelivered=True).splitlines():
        record = json.loads(line)
        if record["eventName"] in WRITES and record["eventType"] == "ApiCall":
            (failed if record["errorCode"] else ok)[record["eventName"]] += 1
    return ok, failed


def verify_trail(db: Path, token: str) -> tuple[int, str]:
    env = {**os.environ, "STRATUS_ADMIN_TOKEN": token, "COLUMNS": "200"}
    done = subprocess.run([str(STRATUS), "verify-trail", "--database", f"sqlite:///{db}"], capture_output=True,
                          text=True, env=env, timeout=300)
    return done.returncode, (done.stdout + done.stderr).strip().splitlines()[-1] if (done.stdout + done.stderr).strip() else ""


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    db, token = folder / "stratus.db", secrets.token_urlsafe(32)
    server = Server(db, free_port(), token, args.time_scale, folder / "serve.log")
    try:
        return _load_kill_restart(args, server)
    finally:
        server.stop()


def _load_kill_restart(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    db, token = server.db, server.token
    first_start = server.start()
    admin = AdminClient(server.url, token)
    creds = admin.create_account("loadcrash", password="Load-Crash-Passw0rd", balance_cents=10_000_000)
    admin.set_quotas(creds["account_id"], **{"vpc.vpcs": 100_000})
    clients = [Client(server.url, creds["provisioner_key_id"], creds["provisioner_key_secret"], timeout=30)
               for _ in range(args.threads)]
    tally, vpcs = Tally(), []
    stop, crashed = threading.Event(), threading.Event()
    threads = [threading.Thread(target=worker, args=(i, c, stop, crashed, tally, vpcs), daemon=True)
               for i, c in enumerate(clients)]
    started = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(args.kill_at)
    acked_before = sum(tally.acknowledged.values())
    crashed.set()
    server.kill()
    killed_at = time.monotonic()
    records_before, newest_before, mark_before = trail_on_disk(db)
    restart_s = server.start()
    down_s = time.monotonic() - killed_at
    clock_after = parse_time(admin._send("GET", "/admin/clock")["now"])
    wall_after = datetime.now(timezone.utc)
    time.sleep(max(args.after, args.seconds - (time.monotonic() - started)))
    stop.set()
    for t in threads:
        t.join(timeout=60)
    load_s = time.monotonic() - started
    time.sleep(max(0.5, 3 / args.time_scale))  # VPCs turn Available 2 virtual seconds after creation
    checker = Client(server.url, creds["provisioner_key_id"], creds["provisioner_key_secret"])
    lost, pending = lost_writes(checker, vpcs)
    ok, failed = audited_successes(admin, creds["account_id"])
    server.stop()
    code, verdict = verify_trail(db, token)
    acked = sum(tally.acknowledged.values())
    return {
        "threads": args.threads, "load_s": round(load_s, 1), "kill_at_s": args.kill_at, "time_scale": args.time_scale,
        "first_start_s": round(first_start, 1), "restart_s": round(restart_s, 1),
        "down_s": round(down_s, 1),
        "attempted": tally.attempted, "acknowledged": acked, "acknowledged_before_kill": acked_before,
        "acknowledged_by_action": dict(tally.acknowledged), "refused_by_server": dict(tally.refused),
        "transport_errors": tally.transport, "in_doubt": tally.in_doubt,
        "lost_writes": len(lost), "lost_examples": lost[:5],
        "audit_ok": sum(ok.values()), "audit_failed": sum(failed.values()),
        "audit_minus_acknowledged": sum(ok.values()) - acked,
        "audit_records_on_disk_after_kill": records_before,
        "verify_trail_exit": code, "verify_trail": verdict,
        "newest_event_before_restart": newest_before.isoformat() if newest_before else None,
        "clock_mark_before_restart": mark_before.isoformat() if mark_before else None,
        "clock_after_restart": clock_after.isoformat(),
        "virtual_ahead_of_wall_s": round((clock_after - wall_after).total_seconds(), 1),
        "clock_monotonic": newest_before is None or clock_after >= newest_before,
        "vpcs_made_before_crash": sum(v.created_before_crash for v in vpcs),
        "vpcs_made_before_crash_not_available": pending,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0, help="total load time (at most 600)")
    parser.add_argument("--kill-at", type=float, default=10.0, help="seconds of load before kill -9")
    parser.add_argument("--after", type=float, default=3.0, help="least seconds of load on the restarted server")
    parser.add_argument("--time-scale", type=float, default=100.0, help="virtual seconds per real second")
    parser.add_argument("--keep", action="store_true", help="keep the database and the server log")
    args = parser.parse_args()
    if not (1 <= args.threads <= 64 and 0 < args.kill_at < args.seconds <= 600):
        parser.error("need 1-64 threads and 0 < --kill-at < --seconds <= 600")
    folder = Path(tempfile.mkdtemp(prefix="stratus-load-crash-"))
    try:
        result = run(args, folder)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"machine: {machine()}")
    print(json.dumps(result, indent=2))
    if args.keep:
        print(f"kept: {folder}")
    ok = result["lost_writes"] == 0 and result["verify_trail_exit"] == 0 and result["clock_monotonic"]
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
