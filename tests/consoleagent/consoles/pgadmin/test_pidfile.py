"""Finding pgAdmin's and PostgreSQL's processes through their PID files (real processes, no mocks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from consoleagent.consoles.pgadmin.pidfile import file_process_alive, is_alive, read_pid


def test_the_pid_is_read_from_the_first_line_and_nothing_else_counts(tmp_path: Path) -> None:
    postmaster = tmp_path / "postmaster.pid"
    postmaster.write_text("4242\n/var/lib/data\n1700000000\n5432\n", encoding="utf-8")
    assert read_pid(postmaster) == 4242
    (tmp_path / "pgadmin.pid").write_text("77\n", encoding="utf-8")
    assert read_pid(tmp_path / "pgadmin.pid") == 77
    (tmp_path / "garbled.pid").write_text("not a pid\n", encoding="utf-8")
    assert read_pid(tmp_path / "garbled.pid") is None
    assert read_pid(tmp_path / "missing.pid") is None
    assert not file_process_alive(tmp_path / "missing.pid")


def test_a_live_process_counts_and_an_exited_one_does_not_even_before_it_is_reaped(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    pid_file = tmp_path / "child.pid"
    pid_file.write_text(f"{child.pid}\n", encoding="utf-8")
    try:
        assert is_alive(os.getpid()) and file_process_alive(pid_file)
        child.kill()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, still a zombie: not reaped yet
        assert not is_alive(child.pid) and not file_process_alive(pid_file)
    finally:
        child.kill()
        child.wait()
    assert not is_alive(child.pid)
