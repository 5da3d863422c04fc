"""A procedure's steps rewritten in another writing style, to measure and train an agent on documents as
people write them without hand-writing a second copy of every suite document.

Runbooks, wiki pages and tickets often name a button or a field with no markup at all ("click Create
VPC", not "click **Create VPC**"). An agent that leans on the markup to find what a step names fails on
them, and a learned one can only be taught otherwise on documents that lack it. The loaders write every
format's emphasis, literal and GUI-label markup as ``**label**`` and backquotes (``steps``), so one rewrite
of the step texts covers Markdown, reStructuredText and HTML alike.

Styles:

- ``as_written``: the document's own steps.
- ``plain``: the same words without emphasis or literal markup (``**Create VPC**`` → ``Create VPC``,
  ```doc-vpc-01``` → ``doc-vpc-01``). Nothing else changes: the steps, their order, their tables and
  the menu paths (``A > B``) stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable

AS_WRITTEN = "as_written"

# bold or underscore emphasis first (``**a**``, ``__a__``), then single ``*a*`` and backquoted literals
_MARKUP = re.compile(r"\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])|`([^`\n]+)`")


def _plain(step: str) -> str:
    return _MARKUP.sub(lambda m: next(g for g in m.groups() if g is not None), step)


_STYLES: dict[str, Callable[[str], str]] = {AS_WRITTEN: lambda step: step, "plain": _plain}
STYLES: tuple[str, ...] = tuple(_STYLES)


class UnknownStyle(ValueError):
    """A style name that is not one of ``STYLES``."""


def check_style(style: str) -> str:
    if style not in _STYLES:
        raise UnknownStyle(f"unknown document style {style!r}; the styles are {', '.join(STYLES)}")
    return style


def restyle(steps: list[str], style: str) -> list[str]:
    """The steps in ``style`` (a new list; ``as_written`` returns a copy of the steps)."""
    rewrite = _STYLES[check_style(style)]
    return [rewrite(step) for step in steps]
