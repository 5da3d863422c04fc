"""A restricted subprocess for provisioning scripts that an LLM wrote.

What it is: a separate Python process (``python -I -B``: no user site, no PYTHONPATH, no bytecode
writes; a fresh scratch directory as its working directory; a minimal environment; its own
process group) that lowers its own rlimits (address space, CPU seconds, file size, open files, no
core dumps), installs a ``sys.addaudithook`` hook and then runs the script with an import fence.
The hook refuses: opening files for writing, and path operations (remove, rename, mkdir, chmod,
links...), outside the scratch directory; reading files outside scratch, the Python installation
and the directories on ``sys.path``; starting, forking or signalling processes; non-IP sockets,
listening sockets, and connections or datagrams to anything but the console API's host:port;
ctypes/cffi; raising the limits again; walking the garbage collector's object lists (which
would reach the hook). The fence lets the script's own ``import``
statements reach only the allow-list (the SDK and a few pure standard modules); the SDK's
internal imports work as usual. A refusal is recorded before it is raised, so a script that
catches it still fails. The parent kills the whole process group at the wall-clock limit.

What it is not: a kernel-level jail. There are no namespaces, seccomp filters, cgroups or separate
user, and audit hooks are a CPython debugging mechanism, not a security boundary against hostile
code. A determined script can reach already-imported modules through object introspection (the
import fence is then bypassed, though the audited effects above are still refused); it can defeat
the hook itself by monkeypatching what the hook's Python code calls (the runner's classes, reached
through ``object.__subclasses__()``, ``builtins.isinstance``, the runner's module constants), since
plain attribute writes are not audited; native code in already-loaded extension modules is not watched; it can use CPU and
memory up to the limits and read what the process can reach through descriptors that were open
before the hook. RLIMIT_NPROC is not used (it counts all of the user's processes), so process
creation is stopped by the hook alone. This keeps well-meaning but wrong generated code (what
ResourceCoder runs) from touching the host, other hosts or other accounts; for code you do not
trust, also run the worker in a container or VM.
"""

from __future__ import annotations

import copy
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

RUNNER = Path(__file__).with_name("sandbox_runner.py")
DEFAULT_MODULES = ("stratus.sdk", "json", "time", "datetime", "math", "re", "ipaddress")
_OUTPUT_LIMIT = 20_000  # characters of stdout/stderr kept


@dataclass
class SandboxResult:
    """How one script run went; ``error`` is person-readable (and what a script writer is shown)."""

    ok: bool
    outputs: dict[str, Any] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    elapsed_s: float = 0.0
    kind: str | None = None  # import | write | read | process | network | native | limits | timeout | cpu | memory | exception | contract


class Sandbox:
    """Runs one script at a time in a fresh scratch directory under ``scratch_root``."""

    def __init__(self, scratch_root: str | Path, *, timeout_s: float = 60, memory_mb: int = 512, cpu_s: int = 30,
                 allowed_hosts: list[tuple[str, int]] | None = None, allowed_modules: tuple[str, ...] = DEFAULT_MODULES,
                 file_mb: int = 16, keep_scratch: bool = False, python: str | None = None) -> None:
        self.scratch_root = Path(scratch_root)
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.cpu_s = cpu_s
        self.allowed_hosts = list(allowed_hosts or [])
        self.allowed_modules = tuple(allowed_modules)
        self.file_mb = file_mb
        self.keep_scratch = keep_scratch
        self.python = python or sys.executable

    @classmethod
    def for_console(cls, scratch_root: str | Path, endpoint: str, **options: Any) -> "Sandbox":
        """A sandbox whose only reachable host is the console API at ``endpoint``."""
        return cls(scratch_root, **options).with_console(endpoint)

    def with_console(self, endpoint: str) -> "Sandbox":
        """The same sandbox whose only reachable host is the console API at ``endpoint`` (one account's console)."""
        parts = urlsplit(endpoint)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        clone = copy.copy(self)
        clone.allowed_hosts = [(parts.hostname or "127.0.0.1", port)]
        return clone

    def run(self, script: str, env: dict[str, str] | None = None, params: dict[str, Any] | None = None) -> SandboxResult:
        """Run ``script``; ``env`` carries STRATUS_ENDPOINT / _ACCESS_KEY_ID / _ACCESS_KEY_SECRET / _REGION for its client."""
        scratch = self.scratch_root / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
        scratch.mkdir(parents=True)
        try:
            return self._run_in(scratch.resolve(), script, env or {}, params or {})
        finally:
            if not self.keep_scratch:
                shutil.rmtree(scratch, ignore_errors=True)

    def _run_in(self, scratch: Path, script: str, env: dict[str, str], params: dict[str, Any]) -> SandboxResult:
        (scratch / "script.py").write_text(script, encoding="utf-8")
        config = {"scratch": str(scratch), "allowed_hosts": self.allowed_hosts, "allowed_modules": list(self.allowed_modules),
                  "memory_mb": self.memory_mb, "cpu_s": self.cpu_s, "file_mb": self.file_mb, "params": params}
        config_path = scratch / "config.json"
        config_path.write_text(json.dumps(config), encoding="utf-8")
        child_env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", **env}
        began = time.monotonic()
        process = subprocess.Popen([self.python, "-I", "-B", str(RUNNER), str(config_path)], cwd=scratch, env=child_env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace", start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=self.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            stdout, stderr = process.communicate()
            timed_out = True
        elapsed = time.monotonic() - began
        _kill_group(process.pid)  # anything the script left behind in its group
        result = SandboxResult(ok=False, stdout=stdout[-_OUTPUT_LIMIT:], stderr=stderr[-_OUTPUT_LIMIT:], elapsed_s=elapsed)
        if timed_out:
            result.error, result.kind = f"the script ran past its {self.timeout_s:g} s limit and was killed", "timeout"
            return result
        return self._read_result(scratch, process.returncode, result)

    def _read_result(self, scratch: Path, returncode: int, result: SandboxResult) -> SandboxResult:
        try:
            data = json.loads((scratch / "result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            result.error, result.kind = self._crash_reason(returncode, result.stderr)
            return result
        result.ok = bool(data.get("ok"))
        result.outputs = data.get("outputs") or {}
        result.error, result.kind = data.get("error"), data.get("kind")
        return result

    def _crash_reason(self, returncode: int, stderr: str) -> tuple[str, str]:
        """Why the child died without writing a result."""
        if returncode == -signal.SIGXCPU:
            return f"the script used more than its {self.cpu_s} s of CPU and was killed", "cpu"
        if "MemoryError" in stderr or returncode == -signal.SIGKILL:  # SIGKILL: the kernel's OOM killer
            return "memory limit exceeded", "memory"
        last = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {returncode}"
        return f"the sandbox process failed: {last}", "crash"


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
