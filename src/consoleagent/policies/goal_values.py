"""The goal's own values for a document's example values.

A procedure shows example values ("Name: doc-vpc-01", "IPv4 CIDR block: 192.168.0.0/16"); the
goal names the ones wanted ("Create a VPC named web-vpc with the CIDR block 10.0.0.0/16"). The
documentation follower stays mechanical, but a person following a document types the goal's
values, so it swaps an example for the goal's value of the same kind: the same shape (a CIDR
block, an IP address, an instance type, a size with its unit, a number), the word after "named"
for a name field, a quoted phrase for a description. Each goal value is used once, in document
order; with nothing of the kind in the goal the example stays.
"""

from __future__ import annotations

import re

SHAPES = [
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}\b"),  # CIDR block
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b(?!/)"),  # IP address
    re.compile(r"\becs\.[a-z0-9-]+\.[a-z0-9]+\b"),  # instance type
    re.compile(r"\b\d+\s?(?:GiB|GB|TiB|TB|Mbps|vCPUs?)\b"),  # size or bandwidth with its unit
    re.compile(r"(?<![\w.-])\d+(?![\w.-])"),  # a bare number (not the 01 of web-01)
]
NAMED = re.compile(r"\b(?:named|called|name(?:d)? (?:it|to)|rename(?:d)? (?:it )?to)\s+[\"']?([A-Za-z][\w.-]*[\w])", re.IGNORECASE)
RENAMED = re.compile(r"\b(?:rename|change)\b[^.;]*?\bto\s+[\"']?([A-Za-z][\w.-]*[\w])", re.IGNORECASE)
QUOTED = re.compile(r"[\"“']([^\"”']{2,})[\"”']")
PASSWORD = re.compile(r"\bpassword\s+(?:to\s+)?(\S+[^\s.,;])")


class GoalValues:
    """Hands out the goal's values for one episode, each once."""

    def __init__(self, goal: str) -> None:
        self.goal = goal or ""
        self._used: set[tuple[int, str]] = set()  # (position in goal, value)

    def _take(self, pattern: re.Pattern[str], group: int = 0) -> str | None:
        for match in pattern.finditer(self.goal):
            key = (match.start(group), match.group(group))
            if key not in self._used:
                self._used.add(key)
                return match.group(group)
        return None

    def value_for(self, label: str, example: str) -> str:
        """The goal's value for the field ``label`` whose document example is ``example``."""
        lowered = label.casefold()
        if "password" in lowered:
            return self._take(PASSWORD, 1) or example
        if "description" in lowered:
            return self._take(QUOTED, 1) or example
        for shape in SHAPES:
            if shape.fullmatch(example.strip()):
                return self._take(shape) or example
        if "name" in lowered:
            return self._take(NAMED, 1) or self._take(RENAMED, 1) or example
        return example

    def for_instruction(self, label: str, instruction: str, placeholder: str = "") -> str | None:
        """A value for a field the document describes without giving one ("provide a name for the
        group"): the goal's value of its kind; for a name, one made from the field's label (a person
        invents one); for a field whose placeholder is a value of a known shape (an address range),
        the goal's value of that shape or the placeholder itself. None: nothing sensible to type."""
        lowered = label.casefold()
        if "password" in lowered:
            return self._take(PASSWORD, 1)
        if "description" in lowered:
            return self._take(QUOTED, 1)
        if "name" in lowered:
            return self._take(NAMED, 1) or self._take(RENAMED, 1) or made_name(label)
        for shape in SHAPES[:2]:
            if placeholder and shape.fullmatch(placeholder.strip()):
                return self._take(shape) or placeholder.strip()
        return None

    def named(self, label: str) -> bool:
        """Whether the goal gives a value for this kind of field (without using it up)."""
        lowered = label.casefold()
        if "name" in lowered:
            return bool(NAMED.search(self.goal) or RENAMED.search(self.goal))
        return "description" in lowered and bool(QUOTED.search(self.goal))


def made_name(label: str) -> str:
    """A valid resource name for a name field the goal does not name: "vSwitch name" → "doc-vswitch"."""
    words = [w for w in re.findall(r"[a-z0-9]+", label.casefold()) if w != "name"]
    return "doc-" + ("-".join(words) or "resource")[:40]


# Resource names and ids in a goal: words with a digit or an inner hyphen ("web-01", "meta-shared", "i-8f3k...").
IDENTIFIER = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.]*(?:-[\w.]+)+|[A-Za-z]+\d[\w.-]*)(?![\w-])")


def goal_identifiers(goal: str) -> list[str]:
    """The names and ids a goal mentions: what tells its resource's row or option from the others."""
    return list(dict.fromkeys(m.group(1).rstrip(".") for m in IDENTIFIER.finditer(goal or "")))


def choose_option(options: list[str], goal: str) -> str | None:
    """The option a person would pick when the document's example is not offered: the one naming the
    goal's resource, else the only real one (not a "Select a ..." placeholder); None when unclear."""
    names = [n.casefold() for n in goal_identifiers(goal)]
    named = [o for o in options if any(n in o.casefold() for n in names)]
    if len(named) == 1:
        return named[0]
    real = real_options(options)
    return real[0] if len(real) == 1 else None


def real_options(options: list[str]) -> list[str]:
    """The options that are choices, not a "Select a ..." placeholder."""
    return [o for o in options if o.strip() and not re.match(r"\s*(select|choose|please|none|--)\b", o, re.IGNORECASE)]


def choose_by_meaning(options: list[str], instruction: str, goal: str) -> str | None:
    """The option a document's instruction ("Select the VPC of the application servers") points at: the
    one naming the goal's resource, else the one closest in meaning to the instruction and the goal (the
    sentence encoder, lexical fallback), else the first real one; None when there is none."""
    real = real_options(options)
    if not real:
        return None
    named = choose_option(real, goal)
    if named is not None:
        return named
    from consoleagent.encoder import get_encoder

    encoder = get_encoder()
    scores = [max(pair) for pair in zip(encoder.similarities(instruction, real), encoder.similarities(goal or instruction, real))]
    return real[max(range(len(real)), key=lambda i: (scores[i], -i))]
