"""Shared set-up for benchmarks: a real Uvicorn server on SQLite and signed SDK clients."""

from __future__ import annotations

import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stratus.config import Settings  # noqa: E402
from stratus.sdk import AdminClient, Client  # noqa: E402
from stratus.server import ServerHandle, start_in_thread  # noqa: E402

ADMIN = "bench-admin-token"


def start_server(time_scale: float = 1000.0) -> tuple[str, ServerHandle]:
    """One Uvicorn worker on a SQLite file in a temp dir; returns (url, handle)."""
    db = Path(tempfile.mkdtemp(prefix="stratus-bench-")) / "bench.db"
    handle = start_in_thread(Settings(database_url=f"sqlite:///{db}", admin_token=ADMIN, time_scale=time_scale))
    return handle.url, handle


def tenant(url: str, alias: str) -> tuple[AdminClient, dict[str, Any], Client]:
    admin = AdminClient(url, ADMIN)
    creds = admin.create_account(alias, password="Bench-Passw0rd", balance_cents=10_000_000)
    admin.set_quotas(creds["account_id"], **{"vpc.vpcs": 1000, "ecs.security_groups": 1000})
    return admin, creds, Client(url, creds["provisioner_key_id"], creds["provisioner_key_secret"])


def machine() -> str:
    from consoleagent.bench.harness import machine as describe

    return f"{describe()}, {date.today().isoformat()}"
