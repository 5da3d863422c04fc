"""What the tests of the analysis scripts under ``bench/`` share: loading a script as a module, and writing the
``results.json`` of a `consoleagent bench` run with chosen per-task pass rates."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from consoleagent.bench.results import FORMAT, FORMAT_VERSION

ROOT = Path(__file__).resolve().parents[3]


def load_bench_script(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_results(folder: Path, passes: dict[str, float]) -> Path:
    """A results directory whose ``results.json`` gives each task's pass@1."""
    folder.mkdir(parents=True)
    document = {"format": FORMAT, "format_version": FORMAT_VERSION, "policy": {"name": "scripted"},
                "tasks": [{"id": task, "product": task.split("-")[0], "pass1": value} for task, value in passes.items()]}
    (folder / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return folder
