"""Running one model-written stratus SDK script in the OS sandbox, and reading what it says.

The boundary is the kernel (``consoleagent.provisioning.jail``, console-agnostic; this module names
the stratus SDK's source for it): bubblewrap namespaces, uid 65534, a read-only view of the
Python installation with one writable scratch directory, no network but the console's API over a
Unix socket (``api_relay.py``), hard rlimits, and the whole process tree killed at the end. Inside,
``sandbox_runner.py`` adds an in-process guard that turns forbidden moves into readable errors for
the script writer (defence in depth, not the boundary).

What the child says is untrusted: stdout, stderr and its report pipe are size-capped and parsed
defensively, and nothing it writes to a file is read back. ``SandboxResult.ok`` only means "exited
0, reported outputs, no refusal on record"; whether anything was provisioned is decided by the
caller through the console's API (``ResourceCoder._verify``). When bwrap is missing or cannot build
namespaces, ``run`` raises ``SandboxUnavailable``: generated code never runs unsandboxed.
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
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from consoleagent.consoles.stratus.api_relay import ApiRelay
from consoleagent.provisioning import jail
from consoleagent.provisioning.jail import Limits, SandboxUnavailable

__all__ = ["DEFAULT_MODULES", "Sandbox", "SandboxResult", "SandboxUnavailable"]

RUNNER = Path(__file__).with_name("sandbox_runner.py")
DEFAULT_MODULES = ("stratus.sdk", "json", "time", "datetime", "math", "re", "ipaddress")
OUTPUT_LIMIT = 20_000  # characters of stdout/stderr kept (the tail)
REPORT_LIMIT = 256_000  # bytes of the report pipe read (the rest is drained and dropped)
KINDS = ("import", "write", "read", "process", "network", "native", "limits", "introspection", "memory",
         "exception", "contract")
_TEXT_LIMIT = 2_000  # characters of one reported error message kept


@dataclass
class SandboxResult:
    """How one script run went; ``error`` is person-readable (and what a script writer is shown).

    ``ok`` is not success: it says the child exited 0 with outputs and no refusal on record. The
    outputs are the child's claims, to be checked through the console's API.
    """

    ok: bool
    outputs: dict[str, Any] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    elapsed_s: float = 0.0
    kind: str | None = None  # one of KINDS, or timeout | cpu | crash | report
    exit_status: int | None = None
    violations: list[str] = field(default_factory=list)
    api_calls: int = 0
    api_refused: list[str] = field(default_factory=list)


def sdk_paths() -> tuple[str, ...]:
    """Where the ``stratus`` package lives (the directory holding it: an editable install keeps it in
    the source tree): bound read-only into the jail so the runner can import the SDK."""
    import stratus

    return tuple(os.path.dirname(os.path.realpath(p)) for p in stratus.__path__)


class Sandbox:
    """Runs one script at a time in a fresh scratch directory under ``scratch_root``."""

    def __init__(self, scratch_root: str | Path, *, timeout_s: float = 60, memory_mb: int = 512, cpu_s: int = 30,
                 file_mb: int = 16, max_processes: int = 32, scratch_mb: int = 64,
                 allowed_modules: tuple[str, ...] = DEFAULT_MODULES, keep_scratch: bool = False, python: str | None = None,
                 console: str | None = None) -> None:
        """``scratch_root`` holds each run's inputs (script, config, runner) while it runs, and after it
        with ``keep_scratch``; what the script writes stays in the jail's memory and vanishes with it."""
        self.scratch_root = Path(scratch_root)
        self.timeout_s = timeout_s
        self.limits = Limits(memory_mb=memory_mb, cpu_s=cpu_s, file_mb=file_mb, max_processes=max_processes,
                             scratch_mb=scratch_mb)
        self.allowed_modules = tuple(allowed_modules)
        self.keep_scratch = keep_scratch
        self.python = python or sys.executable
        self.console = console

    @classmethod
    def for_console(cls, scratch_root: str | Path, endpoint: str, **options: Any) -> "Sandbox":
        """A sandbox whose only reachable address is the console API at ``endpoint``."""
        return cls(scratch_root, **options).with_console(endpoint)

    def with_console(self, endpoint: str) -> "Sandbox":
        """The same sandbox relaying to the console API at ``endpoint`` (one account's console)."""
        clone = copy.copy(self)
        clone.console = endpoint
        return clone

    @staticmethod
    def ensure_available() -> None:
        """Raise ``SandboxUnavailable`` (saying why) unless the OS sandbox works on this machine."""
        jail.probe()

    def run(self, script: str, env: dict[str, str] | None = None, params: dict[str, Any] | None = None) -> SandboxResult:
        """Run ``script`` in the jail; ``env`` carries STRATUS_ACCESS_KEY_ID / _ACCESS_KEY_SECRET / _REGION
        (and STRATUS_ENDPOINT when the sandbox has no console) for its client."""
        jail.probe()
        run_dir = self.scratch_root / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
        run_dir.mkdir(parents=True, mode=0o700)
        socket_dir = Path(tempfile.mkdtemp(prefix="sbx-"))  # short: a Unix socket path has ~100 bytes
        try:
            return self._run_in(run_dir.resolve(), socket_dir / "api.sock", script, env or {}, params or {})
        finally:
            shutil.rmtree(socket_dir, ignore_errors=True)
            if not self.keep_scratch:
                shutil.rmtree(run_dir, ignore_errors=True)

    def _prepare(self, run_dir: Path, socket: Path, script: str, env: dict[str, str], params: dict[str, Any],
                 report_fd: int) -> jail.Layout:
        """The run's inputs, read-only inside (the scratch directory is a tmpfs of the jail's own)."""
        inputs = run_dir / "in"
        inputs.mkdir(mode=0o755)
        shutil.copyfile(RUNNER, inputs / "sandbox_runner.py")
        (inputs / "script.py").write_text(script, encoding="utf-8")
        config = {"inputs": jail.INSIDE_IN, "scratch": jail.INSIDE_SCRATCH, "allowed_modules": list(self.allowed_modules), "params": params,
                  "report_fd": report_fd, "access_key_id": env.get("STRATUS_ACCESS_KEY_ID"),
                  "access_key_secret": env.get("STRATUS_ACCESS_KEY_SECRET"), "region": env.get("STRATUS_REGION")}
        (inputs / "config.json").write_text(json.dumps(config), encoding="utf-8")
        for path in (inputs / "sandbox_runner.py", inputs / "script.py", inputs / "config.json"):
            path.chmod(0o644)  # readable by the jail's uid; the run directory itself stays 0700
        return jail.Layout(inputs=inputs, socket=socket, packages=sdk_paths())

    def _run_in(self, run_dir: Path, socket: Path, script: str, env: dict[str, str], params: dict[str, Any]) -> SandboxResult:
        endpoint = self.console or env.get("STRATUS_ENDPOINT")
        key_id = env.get("STRATUS_ACCESS_KEY_ID", "")
        relay = ApiRelay(socket, endpoint, key_id) if endpoint and key_id else None
        if relay is None:
            socket.touch()  # the bind needs a path; the runner gets no key and builds no client
            env = {}
        read_end, write_end = os.pipe()
        filter_fd = jail.seccomp_fd()
        open_fds = {read_end, write_end} | ({filter_fd} if filter_fd is not None else set())
        try:
            layout = self._prepare(run_dir, socket, script, env, params, write_end)
            argv = jail.command(layout, self.limits, [self.python, "-I", "-B", f"{jail.INSIDE_IN}/sandbox_runner.py",
                                                      f"{jail.INSIDE_IN}/config.json"], filter_fd)
            if relay is not None:
                relay.start()
            result = self._execute(argv, read_end, write_end, open_fds)
        finally:
            for fd in open_fds:
                _close(fd)
            if relay is not None:
                relay.close()
        if relay is not None:
            result.api_calls, result.api_refused = relay.relayed, list(relay.refused)
        return result

    def _execute(self, argv: list[str], read_end: int, write_end: int, open_fds: set[int]) -> SandboxResult:
        """Start the jail, collect its (capped) output, kill it at the time limit, judge how it ended."""
        child_env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "HOME": jail.INSIDE_SCRATCH}
        began = time.monotonic()
        process = subprocess.Popen(argv, env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, pass_fds=tuple(open_fds - {read_end}), start_new_session=True)
        os.close(write_end)  # only the child holds the write end now: EOF comes when the jail is gone
        open_fds.discard(write_end)
        report = os.fdopen(read_end, "rb", closefd=False)
        assert process.stdout is not None and process.stderr is not None
        readers = [_Reader(process.stdout, OUTPUT_LIMIT, tail=True), _Reader(process.stderr, OUTPUT_LIMIT, tail=True),
                   _Reader(report, REPORT_LIMIT, tail=False)]
        try:
            process.wait(timeout=self.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process.pid)  # bwrap dies; --die-with-parent and the pid namespace take the rest
            process.wait()
        stdout, stderr, report_bytes = (reader.result() for reader in readers)
        result = SandboxResult(ok=False, stdout=_text(stdout), stderr=_text(stderr), elapsed_s=time.monotonic() - began,
                               exit_status=None if timed_out else process.returncode)
        if timed_out:
            result.error, result.kind = f"the script ran past its {self.timeout_s:g} s limit and was killed", "timeout"
            return result
        return judge(result, report_bytes, self.limits)


def judge(result: SandboxResult, report: bytes, limits: Limits) -> SandboxResult:
    """Decide how the run ended from its exit status and its report, trusting neither to be well-formed:
    any refusal on record or a non-zero exit is a failure whatever the report claims."""
    violations, claimed = _parse_report(report)
    result.violations = [f"{kind}: {message}" for kind, message in violations]
    if violations:
        result.kind, result.error = violations[0]
        return result
    if result.exit_status != 0:
        result.kind, result.error = _exit_reason(result, claimed, limits)
        return result
    if claimed is None:
        result.kind, result.error = "report", "the script exited without reporting a result"
        return result
    if not claimed.get("ok") or not isinstance(claimed.get("outputs"), dict):
        result.kind = _kind(claimed.get("kind"))
        result.error = _clip(claimed.get("error")) or "the script reported a failure"
        return result
    result.ok, result.outputs = True, claimed["outputs"]
    return result


def _parse_report(report: bytes) -> tuple[list[tuple[str, str]], dict[str, Any] | None]:
    """Violations (in order) and the last result record; malformed lines are ignored."""
    violations: list[tuple[str, str]] = []
    claimed: dict[str, Any] | None = None
    for line in report.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("type") == "violation":
            violations.append((_kind(record.get("kind")), _clip(record.get("message")) or "a refused operation"))
        elif record.get("type") == "result":
            claimed = record
    return violations, claimed


def _exit_reason(result: SandboxResult, claimed: dict[str, Any] | None, limits: Limits) -> tuple[str, str]:
    """Why the child exited non-zero (bwrap reports a signal as 128 + its number)."""
    status = result.exit_status
    if status == 128 + signal.SIGXCPU:
        return "cpu", f"the script used more than its {limits.cpu_s} s of CPU and was killed"
    if status == 128 + signal.SIGKILL or "MemoryError" in result.stderr:
        return "memory", "memory limit exceeded"
    if claimed is not None and claimed.get("error"):
        return _kind(claimed.get("kind")), _clip(claimed.get("error"))
    last = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit status {status}"
    return "crash", f"the sandbox process failed: {_clip(last)}"


def _kind(value: Any) -> str:
    return value if isinstance(value, str) and value in KINDS else "exception"


def _clip(value: Any) -> str:
    return value[:_TEXT_LIMIT] if isinstance(value, str) else ""


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class _Reader:
    """Drains one pipe in a thread, keeping at most ``limit`` bytes (the head, or the tail)."""

    def __init__(self, stream: IO[bytes], limit: int, *, tail: bool) -> None:
        self.stream, self.limit, self.tail = stream, limit, tail
        self.kept = bytearray()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        try:
            while chunk := self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536):
                if self.tail:
                    self.kept = (self.kept + chunk)[-self.limit:]
                elif len(self.kept) < self.limit:
                    self.kept += chunk[: self.limit - len(self.kept)]
        except (OSError, ValueError):
            pass

    def result(self) -> bytes:
        self.thread.join(timeout=5)  # the jail is dead: the write ends are closed
        return bytes(self.kept)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
