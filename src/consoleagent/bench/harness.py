"""``consoleagent bench`` as a function: a policy over selected tasks, ``runs`` times each, in
``workers`` processes, resumable from its results directory.

The results directory holds::

    run.json                what was asked (policy, options, provisioning): a rerun must ask the same
    ledger.jsonl            one line per finished episode (RunLedger): a rerun skips these
    trajectories/           one trajectory JSONL per episode (<task>-run<i>.jsonl)
    world/                  what the console backend's workers share (stratus: the account pool, the snapshot index)
    results.json            the results document (docs/formats.md, "Benchmark results")
    results.md              the Markdown report
    success_by_product.png, success_vs_cost.png

The console is a backend (``consoleagent.consoles``) named by ``console`` (default ``stratus``: one is
started in this process for the run, a fresh one each time: the world of an interrupted run is
rebuilt, the ledger is what carries over), or a backend object the caller started and stops.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from consoleagent.bench.fingerprint import MODEL_SHA256, model_fingerprint
from consoleagent.bench.parallel import WorkerConfig, run_episodes
from consoleagent.bench.pricing import PriceTable
from consoleagent.bench.results import RESULTS_FILE, aggregate
from consoleagent.consoles.world import describe, reference, start_world
from consoleagent.documents.restyle import AS_WRITTEN, check_style
from consoleagent.rollout.ledger import RunLedger
from consoleagent.tasks.spec import TaskSpec

LEDGER_FILE = "ledger.jsonl"
RUN_FILE = "run.json"
SECRET_WORDS = ("key", "token", "secret", "password")


class BenchConfigError(ValueError):
    pass


@dataclass(kw_only=True)
class EpisodeSettings:
    """How a run's episodes are played, whatever the run is for: the benchmark (``BenchConfig``) and
    documentation verification (``verify.runner.VerifyConfig``) both extend it, so an option added here
    reaches both."""

    policy: str = "oracle"
    policy_options: dict[str, Any] = field(default_factory=dict)
    runs: int = 3
    workers: int = 1
    console: Any = "stratus"  # a backend name, a console YAML file, or a backend object (the caller starts and stops it)
    console_options: dict[str, Any] = field(default_factory=dict)  # for a named backend (stratus: url, admin_token, time_scale)
    env_error_retries: int = 2
    command: str | None = None


def episode_settings(settings: EpisodeSettings) -> dict[str, Any]:
    """The shared fields of any settings object, as keywords for another (a verification's BenchConfig)."""
    return {f.name: getattr(settings, f.name) for f in fields(EpisodeSettings)}


@dataclass
class BenchConfig(EpisodeSettings):
    results_dir: Path
    selector: str | None = None
    episode_timeout_s: float | None = None  # default: the longest task time limit + 120 s
    provisioning: bool = True
    price_table: PriceTable = field(default_factory=PriceTable)
    plots: bool = True
    screenshots: bool = False  # marked screenshots in the trajectories (verify shows them at each discrepancy)
    with_documents: bool = True  # False: the policy gets each task's goal alone (verify's goal-directed attempts)
    document_style: str = AS_WRITTEN  # the documents' steps rewritten in another style (documents.restyle)

    def __post_init__(self) -> None:
        # an unknown style fails here, where the caller made it, not later in each worker's first episode
        check_style(self.document_style)

    @property
    def model(self) -> str | None:
        model = self.policy_options.get("model")
        return str(model) if model else None


def redact(options: dict[str, Any]) -> dict[str, Any]:
    return {k: ("***" if any(w in k.lower() for w in SECRET_WORDS) else v) for k, v in options.items()}


def machine() -> str:
    cpu = platform.processor() or "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def check_run(directory: Path, config: BenchConfig) -> None:
    """A results directory belongs to one policy with one set of options and, for a local model, one set of weights
    (a path retrained in place is other weights): refuse to mix runs."""
    wanted = {"policy": config.policy, "policy_options": redact(config.policy_options), "provisioning": config.provisioning,
              "document_style": config.document_style}
    weights = model_fingerprint(config.model)
    path = directory / RUN_FILE
    if path.exists():
        recorded = json.loads(path.read_text(encoding="utf-8"))
        held = {k: recorded.get(k, AS_WRITTEN if k == "document_style" else None) for k in wanted}  # older runs: as written
        if held != wanted:
            raise BenchConfigError(f"{directory} holds a run of {held}, not {wanted}: choose another results directory "
                                   "(or delete this one to start over)")
        played_with = recorded.get(MODEL_SHA256)  # absent in a directory made before fingerprints
        if played_with and weights and played_with != weights:
            raise BenchConfigError(f"{directory}'s episodes were played by other weights at {config.model} (sha256 "
                                   f"{played_with[:12]}, now {weights[:12]}): the model changed since, so its episodes "
                                   "cannot be resumed; choose another results directory (or delete this one to start over)")
        return
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**wanted, MODEL_SHA256: weights, "created_at": _now()}, indent=1, default=str),
                    encoding="utf-8")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_bench(config: BenchConfig, tasks: list[TaskSpec], *, playwright: Any = None,
              on_record: Callable[[dict[str, Any]], None] | None = None, limit: int | None = None,
              should_stop: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    """Run every episode of ``tasks`` × ``config.runs`` not yet in the ledger, then write and return the results.

    ``on_record(record)`` sees each finished episode (ledger record); ``limit`` stops after that many
    new episodes (the rest run on the next call), and so does ``should_stop()`` once true (asked after each record).
    """
    records, console = run_missing(config, tasks, playwright=playwright, on_record=on_record, limit=limit,
                                   should_stop=should_stop)
    directory = Path(config.results_dir)
    meta = {"created_at": _now(), "command": config.command, "machine": machine(), "revision": git_revision(),
            "selector": config.selector, "document_style": config.document_style,
            "policy": {"name": config.policy, "options": redact(config.policy_options)}, "model": config.model,
            MODEL_SHA256: model_fingerprint(config.model),
            "runs": config.runs, "workers": config.workers, "provisioning": config.provisioning, "console": console,
            "episode_timeout_s": _deadline(config, tasks), "env_error_retries": config.env_error_retries}
    results = aggregate(records, tasks, config.runs, meta=meta, prices=config.price_table, model=config.model)
    (directory / RESULTS_FILE).write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    from consoleagent.bench.report import write_reports

    write_reports(results, directory, plots=config.plots)
    return results


def run_missing(config: BenchConfig, tasks: list[TaskSpec], *, playwright: Any = None,
                on_record: Callable[[dict[str, Any]], None] | None = None,
                limit: int | None = None,
                should_stop: Callable[[], bool] = lambda: False) -> tuple[list[dict[str, Any]], str]:
    """Run every episode of ``tasks`` × ``config.runs`` not yet in the ledger (at most ``limit`` new ones).

    Returns the ledger's records (every finished episode of the run, resumed ones included: rule checks,
    trajectory paths, timings) and the console as the results describe it. ``run_bench`` aggregates them
    into results; verification aligns them with its documents."""
    if not tasks:
        raise BenchConfigError("no tasks selected")
    directory = Path(config.results_dir)
    check_run(directory, config)
    ledger = RunLedger(directory / LEDGER_FILE)
    keys = [f"{t.id}#{r}" for t in tasks for r in range(config.runs)]
    todo = [k for k in keys if not ledger.done(k)]
    if limit is not None:
        todo = todo[:max(0, limit)]
    console = str(config.console) if isinstance(config.console, (str, Path)) else describe(config.console)
    if todo:
        console = _run(config, tasks, directory, todo, ledger, playwright, on_record, should_stop)
    return ledger.results(), console


def _deadline(config: BenchConfig, tasks: list[TaskSpec]) -> float:
    return config.episode_timeout_s or max(t.time_limit_s for t in tasks) + 120.0


def _run(config: BenchConfig, tasks: list[TaskSpec], directory: Path, todo: list[str], ledger: RunLedger,
         playwright: Any, on_record: Callable[[dict[str, Any]], None] | None, should_stop: Callable[[], bool]) -> str:
    """Start the console's world, run the episodes, stop what was started; returns the console's description."""
    from consoleagent.consoles import UnknownConsole, resolve_backend

    owned = isinstance(config.console, (str, Path))
    try:
        backend = resolve_backend(config.console, **config.console_options) if owned else config.console
    except (UnknownConsole, ValueError, OSError) as exc:
        raise BenchConfigError(str(exc)) from exc
    foreign = sorted({t.console for t in tasks} - {backend.name})
    if foreign:
        raise BenchConfigError(f"the tasks are for console(s) {', '.join(foreign)}, but this run is on {backend.name} "
                               "(pass --console)")
    deadline = _deadline(config, tasks)
    try:
        start_world(backend, directory / "world", slots=min(config.workers, len(todo)) + 1)
        worker_config = WorkerConfig(
            console=reference(backend), world=directory / "world", tasks=tasks, runs=config.runs, policy=config.policy,
            policy_options=dict(config.policy_options), trajectory_dir=directory / "trajectories",
            episode_deadline_s=deadline, env_error_retries=config.env_error_retries, provisioning=config.provisioning,
            lease_ttl_s=deadline + 300.0, screenshots=config.screenshots, with_documents=config.with_documents,
            documents_root=backend.documents_root, document_style=config.document_style)

        def record(entry: dict[str, Any]) -> None:
            ledger.record(entry["key"], {k: v for k, v in entry.items() if k != "key"})
            if on_record is not None:
                on_record(entry)

        run_episodes(worker_config, todo, workers=config.workers, on_record=record, playwright=playwright,
                     should_stop=should_stop, backend=backend)
        return describe(backend)
    finally:
        if owned:
            backend.stop()


def command_line() -> str:
    return " ".join(["consoleagent", *[_quote(a) for a in sys.argv[1:]]])


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def git_revision() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                              cwd=Path(__file__).parent).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None
