"""Processes found through the PID files their owners write, never by name.

PostgreSQL's ``postmaster.pid`` and pgAdmin's ``pgadmin.pid`` both hold the PID on their first line;
liveness is read from ``/proc`` so that a zombie (exited, not yet reaped) counts as gone and a process
owned by another user (the postmaster, run as ``postgres``) still counts as alive.
"""

from __future__ import annotations

from pathlib import Path


def read_pid(pid_file: Path) -> int | None:
    """The PID on the file's first line, or None when there is no such file or it holds no number."""
    try:
        return int(pid_file.read_text(encoding="utf-8").split("\n", 1)[0].strip())
    except (OSError, ValueError):
        return None


def is_alive(pid: int) -> bool:
    """False for a zombie as well as for a missing process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def file_process_alive(pid_file: Path) -> bool:
    pid = read_pid(pid_file)
    return pid is not None and is_alive(pid)
