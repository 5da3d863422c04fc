"""The program that runs inside the jail (see ``consoleagent.provisioning.jail`` and ``sandbox.py`` for the whole picture).

Started as ``python -I -B /sandbox/in/sandbox_runner.py /sandbox/in/config.json`` as uid 65534 in
its own namespaces, with hard rlimits already set. It builds the SDK client (HTTP over the
console's Unix socket), installs an in-process guard, runs the script with an import fence and
reports on a pipe the parent gave it (``report_fd``): one JSON line per refusal, written the
moment it happens, and one JSON line with the script's ``outputs`` at the end. It imports only the
standard library and the SDK, so it does not drag consoleagent into the jail.

The guard is defence in depth and a teacher, not the boundary: it turns what a provisioning
script has no business doing (imports beyond the SDK, writes outside scratch, processes, sockets
other than the API's, native code) into clear errors the script writer can learn from. Everything
here, the guard and the report included, runs in the script's own process and can be subverted by
it; the parent therefore treats the report as untrusted hints and decides success by asking the
console's API (see ``resourcecoder.py``).
"""

from __future__ import annotations

import builtins
import json
import os
import signal
import socket
import sys
import traceback
from typing import Any, Callable, TextIO

API_SOCKET = "/sandbox/api.sock"
API_BASE_URL = "http://console"  # the host name is never resolved: the transport is the Unix socket
_PROCESS_EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.Popen",
                   "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill")
_PATH_EVENTS = {  # event -> indexes of the path arguments that must lie inside the scratch directory
    "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.chmod": (0,), "os.chown": (0,), "os.utime": (0,),
    "os.rename": (0, 1), "os.truncate": (0,), "os.chdir": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
    "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.copytree": (1,), "shutil.move": (0, 1),
}
_DNS_EVENTS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo")
_NEVER_IMPORT = ("ctypes", "_ctypes", "cffi", "_cffi_backend")
_READ_FILES = ("/etc/localtime", "/dev/null", "/dev/urandom")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_OBJECT_WALKS = ("gc.get_objects", "gc.get_referrers", "gc.get_referents")


class SandboxViolation(PermissionError):
    """The script tried something the sandbox refuses; ``kind`` says which rule."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Guard:
    """The audit hook: one check per kind of effect (files, processes, network, native code).

    Each refusal is sent to ``report`` before it is raised, so a script that swallows it, or later
    forges its result, still fails: the parent already has the record.
    """

    def __init__(self, scratch: str, read_roots: list[str], report: Callable[[str, str], None]) -> None:
        self._realpath, self._join, self._getcwd, self._fsdecode = os.path.realpath, os.path.join, os.getcwd, os.fsdecode
        self.scratch = self._realpath(scratch)
        self.read_roots = [self._realpath(r) for r in read_roots if r]
        self.report = report
        self.violations: list[SandboxViolation] = []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event in _OBJECT_WALKS:
            self._refuse("introspection", f"introspection ({event}) is not allowed in the sandbox")
        elif event == "open":
            self._check_open(args)
        elif event in _PATH_EVENTS:
            for index in _PATH_EVENTS[event]:
                self._check_write_path(args[index] if index < len(args) else None, event)
        elif event in ("os.symlink", "os.link"):  # (mkfifo and mknod raise no audit event: the jail stops them)
            self._refuse("write", f"creating links ({event}) is not allowed in the sandbox")
        elif event.startswith(_PROCESS_EVENTS):
            self._refuse("process", f"starting or signalling processes ({event}) is not allowed in the sandbox")
        elif event.startswith("ctypes.") or (event == "import" and args[0].split(".")[0] in _NEVER_IMPORT):
            self._refuse("native", "native code (ctypes/cffi) is not allowed in the sandbox")
        elif event in ("resource.setrlimit", "resource.prlimit", "sys.addaudithook"):
            self._refuse("limits", f"changing the sandbox's limits ({event}) is not allowed")
        elif event in _DNS_EVENTS:
            self._refuse("network", f"name lookups ({event}) are not allowed: the console API is the only address")
        elif event.startswith("socket."):
            self._check_socket(event, args)

    def _refuse(self, kind: str, message: str) -> None:
        violation = SandboxViolation(kind, message)
        self.violations.append(violation)
        self.report(kind, message)
        raise violation

    def _inside(self, path: str, roots: list[str]) -> bool:
        return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)

    def _real(self, path: Any) -> str | None:
        if isinstance(path, int) or path is None:
            return None  # an already-open descriptor (the jail's mounts decide what it may do)
        if isinstance(path, bytes):
            path = self._fsdecode(path)
        return self._realpath(self._join(self._getcwd(), os.fspath(path)))

    def _check_open(self, args: tuple[Any, ...]) -> None:
        path, mode, flags = (list(args) + [None, None, None])[:3]
        real = self._real(path)
        if real is None:
            return
        writing = (isinstance(flags, int) and flags & _WRITE_FLAGS) or (isinstance(mode, str) and any(c in mode for c in "wax+"))
        if writing:
            if not self._inside(real, [self.scratch]):
                self._refuse("write", f"write to {real} outside the scratch directory is not allowed")
        elif not (self._inside(real, [self.scratch, *self.read_roots]) or real in _READ_FILES):
            self._refuse("read", f"reading {real} is not allowed: only the scratch directory and the Python installation")

    def _check_write_path(self, path: Any, event: str) -> None:
        real = self._real(path)
        if real is not None and not self._inside(real, [self.scratch]):
            self._refuse("write", f"{event} on {real} outside the scratch directory is not allowed")

    def _check_socket(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "socket.__new__":
            family = args[1] if len(args) > 1 else None
            if family not in (socket.AF_UNIX, -1, None):
                self._refuse("network", f"socket family {family} is not allowed: only the console API")
        elif event == "socket.bind":
            self._refuse("network", "listening sockets are not allowed in the sandbox")
        elif event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            address = args[-1] if event != "socket.connect" else args[1]
            if event == "socket.sendmsg" and address is None:
                return  # on a connected socket: the connect was checked
            if address != API_SOCKET:
                shown = f"{address[0]}:{address[1]}" if isinstance(address, tuple) and len(address) >= 2 else repr(address)
                self._refuse("network", f"connection to {shown} is not allowed: only the console API")


def make_import(allowed_modules: list[str], guard: Guard) -> Any:
    """An ``__import__`` for the script's own import statements: only the allow-list (and its submodules).

    The SDK's own imports go through the real ``__import__`` (its module globals are not the script's).
    """
    real_import = builtins.__import__

    def permitted(name: str) -> bool:
        return any(name == m or name.startswith(m + ".") for m in allowed_modules)

    def refuse(module: str) -> None:
        guard._refuse("import", f"import of {module!r} is not allowed: only {', '.join(allowed_modules)} "
                      "can be imported in the sandbox")

    def guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level:
            guard._refuse("import", "relative imports are not allowed in the sandbox")
        if not permitted(name):
            parent_of_allowed = any(m.startswith(name + ".") for m in allowed_modules)
            if not (fromlist and parent_of_allowed):
                refuse(name)
            for item in fromlist:
                if not permitted(f"{name}.{item}"):
                    refuse(f"{name}.{item}")
        return real_import(name, globals, locals, fromlist, level)

    return guarded_import


def make_client(config: dict[str, Any]) -> Any:
    """The ready SDK client the script receives (None when the run has no console): HTTP over the socket."""
    key_id, secret = config.get("access_key_id"), config.get("access_key_secret")
    if not (key_id and secret and os.path.exists(API_SOCKET)):
        return None
    import httpx2
    from stratus.sdk import Client

    return Client(API_BASE_URL, key_id, secret, region=config.get("region") or "cn-hangzhou",
                  transport=httpx2.HTTPTransport(uds=API_SOCKET))


def preload(modules: list[str]) -> None:
    """Import the allowed modules before the guard is installed: their import-time code (which may
    inspect frames, as typing and SQLAlchemy do) runs unguarded; the script then finds them loaded."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def read_roots(inputs: str) -> list[str]:
    """Where the interpreter, the SDK's code and the run's inputs may be read from."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, inputs}
    roots.update(p for p in sys.path if p and os.path.isdir(p))
    import stratus

    roots.update(os.path.dirname(p) for p in stratus.__path__)
    return sorted(roots)


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _report_failure(exc: BaseException, script_path: str) -> str:
    """The script's exception as one readable line naming the script line; its traceback goes to stderr."""
    message = f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)[1:]  # without the runner's own exec line
    print("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + message, file=sys.stderr)
    mine = [frame for frame in frames if frame.filename == script_path]
    where = f" (script line {mine[-1].lineno}: {(mine[-1].line or '').strip()})" if mine else ""
    return message + where


class Reporter:
    """JSON lines on the report pipe; written and flushed at once, so a later crash loses nothing."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def violation(self, kind: str, message: str) -> None:
        self._send({"type": "violation", "kind": kind, "message": message})

    def result(self, result: dict[str, Any]) -> None:
        self._send({"type": "result", **result})

    def _send(self, record: dict[str, Any]) -> None:
        try:
            self.stream.write(json.dumps(record) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # the parent stopped listening (or the script closed the pipe): its record decides


def run(config: dict[str, Any], reporter: Reporter) -> dict[str, Any]:
    script_path = os.path.join(config["inputs"], "script.py")
    with open(script_path, encoding="utf-8") as handle:
        source = handle.read()
    preload(config["allowed_modules"])
    client = make_client(config)
    guard = Guard(os.getcwd(), read_roots(config["inputs"]), reporter.violation)
    sys.addaudithook(guard)
    script_builtins = dict(vars(builtins))
    script_builtins["__import__"] = make_import(list(config["allowed_modules"]), guard)
    for name in ("breakpoint", "input", "help", "exit", "quit"):
        script_builtins.pop(name, None)
    namespace: dict[str, Any] = {"__name__": "__sandbox__", "__builtins__": script_builtins, "client": client,
                                 "params": config.get("params") or {}, "outputs": {}}
    result: dict[str, Any] = {"ok": True, "outputs": {}, "error": None, "kind": None}
    failure: BaseException | None = None
    try:
        exec(compile(source, script_path, "exec"), namespace)
    except MemoryError:
        namespace.clear()
        result.update(ok=False, error="memory limit exceeded", kind="memory")
    except SandboxViolation as exc:
        result.update(ok=False, error=str(exc), kind=exc.kind)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            result.update(ok=False, error=f"the script exited with status {exc.code}", kind="exception")
    except BaseException as exc:  # the script's own failure: told to the writer so it can repair the script
        failure = exc
    if failure is not None:
        result.update(ok=False, error=_report_failure(failure, script_path), kind="exception")
    if guard.violations and result["kind"] != "memory":
        first = guard.violations[0]
        result.update(ok=False, error=str(first), kind=first.kind)
    if result["ok"]:
        outputs = namespace.get("outputs")
        if not isinstance(outputs, dict):
            result.update(ok=False, error="the script must leave its results in the dict `outputs`", kind="contract")
        else:
            try:
                result["outputs"] = _json_safe(outputs)
            except (TypeError, ValueError) as exc:
                result.update(ok=False, error=f"outputs are not JSON: {exc}", kind="contract")
    return result


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    sys.dont_write_bytecode = True
    os.chdir(config["scratch"])  # not bwrap's --chdir: root without capabilities may not enter it
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large file then fails with EFBIG instead of killing us
    reporter = Reporter(os.fdopen(int(config["report_fd"]), "w", encoding="utf-8"))
    result = run(config, reporter)
    reporter.result(result)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
