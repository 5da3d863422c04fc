"""Shared set-up for benchmarks: a real Uvicorn server on SQLite and signed SDK clients."""

from __future__ import annotations

import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stratus.app import create_app  # noqa: E402
from stratus.config import Settings  # noqa: E402
from stratus.sdk import AdminClient, Client  # noqa: E402

ADMIN = "bench-admin-token"


class _Server(uvicorn.Server):
    def install_signal_handlers(self) -> None:
        pass


def start_server(time_scale: float = 1000.0) -> tuple[str, Any, Any]:
    """One Uvicorn worker on a SQLite file in a temp dir; returns (url, server, runtime)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = Path(tempfile.mkdtemp(prefix="stratus-bench-")) / "bench.db"
    app = create_app(Settings(database_url=f"sqlite:///{db}", admin_token=ADMIN, time_scale=time_scale))
    server = _Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, app.state.runtime


def tenant(url: str, alias: str) -> tuple[AdminClient, dict[str, Any], Client]:
    admin = AdminClient(url, ADMIN)
    creds = admin.create_account(alias, password="Bench-Passw0rd", balance_cents=10_000_000)
    admin.set_quotas(creds["account_id"], **{"vpc.vpcs": 1000, "ecs.security_groups": 1000})
    return admin, creds, Client(url, creds["provisioner_key_id"], creds["provisioner_key_secret"])


def machine() -> str:
    cpu = "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{cpu}, {cores} cores, Python {platform.python_version()}, {date.today().isoformat()}"
