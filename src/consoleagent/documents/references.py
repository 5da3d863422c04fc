"""The documents a page sends its reader to: "For more information, see Attach a data disk."

A procedure covers one operation, and a person whose goal goes further ("..., and attach it to build-01
once it is available") follows the page the document names for that next operation. A reference is a
"see <title>" sentence whose title is the title of another document under the same documents root;
titles are compared without regard to case, and a title cited with words left out ("see Unassociate a route
table from a vSwitch" for *Unassociate a custom route table from a vSwitch*) names the one title that has its
words in order with a few more. The referenced procedures travel with the task
(``Task.related``), so a policy reads them as it reads the task's own document; those it cites as another way
to do its own operation ("... with the rule form instead. For more information, see ...") are
``Task.alternatives``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from consoleagent.documents.labels import normalize, words_kept_in_order
from consoleagent.documents.loader import document_paths, load_document, read_text
from consoleagent.documents.model import ProcedureError

# "see Attach a data disk.", "see the "Create a VPC" topic": a title after "see", to the sentence's end
_SEE = re.compile(r"\bsee\s+(?:the\s+)?[\"“]?(?P<title>[A-Z][^.\n\"”]{2,120}?)[\"”]?(?:\s+topic)?(?=\.(?:\s|$)|\s*$)", re.M)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_INSTEAD = re.compile(r"\binstead\b", re.I)  # "... with the rule form instead. For more information, see ..."
_SOFT_BREAK = re.compile(r"(?<=\S)[ \t]*\n[ \t]*(?=\S)")  # a line break inside a paragraph


@functools.cache
def titles(root: Path, recursive: bool = True) -> dict[str, Path]:
    """Every readable document under ``root`` (``recursive=False``: in it) by its title, casefolded (the first of
    a repeated title)."""
    found: dict[str, Path] = {}
    for path in document_paths(root, recursive):
        try:
            title = load_document(path).title.strip()
        except ProcedureError:
            continue  # a page that does not parse is no page to be sent to
        if title:
            found.setdefault(title.casefold(), path)
    return found


@functools.cache
def _steps(path: Path) -> tuple[str, ...]:
    document = load_document(path)
    return tuple(document.procedures[0].step_texts()) if document.procedures else ()


def _cited_short(title: str, known: dict[str, Path]) -> Path | None:
    """The one known title that is ``title`` with a few words added; None for none or several, or a title of
    fewer than three words (too little to recognise)."""
    want = normalize(title).split()
    if len(want) < 3:
        return None
    found = [path for known_title, path in known.items() if words_kept_in_order(want, normalize(known_title).split())]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class References:
    """What a document refers its reader to: each procedure by the title cited (its steps), and of those the
    titles it offers as another way to do its own operation ("... add the rule with the rule form instead. For
    more information, see Add an inbound security group rule.")."""

    procedures: dict[str, list[str]] = field(default_factory=dict)
    alternatives: list[str] = field(default_factory=list)


def references(path: Path, root: Path | None = None) -> References:
    """The first procedure of every document ``path`` refers to by title, in the order referred to; never ``path``
    itself, a title no document under ``root`` has, or a page without steps. A lone file (no ``root``: one under
    verification, a ``run --doc`` file) is read with the files beside it only, not their subfolders: its folder
    may be anyone's home directory, or "/". A title is an alternative when its "see" sentence or the sentence
    before it says "instead"."""
    known = titles(Path(root)) if root is not None else titles(Path(path).parent, recursive=False)
    found = References()
    text = _SOFT_BREAK.sub(" ", read_text(Path(path)))  # "see Associate an\nEIP with an ECS instance." is one title
    for match in _SEE.finditer(text):
        title = match.group("title").strip()
        target = known.get(title.casefold()) or _cited_short(title, known)
        if target is None or target.resolve() == Path(path).resolve() or title in found.procedures:
            continue
        steps = _steps(target)
        if not steps:
            continue
        found.procedures[title] = list(steps)
        if _INSTEAD.search(" ".join(_SENTENCE_END.split(text[max(0, match.start() - 400):match.start()])[-2:])):
            found.alternatives.append(title)
    return found
