"""pgAdmin console: per-episode reset time (work database cloned from template1, globals cleaned)
alone and with a task's SQL Resource META requirements provisioned, small and large.

Needs PostgreSQL 15 + pgaudit (Debian) and pgAdmin (installed on first use). Attaches to a
console started by `consoleagent console up pgadmin` when given --state, else starts one.
Run: python bench/bench_pgadmin_reset.py [--repeats 5] [--state FILE]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from common import machine

from consoleagent.consoles import get_backend
from consoleagent.provisioning.engine import parse_requirements

SMALL = [{"name": "tab", "template": "table", "params": {"name": "items", "rows": 3}}]
LARGE = SMALL + [
    {"name": "fn", "template": "function", "params": {"name": "int_label", "arguments": "integer", "body": "SELECT $1::text"}},
    {"name": "gist", "template": "extension", "params": {"name": "btree_gist"}},
    {"name": "w", "template": "foreign_data_wrapper", "params": {"name": "files_fdw"}},
    {"name": "srv", "template": "foreign_server", "params": {"name": "remote1", "fdw": "${w.name}"}},
    {"name": "pub", "template": "publication", "params": {"name": "items_pub", "table": "public.items"}},
    {"name": "who", "template": "role", "params": {"name": "alice", "login": True}},
    {"name": "dump", "template": "backup_file", "params": {"table": "public.items", "file": "items.dump", "drop_table": False}},
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--state", type=Path, default=None)
    args = parser.parse_args()
    backend = get_backend("pgadmin", state=args.state) if args.state else get_backend("pgadmin")
    started = time.monotonic()
    backend.start()
    print(f"{machine()}\nconsole start: {time.monotonic() - started:.1f} s ({'attached' if args.state else 'started'})")
    try:
        rows = []
        for label, requirements in (("reset only", []), ("reset + small (1 table)", SMALL),
                                    (f"reset + large ({len(LARGE)} resources)", LARGE)):
            reqs = parse_requirements(requirements)
            seconds = []
            for _ in range(args.repeats):
                t0 = time.monotonic()
                backend.begin_episode("bench", reqs)
                seconds.append(time.monotonic() - t0)
            rows.append((label, statistics.median(seconds), min(seconds), max(seconds)))
        print(f"| episode start | median | min | max |   (n={args.repeats})\n|---|---:|---:|---:|")
        for label, median, low, high in rows:
            print(f"| {label} | {median * 1000:.0f} ms | {low * 1000:.0f} ms | {high * 1000:.0f} ms |")
    finally:
        backend.stop()


if __name__ == "__main__":
    main()
