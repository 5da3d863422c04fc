"""pgAdmin 4 in its own virtual environment, installed once and cached.

pgAdmin pins its own Flask, SQLAlchemy, psycopg... which clash with consoleagent's pins, so it
never enters our environment: it lives in ``<user cache>/consoleagent/pgadmin4-<version>`` and
runs as a separate process. The version is the backend's release pin; a cache holding another
version is never used for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

PGADMIN_VERSION = "9.18"


class InstallError(RuntimeError):
    """pgAdmin could not be installed or its installation is broken; the message says what failed."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "consoleagent"


def venv_dir(version: str = PGADMIN_VERSION) -> Path:
    """Where the pinned pgAdmin lives (``CONSOLEAGENT_PGADMIN_VENV`` overrides, e.g. for CI caches)."""
    override = os.environ.get("CONSOLEAGENT_PGADMIN_VENV")
    return Path(override) if override else cache_root() / f"pgadmin4-{version}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def package_dir(venv: Path) -> Path:
    """The installed ``pgadmin4`` package folder (pgAdmin4.py, setup.py, docs/)."""
    found = sorted(venv.glob("lib/python3*/site-packages/pgadmin4/pgAdmin4.py"))
    if not found:
        raise InstallError(f"pgAdmin 4 is not installed in {venv} (no site-packages/pgadmin4/pgAdmin4.py)")
    return found[-1].parent


def installed_version(venv: Path) -> str | None:
    """The pgadmin4 distribution's version in ``venv``, or None when there is none."""
    if not venv_python(venv).exists():
        return None
    done = subprocess.run([str(venv_python(venv)), "-c", "import importlib.metadata as m; print(m.version('pgadmin4'))"],
                          capture_output=True, text=True, timeout=60)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure_installed(version: str = PGADMIN_VERSION, *, log: Path | None = None) -> Path:
    """The venv holding pgAdmin ``version``, installed from PyPI when missing; returns its folder."""
    venv = venv_dir(version)
    if installed_version(venv) == version:
        return venv
    started = time.monotonic()
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
             [str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              f"pgadmin4=={version}"]]
    for argv in steps:
        with open(log or os.devnull, "a", encoding="utf-8") as sink:
            done = subprocess.run(argv, stdout=sink, stderr=subprocess.STDOUT, timeout=1800)
        if done.returncode != 0:
            where = f"; see {log}" if log else ""
            raise InstallError(f"installing pgAdmin {version} into {venv} failed at `{' '.join(argv[:4])} ...` "
                               f"(exit {done.returncode}){where}")
    if installed_version(venv) != version:
        raise InstallError(f"after installing, {venv} does not hold pgadmin4=={version}")
    print(f"pgAdmin {version} installed in {venv} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return venv
