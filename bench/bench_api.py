"""API throughput on one Uvicorn worker with SQLite: signed SDK calls over real HTTP.

Every call is authenticated (HMAC), validated, executed, audited into the hash chain and
committed, so this is the real per-call cost. Run: python bench/bench_api.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import machine, start_server, tenant


def measure(fn, seconds: float) -> tuple[float, list[float]]:  # noqa: ANN001
    latencies: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        fn()
        latencies.append(time.perf_counter() - started)
    return len(latencies) / sum(latencies), latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each phase")
    args = parser.parse_args()
    url, server = start_server()
    _, _, client = tenant(url, "bench")
    vpc = client.call("vpc", "CreateVpc", VpcName="bench", CidrBlock="10.0.0.0/8")["VpcId"]
    counter = iter(range(10**9))
    phases = {
        "read  vpc/DescribeVpcs": lambda: client.call("vpc", "DescribeVpcs"),
        "write vpc/ModifyVpcAttribute": lambda: client.call("vpc", "ModifyVpcAttribute", VpcId=vpc, Description=f"d{next(counter)}"),
        "write vpc/CreateVpc+DeleteVpc (2 calls)": lambda: client.call(
            "vpc", "DeleteVpc", VpcId=client.call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12")["VpcId"]),
    }
    print(f"machine: {machine()}")
    print(f"{'phase':44s} {'calls/s':>8s} {'p50 ms':>7s} {'p95 ms':>7s}")
    for name, fn in phases.items():
        time.sleep(0.1)
        rate, lat = measure(fn, args.seconds)
        calls = 2 if "2 calls" in name else 1
        lat_ms = sorted(x * 1000 / calls for x in lat)
        print(f"{name:44s} {rate * calls:8.0f} {statistics.median(lat_ms):7.2f} {lat_ms[int(len(lat_ms) * 0.95)]:7.2f}")
    server.stop()


if __name__ == "__main__":
    main()
