"""ResourceCoder's sandbox, with real subprocesses: what a provisioning script may not do (write
outside scratch, import beyond the SDK, start processes, reach other hosts, read the host's files,
run away with CPU, wall-clock time or memory) and what it may (call the console API through the SDK)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from consoleagent.provisioning.sandbox import Sandbox
from stratus.sdk import Client


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path / "scratch", timeout_s=20, cpu_s=10, allowed_hosts=[("127.0.0.1", 9)])


def test_a_plain_script_returns_its_outputs_and_output(sandbox: Sandbox) -> None:
    result = sandbox.run("import json, math, re\nprint('working')\noutputs['answer'] = json.loads('[42]')[0]\n"
                         "outputs['size'] = params['size'] * 2\n", params={"size": 21})
    assert result.ok, result.error
    assert result.outputs == {"answer": 42, "size": 42}
    assert "working" in result.stdout


def test_files_may_be_written_in_scratch_but_not_outside(sandbox: Sandbox, tmp_path: Path) -> None:
    inside = sandbox.run("open('notes.txt', 'w').write('kept')\noutputs['read'] = open('notes.txt').read()")
    assert inside.ok and inside.outputs == {"read": "kept"}
    target = tmp_path / "escaped.txt"
    outside = sandbox.run(f"open({str(target)!r}, 'w').write('x')")
    assert not outside.ok and outside.kind == "write"
    assert outside.error == f"write to {target} outside the scratch directory is not allowed"
    assert not target.exists()
    passwd = sandbox.run("open('/etc/passwd', 'a')")
    assert passwd.error == "write to /etc/passwd outside the scratch directory is not allowed"
    traversal = sandbox.run("open('../../escaped2.txt', 'w')")
    assert traversal.kind == "write" and not (tmp_path / "escaped2.txt").exists()


def test_a_refusal_the_script_swallows_still_fails_the_run(sandbox: Sandbox, tmp_path: Path) -> None:
    result = sandbox.run(f"try:\n    open({str(tmp_path / 'x')!r}, 'w')\nexcept Exception:\n    pass\noutputs['fine'] = True")
    assert not result.ok and result.kind == "write" and result.outputs == {}


def test_reading_the_hosts_files_is_refused(sandbox: Sandbox) -> None:
    result = sandbox.run("outputs['p'] = open('/etc/passwd').read()")
    assert not result.ok and result.kind == "read" and "/etc/passwd" in result.error


@pytest.mark.parametrize("statement, module", [
    ("import os", "os"),
    ("import subprocess", "subprocess"),
    ("from os import path", "os"),
    ('__import__("socket")', "socket"),
    ("import stratus.app", "stratus.app"),
    ("from stratus import core", "stratus.core"),
])
def test_the_script_may_import_only_the_sdk_and_a_few_pure_modules(sandbox: Sandbox, statement: str, module: str) -> None:
    result = sandbox.run(statement)
    assert not result.ok and result.kind == "import"
    assert result.error.startswith(f"import of {module!r} is not allowed")


def test_the_sdk_and_the_allowed_modules_import(sandbox: Sandbox) -> None:
    result = sandbox.run("from stratus.sdk import Client, NotFoundError\nfrom stratus import sdk\nimport datetime, time, ipaddress\n"
                         "outputs['ok'] = Client is sdk.Client")
    assert result.ok and result.outputs == {"ok": True}, result.error


def test_processes_cannot_be_started_even_through_introspection(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    gadget = "real = print.__self__.__import__\n"  # the real builtins, reached around the import fence
    for call in (f"real('subprocess').run(['touch', {str(marker)!r}])", f"real('os').system('touch {marker}')",
                 "real('os').fork()", f"real('os').execv('/usr/bin/touch', ['touch', {str(marker)!r}])"):
        result = sandbox.run(gadget + call)
        assert not result.ok and result.kind == "process", (call, result.error)
        assert "is not allowed" in result.error
    assert not marker.exists()


def test_only_the_console_api_can_be_reached(sandbox: Sandbox) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted: list[Any] = []
    listener.settimeout(3)
    thread = threading.Thread(target=lambda: _accept(listener, accepted))
    thread.start()
    try:
        local = sandbox.run(f"print.__self__.__import__('socket').create_connection(('127.0.0.1', {port}), timeout=2)")
        remote = sandbox.run("print.__self__.__import__('socket').create_connection(('10.1.2.3', 80), timeout=2)")
    finally:
        thread.join()
        listener.close()
    assert not local.ok and local.kind == "network"
    assert local.error.startswith(f"connection to 127.0.0.1:{port} is not allowed: only the console API")
    assert remote.error.startswith("connection to 10.1.2.3:80 is not allowed: only the console API")
    assert accepted == []  # nothing ever connected


def _accept(listener: socket.socket, accepted: list[Any]) -> None:
    try:
        accepted.append(listener.accept())
    except OSError:
        pass


def test_native_code_raising_the_limits_and_walking_the_heap_are_refused(sandbox: Sandbox) -> None:
    ctypes = sandbox.run("print.__self__.__import__('ctypes')")
    assert ctypes.kind == "native"
    limits = sandbox.run("r = print.__self__.__import__('resource')\nr.setrlimit(r.RLIMIT_AS, (-1, -1))")
    assert limits.kind == "limits"
    walk = sandbox.run("print.__self__.__import__('gc').get_objects()")
    assert walk.kind == "introspection"


def test_a_runaway_loop_is_killed_at_the_wall_clock_limit(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "scratch", timeout_s=2, cpu_s=30)
    result = sandbox.run("import time\nwhile True:\n    time.sleep(0.05)\n")
    assert not result.ok and result.kind == "timeout"
    assert result.error == "the script ran past its 2 s limit and was killed"
    assert 2 <= result.elapsed_s < 6


def test_a_busy_loop_is_killed_at_the_cpu_limit(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "scratch", timeout_s=20, cpu_s=1)
    result = sandbox.run("while True:\n    pass\n")
    assert not result.ok and result.kind == "cpu" and result.elapsed_s < 15
    assert "more than its 1 s of CPU" in result.error


@pytest.mark.parametrize("script", ["x = 'a' * (4 * 1024 ** 3)", "x = []\nwhile True:\n    x.append(bytearray(10 ** 7))"])
def test_a_memory_blow_up_is_stopped(sandbox: Sandbox, script: str) -> None:
    result = sandbox.run(script)
    assert not result.ok and result.kind == "memory" and result.error == "memory limit exceeded"


def test_a_failing_script_reports_the_error_and_line(sandbox: Sandbox) -> None:
    result = sandbox.run("import json\n\njson.loads('{')\n")
    assert not result.ok and result.kind == "exception"
    assert result.error.startswith("JSONDecodeError:") and "script line 3" in result.error
    assert "Traceback" in result.stderr


def test_the_scratch_directory_is_removed_after_the_run(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "scratch")
    sandbox.run("open('big.txt', 'w').write('x' * 1000)")
    assert list((tmp_path / "scratch").iterdir()) == []


def test_the_sdk_creates_a_vpc_through_the_console_api(live_server: Any, tmp_path: Path) -> None:
    creds = live_server.admin.create_account("sandboxed", password="Passw0rd!2026", balance_cents=100_000)
    sandbox = Sandbox.for_console(tmp_path / "scratch", live_server.url, timeout_s=30)
    script = ("vpc = client.call('vpc', 'CreateVpc', VpcName=params['name'], CidrBlock='10.0.0.0/8')\n"
              "client.wait_for(vpc['VpcId'], 'Available', timeout=20)\n"
              "outputs['vpc_id'] = vpc['VpcId']\noutputs['region'] = client.region\n")
    env = {"STRATUS_ENDPOINT": live_server.url, "STRATUS_ACCESS_KEY_ID": creds["provisioner_key_id"],
           "STRATUS_ACCESS_KEY_SECRET": creds["provisioner_key_secret"]}
    result = sandbox.run(script, env, params={"name": "from-sandbox"})
    assert result.ok, result.error + result.stderr
    assert result.outputs["vpc_id"].startswith("vpc-") and result.outputs["region"] == "cn-hangzhou"
    tenant = Client(live_server.url, creds["access_key_id"], creds["access_key_secret"])
    assert tenant.get_resource(result.outputs["vpc_id"])["Status"] == "Available"
    events = tenant.call("actiontrail", "LookupEvents", EventName="CreateVpc")["Events"]
    assert [e["actor"] for e in events] == ["provisioner"]  # never counted as the agent's work
    assert events[0]["requestParameters"]["VpcName"] == "from-sandbox"
