"""``python -m consoleagent``: the same as the ``consoleagent`` command."""

from consoleagent.cli import app

app(prog_name="consoleagent")
