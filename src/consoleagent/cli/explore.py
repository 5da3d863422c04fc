"""``consoleagent explore``: self-exploration data (tasks proposed from a product's pages, kept when
the audit log confirms them); the work is ``training.explore``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from consoleagent.cli.console_choice import CONSOLE_HELP

out = Console()
err = Console(stderr=True)


def explore(
    product: str = typer.Option(..., "--product", help="The product whose entry page (/PRODUCT) is explored, e.g. vpc."),
    episodes: int = typer.Option(5, "--episodes", "-n", min=1, help="Proposed tasks to perform."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="The collection directory (ledger.jsonl, trajectories/, "
                                                          "explore.jsonl); read by `train sft --policy ranker`."),
    policy: str = typer.Option("ranker", "--policy", "-p", help="Who performs the proposed tasks (any registered policy)."),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O", help="key=value for the policy, repeatable."),
    verbs: str = typer.Option("create,delete", help="Which kinds of task to propose (comma-separated)."),
    resource: list[str] = typer.Option([], "--resource", help="Only tasks on this resource (as the pages name it, "
                                                              "e.g. VPC), repeatable; default: every one offered."),
    max_steps: int = typer.Option(20, min=1, help="Steps per episode."),
    seed: int = typer.Option(0, help="Seeds the choice of proposals and the new resources' names."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    url: Optional[str] = typer.Option(None, help="--console stratus: a running stratus (default: one in this process)."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="Its admin token (with --url)."),
) -> None:
    """Propose tasks from a product's pages, perform them, keep those the audit log confirms."""
    from consoleagent.cli.console_choice import console_options
    from consoleagent.consoles import resolve_backend
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.policies.registry import make_policy, parse_option_pairs
    from consoleagent.training.explore import explore as run_explore

    if (out_dir / "ledger.jsonl").exists():
        err.print(f"[red]{out_dir}: already holds a collection; explore into a new directory[/red]")
        raise typer.Exit(2)
    try:
        options = parse_option_pairs(policy_option)
        make_policy(policy, **options)  # a wrong option fails here, before the console starts
        backend = resolve_backend(console, **console_options(console, url=url, admin_token=admin_token))
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    env = ConsoleEnv(backend, EnvConfig())
    try:
        done = run_explore(backend, env, lambda: make_policy(policy, **options), product=product, episodes=episodes,
                           out=out_dir, seed=seed, max_steps=max_steps,
                           verbs=tuple(v.strip() for v in verbs.split(",") if v.strip()), resources=tuple(resource),
                           log=lambda line: out.print(line, markup=False))
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    finally:
        env.close()
    kept = sum(p.kept for p in done)
    out.print(f"{kept} of {len(done)} proposed task(s) confirmed by the audit log; collection in {out_dir}")
