"""The operating-system jail a generated provisioning script runs in: Debian's bubblewrap (``bwrap``).

WHY a jail and not the in-process audit hook alone: model-written code is hostile by default, and
CPython's audit hooks can be bypassed from Python itself (``print.__self__.__import__``,
``_posixsubprocess.fork_exec``, ``dir_fd=``, frame walking). The kernel cannot be talked out of a
namespace, a read-only mount or a user id, so those are the boundary:

- **user**: the script runs as uid/gid 65534 (``nobody``) on the host with no capabilities and
  ``no_new_privs``. As root, bwrap sets up the mounts with root's rights and ``setpriv`` drops to the
  real host uid 65534 (a user namespace would map 65534 inside to root outside, and root owns most
  files). As any other user, an unprivileged user namespace maps 65534 inside to the caller.
- **namespaces**: new pid, net, ipc, uts (and cgroup where possible) namespaces; ``--die-with-parent``
  and a pid namespace mean the whole process tree dies with the sandbox (detached or not);
  ``--new-session`` keeps it off the parent's terminal. The net namespace has only its own loopback:
  the console's API comes in through a bind-mounted Unix socket (``api_relay.py``).
- **filesystem**: an empty tmpfs root with read-only binds of ``/usr`` and the Python installation
  (interpreter, site-packages, and the source of the packages the run names in its ``Layout``: the
  console's SDK), a private ``/proc``, a minimal ``/dev``, the run's
  inputs read-only, and two size-capped tmpfs (``/tmp`` and the scratch directory) as the only
  writable places: nothing the script writes reaches the host's disk. Homes, ``/etc`` (but the
  loader's cache and the time zone), ``/var``, the host's ``/tmp`` and working tree are not there.
- **system calls**: a seccomp deny-list (``seccomp_filter.py``): no nested user namespaces, keyrings,
  BPF, io_uring, ptrace, mounts or foreign ABIs.
- **limits**: ``prlimit`` sets address space, CPU seconds, file size, open files, processes and no
  core dumps before the interpreter starts (hard limits: the script cannot raise them).
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from consoleagent.provisioning import seccomp_filter

BWRAP = "/usr/bin/bwrap"
PRLIMIT = "/usr/bin/prlimit"
SETPRIV = "/usr/bin/setpriv"
SANDBOX_UID = 65534  # nobody
INSIDE_ROOT = "/sandbox"
INSIDE_IN = f"{INSIDE_ROOT}/in"  # runner, script and config (read-only)
INSIDE_SCRATCH = f"{INSIDE_ROOT}/scratch"  # the only writable place (working directory, HOME)
INSIDE_SOCKET = f"{INSIDE_ROOT}/api.sock"  # the console's API (see api_relay.py)
_ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")  # the loader's cache and the time zone; nothing else of /etc
_TOP_LINKS = ("/bin", "/lib", "/lib64", "/sbin")  # merged-/usr symlinks on Debian, directories elsewhere
_probed = False


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot create namespaces here: generated code is then never run."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run (hard limits, set before the interpreter starts)."""

    memory_mb: int = 512
    cpu_s: int = 30
    file_mb: int = 16
    max_files: int = 64
    max_processes: int = 32  # RLIMIT_NPROC counts the host uid's processes (all sandboxes together)
    scratch_mb: int = 64  # the scratch tmpfs (and 16 MiB of /tmp): memory, not the host's disk


@dataclass(frozen=True)
class Layout:
    """The host paths of one run that appear inside the jail."""

    inputs: Path  # → INSIDE_IN, read-only
    socket: Path  # → INSIDE_SOCKET
    packages: tuple[str, ...] = ()  # source directories the runner imports from (the console's SDK), read-only


def runtime_paths(packages: tuple[str, ...] = ()) -> list[str]:
    """Host directories the interpreter and the SDK need, read-only: the prefixes of this Python
    (a venv's and its base), site-packages, and ``packages`` (where the console's SDK package lives:
    an editable install keeps it in the source tree; the console's sandbox names it, this module
    names no console). Nested paths collapse into their ancestor."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  os.path.dirname(os.path.realpath(sys.executable)), *site.getsitepackages(), *packages}
    real = sorted({os.path.realpath(p) for p in candidates if p and os.path.isdir(p)})
    if "/" in real:
        raise SandboxUnavailable("the Python installation lives at / itself; the sandbox will not bind the whole root")
    kept: list[str] = []
    for path in real:  # sorted: an ancestor comes before its descendants
        if path == "/usr" or path.startswith("/usr/") or any(path.startswith(k + "/") for k in kept):
            continue
        kept.append(path)
    return kept


def _namespace_args() -> list[str]:
    common = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
              "--die-with-parent", "--new-session"]
    if os.geteuid() == 0:  # no user namespace: setpriv drops to the real uid inside (see the module docstring)
        return [*common, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                "--cap-add", "CAP_SETPCAP"]
    return [*common, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]


def _base_filesystem_args() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in _TOP_LINKS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--perms", "0755", "--dir", "/etc"]  # bwrap would make it 0700, closed to the dropped uid
    for name in _ETC_FILES:
        args += ["--ro-bind-try", name, name]
    return [*args, "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(16 * 1024 * 1024), "--tmpfs", "/tmp"]


def _directories(path: str, made: set[str]) -> list[str]:
    """``--dir`` for each missing ancestor, world-readable (bwrap would make them 0700, which the
    dropped uid could not enter)."""
    args: list[str] = []
    parts = Path(path).parts[1:-1]
    for index in range(len(parts)):
        ancestor = "/" + "/".join(parts[: index + 1])
        if ancestor not in made:
            made.add(ancestor)
            args += ["--perms", "0755", "--dir", ancestor]
    return args


def _bind_args(layout: Layout | None, limits: Limits) -> list[str]:
    made: set[str] = {"/usr", "/tmp", "/proc", "/dev"}
    args: list[str] = []
    for path in runtime_paths(layout.packages if layout is not None else ()):
        args += _directories(path, made) + ["--ro-bind", path, path]
    if layout is not None:
        args += _directories(INSIDE_IN, made)
        args += ["--ro-bind", str(layout.inputs), INSIDE_IN, "--ro-bind", str(layout.socket), INSIDE_SOCKET,
                 "--perms", "1777", "--size", str(limits.scratch_mb * 1024 * 1024), "--tmpfs", INSIDE_SCRATCH]
    return args


def _limit_args(limits: Limits) -> list[str]:
    mib = 1024 * 1024
    return [PRLIMIT, f"--as={limits.memory_mb * mib}", f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
            f"--fsize={limits.file_mb * mib}", f"--nofile={limits.max_files}", f"--nproc={limits.max_processes}",
            "--core=0", "--"]


def _drop_args() -> list[str]:
    if os.geteuid() != 0:
        return []
    return [SETPRIV, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--"]


def command(layout: Layout | None, limits: Limits, argv: list[str], seccomp_fd: int | None = None) -> list[str]:
    """The full command line: bwrap's namespaces, mounts and seccomp filter, then prlimit, then the uid
    drop, then ``argv``. No secret may go on it: the jail's pid 1 (bwrap) shows it to the script."""
    seccomp = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
    return [BWRAP, *_namespace_args(), *_base_filesystem_args(), *_bind_args(layout, limits), *seccomp, "--",
            *_limit_args(limits), *_drop_args(), *argv]


def seccomp_fd() -> int | None:
    """A readable descriptor holding the seccomp program (bwrap reads it to the end), or None where
    there is no table for this machine. The caller passes it to bwrap and closes it afterwards."""
    code = seccomp_filter.program()
    if code is None:
        return None
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, code)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    return read_end


def probe() -> None:
    """Raise ``SandboxUnavailable`` (saying why) unless bwrap can build the jail here; a success is cached."""
    global _probed
    if _probed:
        return
    for tool in (BWRAP, PRLIMIT, *([SETPRIV] if os.geteuid() == 0 else [])):
        if not os.access(tool, os.X_OK):
            raise SandboxUnavailable(f"{tool} is missing: install Debian's bubblewrap and util-linux "
                                     "(generated code is never run outside the OS sandbox)")
    filter_fd = seccomp_fd()
    argv = command(None, Limits(), [os.path.realpath(sys.executable), "-I", "-S", "-c", "import os; print(os.getuid())"],
                   filter_fd)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                              env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                              pass_fds=() if filter_fd is None else (filter_fd,))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"bwrap could not start the sandbox: {exc}") from exc
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
    if done.returncode != 0 or done.stdout.strip() != str(SANDBOX_UID):
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise SandboxUnavailable(f"bwrap cannot create the sandbox's namespaces here ({detail}); "
                                 "generated code is never run outside the OS sandbox")
    _probed = True
