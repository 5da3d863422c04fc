"""Output of the command line: Rich on a terminal, plain unwrapped lines everywhere else.

CI logs and pipes are read by people and by ``grep``: a table squeezed into 80 columns cuts ids
(``ecs-instance-auto-renew#p…``) and a long path wrapped mid-line cannot be copied. So when standard
output is not a terminal, text is printed without wrapping, tables become one tab-separated line per
row, and progress bars are not drawn (each finished item is still printed as a line).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def _console(stderr: bool) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    interactive = stream.isatty()
    # soft_wrap: a long line stays one line; a huge width keeps Rich from folding what it lays out itself
    return Console(stderr=stderr, soft_wrap=not interactive, width=None if interactive else 10_000,
                   highlight=interactive)


out = _console(stderr=False)
err = _console(stderr=True)


def is_terminal() -> bool:
    """Whether standard output is a person's terminal (progress bars, tables) or a log (plain lines)."""
    return out.is_terminal


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[str]], console: Console | None = None) -> None:
    """A Rich table on a terminal; otherwise the title, a header line and one tab-separated line per row
    (cells keep their markup-free text, nothing is cut)."""
    console = console or out
    rows = [list(r) for r in rows]
    if console.is_terminal:
        table = Table(title=title)
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        return
    console.print(escape(title), markup=True)
    console.print(escape("\t".join(columns)), markup=True)
    for row in rows:
        console.print("\t".join(_plain(cell) for cell in row))


def _plain(cell: str) -> str:
    """The text of a cell that may carry Rich markup (``[green]PASS[/green]`` → ``PASS``), kept escaped."""
    from rich.text import Text

    return escape(Text.from_markup(cell).plain)


def error(message: str) -> None:
    """One red line on standard error; the message is escaped (paths and names may hold ``[``)."""
    err.print(f"[red]{escape(message)}[/red]")


def warn(message: str) -> None:
    err.print(f"[yellow]{escape(message)}[/yellow]")
