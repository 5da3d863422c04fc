"""``consoleagent console``: bring a console backend up or down, and check its own task files.

``console up pgadmin`` starts the console in a fresh scratch folder and leaves it running; its
state (URLs, ports, PIDs, the scratch folder) goes to a state file, which ``console down`` reads
to stop exactly those processes and which ``get_backend(name, state=FILE)`` attaches to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from consoleagent.consoles import state_file

console_app = typer.Typer(help="Console backends: start one (console up), stop it (console down), validate its tasks.",
                          no_args_is_help=True)
out = Console()
err = Console(stderr=True)


def _backend_class(name: str) -> type:
    from consoleagent.consoles import UnknownConsole, backend_class

    try:
        return backend_class(name)
    except UnknownConsole as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


@console_app.command("list")
def console_list() -> None:
    """The console backends this installation has."""
    from consoleagent.consoles import backend_names

    for name in backend_names():
        cls = _backend_class(name)
        out.print(f"{name}  (release {getattr(cls, 'release', '?')})")


@console_app.command("up")
def console_up(
    name: str = typer.Argument(..., help="The console: pgadmin."),
    state: Optional[Path] = typer.Option(None, help="Where to write the state file (default: a per-user runtime folder)."),
    scratch: Optional[Path] = typer.Option(None, help="The scratch folder (default: a fresh temporary one)."),
) -> None:
    """Start the console and leave it running; prints its URL and the state file."""
    cls = _backend_class(name)
    path = state or state_file(name)
    if path.exists():
        err.print(f"[red]{path} exists: a {name} console is already up (stop it: consoleagent console down {name})[/red]")
        raise typer.Exit(2)
    backend = cls(scratch=scratch)
    with out.status(f"Starting {name} ..."):
        backend.start()
    data = backend.state()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    backend.detach()  # leave it running when this process exits
    out.print(f"{name} {data.get('release', '')} is up: {data.get('url_with_key', data.get('base_url'))}")
    out.print(f"state: {path}   (stop it: consoleagent console down {name})")


@console_app.command("down")
def console_down(
    name: str = typer.Argument(..., help="The console: pgadmin."),
    state: Optional[Path] = typer.Option(None, help="The state file `console up` wrote."),
) -> None:
    """Stop exactly what `console up` started (by the PIDs it recorded) and remove its scratch folder."""
    cls = _backend_class(name)
    path = state or state_file(name)
    if not path.exists():
        err.print(f"[red]no state file {path}: no {name} console is up[/red]")
        raise typer.Exit(1)
    backend = cls(state=path)
    try:
        backend.start()  # attaches
    except RuntimeError as exc:
        err.print(f"[yellow]{exc}; stopping what is left[/yellow]")
    backend.take_ownership()
    backend.stop()
    path.unlink()
    out.print(f"{name} is down")


@console_app.command("validate")
def console_validate(name: str = typer.Argument(..., help="The console: pgadmin.")) -> None:
    """Check the console's own task files (schema, documents, release, requirements); exit 1 on any problem."""
    from consoleagent.cli.tasks import validate_backend_tasks

    validate_backend_tasks(name)


@console_app.command("check")
def console_check(
    name: str = typer.Argument(..., help="The console: pgadmin."),
    selector: Optional[str] = typer.Argument(None, help="Task ids (globs) or field=value filters; default: all."),
    state: Optional[Path] = typer.Option(None, help="Attach to the console `console up` started (default: start one)."),
    out_dir: Path = typer.Option(Path("runs/console-check"), "--out", help="Where the trajectories go."),
    policy: str = typer.Option("oracle", "--policy", "-p",
                               help="Who plays each task: its oracle (is the task solvable?) or another policy with "
                                    "its defaults (docfollower: can the task's page be followed?)."),
) -> None:
    """Prove the console's tasks solvable: play each one's oracle (or --policy) in the browser and judge it from the
    audit log. Exits 1 when a task is not solved."""
    from consoleagent.consoles.check import play
    from consoleagent.suite.backend_tasks import load_backend_tasks
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.suite.catalog import select
    from consoleagent.policies.registry import checked_options, entry_of

    try:
        if not entry_of(policy).from_task:
            checked_options(policy, {})  # a policy that needs options says so now, not in the first episode
    except ValueError as exc:
        err.print(f"[red]--policy: {exc}[/red]")
        raise typer.Exit(2) from exc
    cls = _backend_class(name)
    state_path = state or (state_file(name) if state_file(name).exists() else None)
    backend = cls(state=state_path) if state_path else cls()
    specs = select(sorted((t.spec for t in load_backend_tasks(backend)), key=lambda s: s.id), selector)
    if not specs:
        err.print(f"[red]no {name} task matches {selector!r}[/red]")
        raise typer.Exit(2)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = ConsoleEnv(backend, EnvConfig())
    passed = 0
    try:
        for spec in specs:
            result = play(backend, env, spec, trajectory=out_dir / f"{spec.id}.jsonl", policy=policy)
            passed += result.passed
            verdict = result.verdict.explain() if result.verdict else result.cause
            out.print(f"{'[green]PASS[/green]' if result.passed else '[red]FAIL[/red]'} {spec.id} ({result.status}, "
                      f"{result.steps} steps, {result.seconds:.0f} s)")
            if not result.passed:
                out.print(f"  {verdict}", markup=False)
    finally:
        env.close()
    out.print(f"{passed}/{len(specs)} tasks solved by {'their oracle' if policy == 'oracle' else policy}")
    if passed < len(specs):
        raise typer.Exit(1)
