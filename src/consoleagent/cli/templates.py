"""``consoleagent templates list | validate``: a console's Resource META templates."""

from __future__ import annotations

from typing import Optional

import typer

from consoleagent.cli.console_choice import CONSOLE_HELP
from consoleagent.terminal import error, out

templates_app = typer.Typer(help="Resource META templates: list them, validate them in a scratch account.",
                            no_args_is_help=True)


@templates_app.command("list")
def templates_list(console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP)) -> None:
    """Every template of the console's backend with its key attributes and outputs."""
    from rich.table import Table

    from consoleagent.consoles import UnknownConsole, resolve_class

    try:
        library = resolve_class(console).template_library()
    except (UnknownConsole, ValueError) as exc:
        error(str(exc))
        raise typer.Exit(2) from None
    table = Table(title=f"Resource META templates ({console})")
    for column in ("template", "description", "attributes (default)", "outputs"):
        table.add_column(column)
    for name in library.names():
        template = library.get(name)
        attributes = ", ".join(f"{k}={a.default!r}" if a.default is not None else k for k, a in template.attributes.items())
        table.add_row(name, template.description, attributes, ", ".join(template.outputs))
    out.print(table)


@templates_app.command("validate")
def templates_validate(
    names: Optional[list[str]] = typer.Argument(None, help="Templates to validate (default: all)."),
    url: Optional[str] = typer.Option(None, help="A running stratus (default: start one in this process)."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="Its admin token."),
) -> None:
    """Create, verify and destroy each stratus template in a scratch account; exit 1 if any fails or leaves anything behind."""
    from rich.table import Table

    from consoleagent.cli.console_choice import backend_for
    from consoleagent.provisioning.validation import validate_library

    try:
        backend = backend_for("stratus", url=url, admin_token=admin_token)
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(2) from None
    backend.start()
    try:
        account = backend.pooled_account()
        with out.status("Validating templates in a scratch account ..."):
            results = validate_library(backend.template_library(), account, names=names or None)
    finally:
        backend.stop()
    table = Table(title=f"Template validation ({sum(r.ok for r in results)}/{len(results)} ok)")
    for column in ("template", "result", "seconds", "error"):
        table.add_column(column)
    for r in results:
        table.add_row(r.name, "[green]ok[/green]" if r.ok else "[red]failed[/red]", f"{r.seconds:.2f}", r.error)
    out.print(table)
    if not all(r.ok for r in results):
        raise typer.Exit(1)

