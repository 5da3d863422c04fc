"""Every data file in the packages (templates, catalogs, scripts) is listed in pyproject's
package-data, so a wheel install works, not only an editable one."""

from __future__ import annotations

import glob
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_package_data_covers_every_data_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    missing = []
    for package, patterns in config.items():
        base = ROOT / "src" / package
        covered = {Path(p) for pattern in patterns for p in glob.glob(pattern, root_dir=base, recursive=True)}
        for path in base.rglob("*"):
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts:
                relative = path.relative_to(base)
                if relative not in covered:
                    missing.append(f"{package}/{relative}")
    assert missing == []
