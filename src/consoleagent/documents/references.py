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

from consoleagent.documents.labels import OPPOSITES, normalize, singular, terms, words_kept_in_order
from consoleagent.documents.loader import document_paths, load_document, read_text
from consoleagent.documents.model import ProcedureError

# "see Attach a data disk.", "see the "Create a VPC" topic": a title after "see", to the sentence's end
_SEE = re.compile(r"\bsee\s+(?:the\s+)?[\"“]?(?P<title>[A-Z][^.\n\"”]{2,120}?)[\"”]?(?:\s+topic)?(?=\.(?:\s|$)|\s*$)", re.M)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_INSTEAD = re.compile(r"\binstead\b", re.I)  # "... with the rule form instead. For more information, see ..."
_SOFT_BREAK = re.compile(r"(?<=\S)[ \t]*\n[ \t]*(?=\S)")  # a line break inside a paragraph
# The section that tells the reader what usually comes next, without a link: "## What to do next"
_NEXT_HEADING = re.compile(r"^[#\s]*(?:what to do next|what's next|next steps?)\s*:?\s*$", re.I | re.M)
_HEADING = re.compile(r"^(?:#+\s|\S.*\n[=~^*+#-]{3,}\s*$)", re.M)  # a Markdown or reStructuredText heading
# One operation of such a sentence: "Associate an EIP with the NAT gateway and add a route entry that points to it."
_CLAUSE_BREAK = re.compile(r";\s*|,?\s+(?:and|or)\s+(?:then\s+)?|,\s*then\s+|\s+then\s+")


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


def _next_section(text: str) -> str:
    """The text of the document's "What to do next" section (up to the next heading), or ""."""
    found = _NEXT_HEADING.search(text)
    if found is None:
        return ""
    rest = text[found.end():]
    following = _HEADING.search(rest)
    return rest[:following.start()] if following else rest


def _named_title(clause: str, known: dict[str, Path]) -> str | None:
    """The one known title a clause names in its own words: the title's content words are all in the clause,
    or all but one that is not its verb ("add a route entry that points to it" names *Add a custom route
    entry*, not *Delete a custom route entry*); the fewest missing wins, a tie names none."""
    words = terms(clause)
    named = []
    for title in known:
        have = terms(title)
        missing = have - words
        if len(have) >= 2 and len(missing) <= 1 and singular(normalize(title).split()[0]) not in missing:
            named.append((len(missing), title))
    named.sort()
    return named[0][1] if named and (len(named) == 1 or named[1][0] > named[0][0]) else None


def next_operations(text: str, known: dict[str, Path]) -> list[Path]:
    """The documents that the "What to do next" section names without citing them ("Associate an EIP with
    the NAT gateway and add a route entry that points to it."), one per clause that names exactly one title,
    in the order named; a sentence with a "see" citation is left to it. A reader whose goal goes on looks these
    up by their titles, as the page expects."""
    found: list[Path] = []
    for sentence in _SENTENCE_END.split(_SOFT_BREAK.sub(" ", _next_section(text))):
        if _SEE.search(sentence):
            continue  # a citation: taken by its title, or by none (``references``)
        for clause in _CLAUSE_BREAK.split(sentence):
            title = _named_title(clause, known)
            if title is not None and known[title] not in found:
                found.append(known[title])
    return found


def counterpart(title: str, known: dict[str, Path], text: str) -> Path | None:
    """The page whose title is ``title`` with one word for its opposite that the document itself uses: a page
    that covers both ways ("click the **Inbound** tab, or the **Outbound** tab for an outbound rule") but cites
    the rule form of one (*Add an inbound security group rule*) has the other's form as its other way too."""
    words, used = normalize(title).split(), set(normalize(text).split())
    by_words = {normalize(t): path for t, path in known.items()}
    for i, word in enumerate(words):
        for other in [b if word == a else a for a, b in OPPOSITES if word in (a, b)]:
            found = by_words.get(" ".join([*words[:i], other, *words[i + 1:]])) if other in used else None
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class References:
    """What a document refers its reader to: each procedure by the title cited (its steps), and of those the
    titles it offers as another way to do its own operation ("... add the rule with the rule form instead. For
    more information, see Add an inbound security group rule.")."""

    procedures: dict[str, list[str]] = field(default_factory=dict)
    alternatives: list[str] = field(default_factory=list)


def references(path: Path, root: Path | None = None) -> References:
    """The first procedure of every document ``path`` refers to by title, in the order referred to; never ``path``
    itself, a title no document under ``root`` has, or a page without steps; then those its "What to do next"
    section names in its own words (``next_operations``), under their titles. A lone file (no ``root``: one under
    verification, a ``run --doc`` file) is read with the files beside it only, not their subfolders: its folder
    may be anyone's home directory, or "/". A title is an alternative when its "see" sentence or the sentence
    before it says "instead"; so is its ``counterpart``, the same page for the other way the document covers."""
    known = titles(Path(root)) if root is not None else titles(Path(path).parent, recursive=False)
    found = References()
    raw = read_text(Path(path))
    text = _SOFT_BREAK.sub(" ", raw)  # "see Associate an\nEIP with an ECS instance." is one title
    cited = {Path(path).resolve()}  # the pages already taken: a page named as well as cited is taken once
    for match in _SEE.finditer(text):
        title = match.group("title").strip()
        target = known.get(title.casefold()) or _cited_short(title, known)
        if target is None or target.resolve() == Path(path).resolve() or title in found.procedures:
            continue
        steps = _steps(target)
        if not steps:
            continue
        cited.add(target.resolve())
        found.procedures[title] = list(steps)
        if _INSTEAD.search(" ".join(_SENTENCE_END.split(text[max(0, match.start() - 400):match.start()])[-2:])):
            found.alternatives.append(title)
    for title in list(found.alternatives):
        other = counterpart(title, known, text)
        if other is not None and other.resolve() not in cited and _steps(other):
            cited.add(other.resolve())
            other_title = load_document(other).title.strip()
            found.procedures[other_title] = list(_steps(other))
            found.alternatives.append(other_title)
    for target in next_operations(raw, known):
        steps = _steps(target)
        if steps and target.resolve() not in cited:
            found.procedures.setdefault(load_document(target).title.strip(), list(steps))
    return found
