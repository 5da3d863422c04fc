"""``consoleagent``: the command line, one module per command group (as the console has a router per
product); this module builds the app from them.

- ``run``, ``view``, ``demo``: one episode, a trajectory's page, the demo cloud
- ``bench`` (and ``compare``, ``cost``), ``verify`` (and ``review``): the benchmark and documentation verification
- ``tasks``, ``templates``, ``console``: task suites, Resource META templates, console backends
- ``data`` (``collect``, ``samples``, ``tiny-model``), ``explore``, ``train``: the training pipeline
- ``console_choice``: the ``--console`` option the commands share
"""

from __future__ import annotations

import typer

from consoleagent.cli.bench import bench, compare, cost
from consoleagent.cli.console import console_app
from consoleagent.cli.data import collect, samples, tiny_model
from consoleagent.cli.demo import demo
from consoleagent.cli.explore import explore
from consoleagent.cli.run import RUN_EXIT_CODES, run
from consoleagent.cli.tasks import tasks_app
from consoleagent.cli.templates import templates_app
from consoleagent.cli.train import train_app
from consoleagent.cli.verify import VERIFY_EXIT_CODES, review, verify
from consoleagent.cli.view import view

app = typer.Typer(help="consoleagent: verify documented console procedures with a web agent, and train it.",
                  no_args_is_help=True, add_completion=False)

app.command()(demo)
app.command(epilog=RUN_EXIT_CODES)(run)
app.command()(view)
app.add_typer(templates_app, name="templates")
app.add_typer(tasks_app, name="tasks")
app.command("bench")(bench)
app.command("compare")(compare)
app.command("cost")(cost)
app.command("verify", epilog=VERIFY_EXIT_CODES)(verify)
app.command("review")(review)
app.command("collect")(collect)
app.command("samples")(samples)
app.command("tiny-model")(tiny_model)
app.command("explore")(explore)
app.add_typer(train_app, name="train")
app.add_typer(console_app, name="console")


@app.command()
def version() -> None:
    """Print the version."""
    from consoleagent import __version__

    typer.echo(__version__)
