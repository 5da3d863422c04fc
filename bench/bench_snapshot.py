"""Resetting an account: snapshot restore against re-creating its resources through the API.

Builds an account holding N resources (default 50: VPCs, vSwitches, security groups and rules,
disks, EIPs), snapshots it, then compares in one run:
  restore   admin restore of the snapshot (delete + bulk insert of the account's rows)
  recreate  deleting the resources and creating them again through the signed API, with the
            asynchronous states advanced by a x1000 clock (so waits barely count: the ratio is a
            lower bound on the real saving, where Pending→Available takes seconds).
Run: python bench/bench_snapshot.py [--resources 50] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

from common import machine, start_server, tenant

from stratus.sdk import Client


def build(client: Client, target: int) -> list[tuple[str, str, dict[str, Any]]]:
    """Create about ``target`` resources; returns (kind, id, params) in creation order."""
    made: list[tuple[str, str, dict[str, Any]]] = []
    i = 0
    while len(made) < target:
        vpc_params = {"VpcName": f"bench-{i}", "CidrBlock": "10.0.0.0/8"}
        vpc = client.call("vpc", "CreateVpc", **vpc_params)["VpcId"]
        made.append(("vpc", vpc, vpc_params))
        client.wait_for(vpc, "Available", timeout=30, interval=0.01)
        for j in range(3):
            params = {"VpcId": vpc, "ZoneId": "cn-hangzhou-h", "CidrBlock": f"10.{j}.0.0/16", "VSwitchName": f"sw-{i}-{j}"}
            made.append(("vswitch", client.call("vpc", "CreateVSwitch", **params)["VSwitchId"], params))
        sg_params = {"VpcId": vpc, "SecurityGroupName": f"sg-{i}"}
        sg = client.call("ecs", "CreateSecurityGroup", **sg_params)["SecurityGroupId"]
        made.append(("sg", sg, sg_params))
        for port in (22, 80, 443):
            client.call("ecs", "AuthorizeSecurityGroup", SecurityGroupId=sg, IpProtocol="TCP", PortRange=f"{port}/{port}",
                        SourceCidrIp="0.0.0.0/0")
            made.append(("rule", sg, {"port": port}))
        disk_params = {"ZoneId": "cn-hangzhou-h", "DiskCategory": "cloud_essd", "Size": 40}
        made.append(("disk", client.call("ecs", "CreateDisk", **disk_params)["DiskId"], disk_params))
        made.append(("eip", client.call("vpc", "AllocateEipAddress", Bandwidth=5)["AllocationId"], {}))
        i += 1
    return made


def recreate(client: Client) -> None:
    """Tear down everything through the API and build the same estate again."""
    disks = [d["DiskId"] for d in client.paginate("ecs", "DescribeDisks", "Disks")]
    for disk in disks:
        client.wait_for(disk, "Available", timeout=30, interval=0.01)
        client.call("ecs", "DeleteDisk", DiskId=disk)
    for eip in [e["AllocationId"] for e in client.paginate("vpc", "DescribeEipAddresses", "EipAddresses")]:
        client.call("vpc", "ReleaseEipAddress", AllocationId=eip)
    for sg in [g["SecurityGroupId"] for g in client.paginate("ecs", "DescribeSecurityGroups", "SecurityGroups")]:
        client.call("ecs", "DeleteSecurityGroup", SecurityGroupId=sg)
    for vsw in [v["VSwitchId"] for v in client.paginate("vpc", "DescribeVSwitches", "VSwitches")]:
        client.call("vpc", "DeleteVSwitch", VSwitchId=vsw)
    for vpc in [v["VpcId"] for v in client.paginate("vpc", "DescribeVpcs", "Vpcs")]:
        client.call("vpc", "DeleteVpc", VpcId=vpc)


def timed(fn: Callable[[], Any], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--resources", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    url, server = start_server(time_scale=1000.0)
    admin, creds, client = tenant(url, "snap")
    made = build(client, args.resources)
    snap = admin.snapshot(creds["account_id"])
    print(f"machine: {machine()}")
    print(f"account holds {len(made)} resources ({snap['rows']} rows with identity)")

    def via_api() -> None:
        recreate(client)
        build(client, args.resources)

    api = timed(via_api, args.repeats)
    restore = timed(lambda: admin.restore(snap["snapshot_id"]), args.repeats)
    server_side = [admin.restore(snap["snapshot_id"])["elapsed_ms"] for _ in range(args.repeats)]
    api_ms, restore_ms = statistics.median(api) * 1000, statistics.median(restore) * 1000
    print(f"re-create through the API  median {api_ms:9.1f} ms")
    print(f"snapshot restore (HTTP)    median {restore_ms:9.1f} ms  (server-side {statistics.median(server_side):.1f} ms)")
    print(f"ratio                      {api_ms / restore_ms:9.1f}x")
    server.stop()


if __name__ == "__main__":
    main()
