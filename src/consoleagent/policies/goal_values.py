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

import ipaddress
import itertools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from consoleagent.documents.labels import PARENTHESIS, STOPWORDS, terms
from consoleagent.policies.docfollow.goal_fields import goal_identifiers, root, stem
from consoleagent.policies.docfollow.goal_fields import names as names_whole

if TYPE_CHECKING:
    from consoleagent.documents.instructions import Instruction

SHAPES = [
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}\b"),  # CIDR block
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b(?!/)"),  # IP address
    re.compile(r"\becs\.[a-z0-9-]+\.[a-z0-9]+\b"),  # instance type
    re.compile(r"\b\d+\s?(?:GiB|GB|TiB|TB|Mbps|vCPUs?)\b"),  # size or bandwidth with its unit
    re.compile(r"\b\d+\s?(?i:months?|years?)\b"),  # a period: "for 3 months" is the option "3 Months"
    re.compile(r"(?<![\w.#@$%&*!+=/-])\d+(?![\w.-])"),  # a bare number (not the 01 of web-01, the 77 of Db#77)
]
# A bare number that is no rate: "10 Mbps" is a bandwidth, never a disk's capacity (measured as the public address's
# 10 Mbps typed into **System Disk Capacity**)
_NO_RATE = re.compile(SHAPES[-1].pattern + r"(?!\s?(?:[KMG]bps|[KMG]b/s)\b)")
_RATE_LABEL = re.compile(r"\b(?:bandwidth|speed|rate|throughput)\b", re.IGNORECASE)
# A count is a number before a noun that is no unit of measure ("Create 2 pay-as-you-go instances"): "3 months"
# and "10 Mbps" are never how many
_COUNTED = re.compile(r"(?<![\w.#@$%&*!+=/-])(\d+)\s+(?!(?:GiB|GB|TiB|TB|MiB|MB|Mbps|Gbps|vCPUs?|cores?|months?|years?|"
                      r"weeks?|days?|hours?|minutes?|seconds?|percent)\b)[A-Za-z]", re.IGNORECASE)
_COUNT_LABEL = re.compile(r"\b(?:quantity|count|number of)\b", re.IGNORECASE)
PORT_RANGE = re.compile(r"-?\d+/-?\d+")  # a security group rule's "22/22", "8000/9000", "-1/-1"
PORTS = re.compile(r"\bports?\s+(?P<first>\d+)(?![\d.])(?:\s*(?:-|to|through|/)\s*(?P<last>\d+)(?![\d.]))?", re.IGNORECASE)
NAMED = re.compile(r"\b(?:named|called|name(?:d)? (?:it|to)|rename(?:d)? (?:it )?to)\s+[\"']?([A-Za-z][\w.-]*[\w])", re.IGNORECASE)
RENAMED = re.compile(r"\b(?:rename|change)\b[^.;]*?\bto\s+[\"']?([A-Za-z][\w.-]*[\w])", re.IGNORECASE)
QUOTED = re.compile(r"[\"“']([^\"”']{2,})[\"”']")
_INSTEAD = re.compile(r"(?P<new>[\w./:-]*\w)\s+instead\s+of\s+(?P<old>[\w./:-]*\w)", re.IGNORECASE)
_MOVED_FROM = re.compile(r"\bfrom\s+(?:the\s+)?$", re.IGNORECASE)  # "from the ECS instance game-01": where it was
_FROM = re.compile(r"\bfrom\s+$", re.IGNORECASE)  # the value after it is the current one ...
_TO = re.compile(r"(?:\s*[A-Za-z]{1,6})?\s+to\s+\d", re.IGNORECASE)  # ... when "(unit) to <the wanted one>" follows
# "the password Jump#Host2026", "reset the logon password of jump-host to Jump#Host2026": a word with a letter,
# a digit and a sign, as consoles require of passwords (the first word after "password" is often "of")
PASSWORD = re.compile(r"(?<!\S)((?=\S*[A-Za-z])(?=\S*\d)(?=\S*[^\w\s])\S{8,}?)(?=[.,;]?(?:\s|$))")


class GoalValues:
    """Hands out the goal's values for one episode, each once."""

    def __init__(self, goal: str) -> None:
        self.goal = goal or ""
        self._used: set[tuple[int, str]] = set()  # (position in goal, value)

    def reset(self) -> None:
        """Every value available again: the form is filled anew (after deleting what it replaces)."""
        self._used.clear()

    def _take(self, pattern: re.Pattern[str], group: int = 0, ports: bool = True) -> str | None:
        """The goal's first value of ``pattern`` not yet handed out; ``ports=False``: none of a port ("TCP port
        443" is no priority)."""
        port_spans = [] if ports else [p.span() for p in PORTS.finditer(self.goal)]
        for match in pattern.finditer(self.goal):
            key = (match.start(group), match.group(group))
            if key in self._used or self._inside_used(*match.span(group)):
                continue
            if any(start <= match.start(group) and match.end(group) <= end for start, end in port_spans):
                continue
            self._used.add(key)
            if _FROM.search(self.goal[:match.start(group)]) and _TO.match(self.goal[match.end(group):]):
                continue  # "from 40 GiB to 80 GiB": 40 is how it is now, 80 the value wanted
            return match.group(group)
        return None

    def _inside_used(self, start: int, end: int) -> bool:
        """Whether these goal words lie inside a value already handed out: "3 months" went to **Subscription
        Duration**, so its "3" is no number for **Quantity** (measured as three instances ordered)."""
        return any(start >= used and end <= used + len(value) and (start, end) != (used, used + len(value))
                   for used, value in self._used)

    def value_for(self, label: str, example: str, options: list[str] | tuple[str, ...] = ()) -> str:
        """The goal's value for the field ``label`` whose document example is ``example``; ``options``: the
        choices the document lists for the field ("**Allow** or **Deny**")."""
        lowered = label.casefold()
        if "password" in lowered:
            return self._password() or example
        if "description" in lowered:
            return self._take(QUOTED, 1) or example
        labelled = self._labelled(label, example)
        if labelled is not None:
            return labelled
        # "an ESSD PL0 data disk" of **ESSD** or **ESSD AutoPL**: every word of the choice is another's too, but
        # the goal writes it whole (measured as an Ultra Disk created with a performance level)
        chosen = option_in_goal(list(options), self.goal) or named_by_goal(list(options), self.goal)
        if chosen is not None:
            return chosen
        if PORT_RANGE.fullmatch(example.strip()):
            return self._port_range() or example
        if _COUNT_LABEL.search(label) and SHAPES[-1].fullmatch(example.strip()):
            return self._take(_COUNTED, 1) or example  # measured as "3 months" ordering three instances
        for shape in SHAPES:
            if shape.fullmatch(example.strip()):
                bare = shape is SHAPES[-1] and not _RATE_LABEL.search(label)
                # a port is a bare number only for a port's field (measured as "TCP port 443" typed as the Priority)
                return self._take(_NO_RATE if bare else shape, ports=not bare or "port" in lowered) or example
        if "name" in lowered:
            return self._take(NAMED, 1) or self._take(RENAMED, 1) or example
        return example

    def changed_value(self, label: str, example: str, options: list[str] | tuple[str, ...] = ()) -> str | None:
        """The goal's new value for a field of a "change the parameters" table, or None when the goal leaves the
        field as it is ("... so that it applies to port range 8443/8443 instead; keep everything else"): the
        value beside the field's label, a listed choice the goal names, or its new name or description."""
        if left_unchanged(label, self.goal):
            return None
        lowered = label.casefold()
        if "description" in lowered or "password" in lowered:
            return self.of_kind(label)
        if "name" in lowered:
            return self._take(RENAMED, 1) or self._take(NAMED, 1)
        return self._labelled(label, example) or option_in_goal(list(options), self.goal) or self._instead(example)

    def amount_in(self, unit: str) -> str | None:
        """The goal's number in ``unit`` ("10" of "a public IPv4 address of 10 Mbps" for a field set "in Mbps")."""
        return self._take(re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)\s?{re.escape(unit)}\b", re.IGNORECASE), 1)

    def _instead(self, example: str) -> str | None:
        """"... so that it applies only to 203.0.113.0/24 instead of 0.0.0.0/0": the new value of the example's
        shape (the field that holds the old one is the one that changes)."""
        shape = next((s for s in SHAPES[:-1] if s.fullmatch(example.strip())), None)
        for match in _INSTEAD.finditer(self.goal):
            if shape is not None and shape.fullmatch(match.group("new")) and shape.fullmatch(match.group("old")):
                return match.group("new")
        return None

    def _labelled(self, label: str, example: str) -> str | None:
        """The value the goal writes right after the field's label: "with priority 1" for *Priority*, "the
        IPv4 CIDR block 10.0.0.0/8". It must have the example's shape (or look like a value), so a plain
        word after a label ("priority traffic") is never taken."""
        words = re.findall(r"[a-z0-9]+", label.casefold())
        if not words or len(words) > 4:
            return None
        shape = next((s for s in SHAPES if s.fullmatch(example.strip())), None)
        pattern = re.compile(r"\b" + r"\s+".join(map(re.escape, words)) + r"s?\s+(?:(?:is|of|to|=|set to)\s+)?"
                             r"(?:[\"“](?P<quoted>[^\"”]+)[\"”]|(?P<value>[\w./:-]*\w))", re.IGNORECASE)
        found = []
        for match in pattern.finditer(self.goal):
            group = "quoted" if match.group("quoted") else "value"
            value, key = match.group(group), (match.start(group), match.group(group))
            if key in self._used or not (shape.fullmatch(value) if shape else re.search(r"[\d_./:-]", value)):
                continue
            found.append((bool(_MOVED_FROM.search(self.goal[:match.start()])), key))
        # "Move the EIP from the ECS instance game-01 to the ECS instance game-02": the one it goes to
        if not found:
            return None
        key = min(found, key=lambda f: f[0])[1]
        self._used.add(key)
        return key[1]

    def _port_range(self) -> str | None:
        """"port 8080" as the range 8080/8080, "ports 8000 to 9000" as 8000/9000 (the console's form)."""
        for match in PORTS.finditer(self.goal):
            first, last = match.group("first"), match.group("last") or match.group("first")
            key = (match.start("first"), first)
            if key in self._used:
                continue
            self._used.add(key)
            if match.group("last"):
                self._used.add((match.start("last"), last))
            return f"{first}/{last}"
        return None

    def for_instruction(self, label: str, instruction: str, placeholder: str = "",
                        within: list[str] | tuple[str, ...] = (), taken: list[str] | tuple[str, ...] = ()) -> str | None:
        """A value for a field the document describes without giving one ("provide a name for the
        group"): the goal's value of its kind; for a name, one made from the field's label (a person
        invents one); for a field whose placeholder shows a value of a known shape ("For example,
        192.168.1.0/24"), the goal's value of that shape, else, for an address range, a free block of
        the range the field must lie within (``within``: the ranges its hint or its form name; ``taken``:
        blocks already in use), else the placeholder's example. None: nothing sensible to type."""
        lowered = label.casefold()
        if "password" in lowered:
            return self._password()
        if "description" in lowered:
            return self._take(QUOTED, 1)
        if "name" in lowered:
            return self._take(NAMED, 1) or self._take(RENAMED, 1) or made_name(label)
        for index, shape in enumerate(SHAPES[:2]):
            example = shape.search(placeholder or "")
            if example:
                carved = free_block(within, taken) if index == 0 else None
                return self._take(shape) or carved or example.group(0)
        return None

    def of_kind(self, label: str) -> str | None:
        """The goal's password, name or quoted description for a field of that kind, without using it up:
        what a field whose document value is an instruction ("enter a name for the key pair") takes before
        any word that merely stands beside its label in the goal ("an *SSH* key pair")."""
        lowered = label.casefold()
        if "password" in lowered:
            return self._password(use=False)
        pattern = QUOTED if "description" in lowered else NAMED if "name" in lowered else None
        found = pattern.search(self.goal) if pattern is not None else None
        return found.group(1) if found else None

    def _password(self, use: bool = True) -> str | None:
        """The password-like word after "password" (else the first in the goal: "web-01" before "password"
        is a name). A goal that never says "password" gives none: "ecs.g7.large" has a letter, a digit and a
        sign too (measured as an instance type typed into **Logon Password**)."""
        after = self.goal.casefold().find("password")
        if after < 0:
            return None
        for start in (after, 0):
            found = PASSWORD.search(self.goal, start)
            if found:
                if use:
                    self._used.add((found.start(1), found.group(1)))
                return found.group(1)
        return None

    def named(self, label: str) -> bool:
        """Whether the goal gives a value for this kind of field (without using it up)."""
        lowered = label.casefold()
        if "name" in lowered:
            return bool(NAMED.search(self.goal) or RENAMED.search(self.goal))
        return "description" in lowered and bool(QUOTED.search(self.goal))


def option_in_goal(options: list[str], goal: str) -> str | None:
    """The one listed choice the goal names by its own words ("allows" names **Allow**, "TCP" **Custom
    TCP**): words shared by several choices ("Custom", "All") tell nothing. None when no choice or more
    than one is named."""
    if len(options) < 2:
        return None
    goal_words = {root(w) for w in re.findall(r"[a-z0-9]+", goal.casefold())}  # "a disabled trigger" names **Disable**
    # "**Online (the instance keeps running)**": a choice's explanation in brackets rarely stands in the goal, so
    # its name before the brackets is tried when the whole text names none
    for texts in (options, [o.split("(")[0] or o for o in options]):
        words = [{root(w) for w in re.findall(r"[a-z0-9]+", o.casefold())} for o in texts]
        shared = _shared_words(words)
        # a choice named by a word that also links a sentence ("ON", "IN") is not named by "Run VACUUM on the table"
        own = [ws - shared - STOPWORDS for ws in words]
        named = [o for o, ws in zip(options, own) if ws and ws <= goal_words]
        if len(named) > 1 and PARENTHESIS.search(goal):  # "fires always (on replicas too)": the aside names no choice
            return option_in_goal(options, PARENTHESIS.sub(" ", goal))
        if named:
            return named[0] if len(named) == 1 else None
    return None


def _shared_words(word_sets: list[set[str]]) -> set[str]:
    """The words more than one choice has: they tell the choices apart no better than silence."""
    return {w for i, ws in enumerate(word_sets) for w in ws if any(w in other for j, other in enumerate(word_sets) if j != i)}


_MIN_PURPOSE_WORDS = 2  # words a goal must share with one choice's purpose alone: "table" and "database" tell nothing


def option_by_purpose(options: list[str], sentence: str, goal: str) -> str | None:
    """The listed choice whose purpose, as the sentence listing the choices states it ("**REINDEX** to rebuild any
    index ..."), the goal states in its own words ("Rebuild the indexes of the table"), for a goal that names no
    choice. Words of more than one choice's purpose ("the selected table") tell nothing; the choice must share at
    least two other words with the goal, and more than any other choice does. None otherwise."""
    scores = sorted(((score, option) for option, score in _purpose_scores(options, sentence, goal).items()), reverse=True)
    if len(scores) < 2 or scores[0][0] < _MIN_PURPOSE_WORDS or scores[0][0] == scores[1][0]:
        return None
    return scores[0][1]


# words of one control's purpose a goal must have when several controls may be asked for at once: two are too few, as
# goals say where and what they create ("In the database demo, create ..." is no wish to "replicate all the tables of
# the database, including tables created in the future"; measured as a publication made for all tables)
_MIN_STATED_WORDS = 3


def purpose_stated(option: str, options: list[str], text: str, goal: str) -> bool:
    """Whether the goal states, in its own words, the purpose the text gives one of several controls it lists
    ("Move the **SKIP LOCKED** switch to the **Yes** position to specify that VACUUM should not wait for any
    conflicting locks", for a goal "without waiting for conflicting locks"): at least three words of that purpose
    alone. Unlike ``option_by_purpose`` several controls may be asked for at once."""
    return _purpose_scores(options, text, goal).get(option, 0) >= _MIN_STATED_WORDS


def _purpose_scores(options: list[str], text: str, goal: str) -> dict[str, int]:
    """For each choice, how many words of its purpose alone (none another choice's purpose has) the goal has."""
    words = [{root(w) for w in terms(_purpose_of(option, text, options))} for option in options]
    shared = _shared_words(words)
    goal_words = {root(w) for w in terms(goal)}
    return {option: len((ws - shared) & goal_words) for option, ws in zip(options, words)}


def _purpose_of(option: str, text: str, options: list[str]) -> str:
    """What a text says after a choice's bold name, up to the next choice's ("to rebuild any index ..."; a bold
    word that is no choice, such as the **Yes** a switch is moved to, belongs to the purpose)."""
    after = text.split(f"**{option}**", 1)
    if len(after) != 2:
        return ""
    rest = after[1].split("\n", 1)[0]  # a list's next item is another control's
    ends = [at for other in options if other != option for at in [rest.find(f"**{other}**")] if at >= 0]
    return rest[:min(ends)] if ends else rest


_UNCHANGED = re.compile(r"\b(?:without changing|not changing|keeping|keep|leaving|leave)\s+(?:the|their|its)\s+"
                        r"(?P<what>[a-z]+(?:\s+[a-z]+)?)(?:\s+(?:unchanged|as (?:it is|they are)))?", re.IGNORECASE)


def left_unchanged(label: str, goal: str) -> bool:
    """Whether the goal says to leave this field as it is: "without changing their names" for *Instance
    Name*; "keep the description" for *Description*."""
    def roots(text: str) -> set[str]:
        return {root(w) for w in re.findall(r"[a-z]+", text.casefold())} - {"instanc", "resourc", "the"}

    return any(roots(m.group("what")) & roots(label) for m in _UNCHANGED.finditer(goal or ""))


# "leaves the rule description empty", "keeping its description blank", "without a description"
_EMPTY = re.compile(r"\b(?:leav(?:e|es|ing)|keep(?:s|ing)?)\s+(?:the|its|their)\s+(?P<what>[a-z]+(?:\s+[a-z]+){0,2}?)\s+"
                    r"(?:empty|blank)\b|\b(?:without|with no)\s+(?:a\s+|an\s+|any\s+)?(?P<none>[a-z]+)\b", re.IGNORECASE)


def left_empty(label: str, goal: str) -> bool:
    """Whether the goal wants this field left empty: "leaves the rule description empty" or "without a
    description" for **Description** (its label's last word among the words the goal leaves empty)."""
    words = re.findall(r"[a-z]+", label.casefold())
    if not words:
        return False
    return any(stem(words[-1]) in {stem(w) for w in (m.group("what") or m.group("none")).split()}
               for m in _EMPTY.finditer(goal or ""))


def with_goal_values(instructions: list[Instruction], values: GoalValues) -> list[Instruction]:
    """The document's instructions as a person with this goal performs them: typed and chosen values come
    from the goal where it names one of the same kind (or one of the choices the document lists); a field the
    goal leaves empty is not filled; a "change the parameters" table sets only what the goal changes; of
    "click **Start**, **Stop** or **Restart**" the button the goal asks for or whose purpose it states. One
    reading for the documentation follower and for the ranker's document plan, so the two cannot disagree.
    ``values`` is the episode's one ``GoalValues``: each goal value is used once, in document order."""
    goal = values.goal
    valued: list[Instruction] = []
    for i in instructions:
        if i.kind in ("fill", "select") and left_empty(i.target, goal):
            continue  # "... and leaves the rule description empty": the example is not typed
        if i.kind in ("fill", "select") and i.changes_only:  # "change the parameters": only what the goal changes
            value = values.changed_value(i.target, i.value, i.options)
            valued += [replace(i, value=value)] if value is not None else []
        elif i.kind in ("fill", "select") and i.value:
            valued.append(replace(i, value=values.value_for(i.target, i.value, i.options)))
        elif i.kind == "click" and i.options:
            chosen = option_in_goal(i.options, goal) or option_by_purpose(i.options, i.text, goal)
            valued.append(replace(i, target=chosen or i.target))
        else:
            valued.append(i)
    return valued


def free_block(within: list[str] | tuple[str, ...], taken: list[str] | tuple[str, ...] = (), prefix: int = 24) -> str | None:
    """A /24 (or the range's own size, when smaller) inside the first range of ``within`` that overlaps
    nothing in ``taken``: what a person types into "IPv4 CIDR block" when the hint says "Must be within the
    VPC CIDR block 10.0.0.0/16". The first block is skipped (it is the one most often taken already)."""
    used = [network for network in map(_network, taken) if network is not None]
    for parent in filter(None, map(_network, within)):
        blocks = list(itertools.islice(parent.subnets(new_prefix=prefix), 4096)) if parent.prefixlen < prefix else [parent]
        for block in blocks[1:] + blocks[:1]:
            if not any(block.overlaps(u) for u in used if u != parent):
                return str(block)
    return None


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """An address range as written ("10.0.0.0/16"), or None when it is not one (999.1.1.0/24)."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def made_name(label: str) -> str:
    """A valid resource name for a name field the goal does not name: "vSwitch name" → "doc-vswitch"."""
    words = [w for w in re.findall(r"[a-z0-9]+", label.casefold()) if w != "name"]
    return "doc-" + ("-".join(words) or "resource")[:40]


def row_hints(goal: str) -> list[str]:
    """Besides names, what tells a table row of the goal's from the others: its ports ("TCP port 3389" is
    the rule whose row shows 3389/3389) and CIDR blocks."""
    ports = [p for m in PORTS.finditer(goal or "") for p in (m.group("first"), m.group("last")) if p]
    return list(dict.fromkeys(ports + SHAPES[0].findall(goal or "")))


def prepared_resources(report: str | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """The resources of an observation's "Resources prepared for you" section (``- web (ecs_instance):
    instance_id=i-3j7..., instance_name=legacy-web-01``): (kind, [(key, value), ...]), its own id first."""
    return [(kind.casefold(), re.findall(r"([\w.]+)=([^,\s]+)", rest))
            for kind, rest in re.findall(r"^- \S+ \((\w+)\): (.*)$", report or "", re.M)]


def _goals_resources(resources: list[tuple[str, list[tuple[str, str]]]], names: list[str]
                     ) -> tuple[list[list[tuple[str, str]]], list[tuple[str, list[tuple[str, str]]]]]:
    """The prepared resources the goal names, and the others (with their kinds) that refer to one of those."""
    wanted = {n.casefold() for n in names}
    named = [pairs for _, pairs in resources if pairs and any(v.casefold() in wanted for _, v in pairs)]
    own = {pairs[0][1].casefold() for pairs in named}
    referring = [(kind, pairs) for kind, pairs in resources if pairs and pairs not in named
                 and any(v.casefold() in own for _, v in pairs)]
    return named, referring


def related_values(report: str | None, names: list[str]) -> list[str]:
    """Every value of the prepared resources the goal names, and of those that refer to them (the vSwitch
    of the goal's VPC): its zone, CIDR block and ids, what an option of a later field may be named by."""
    named, referring = _goals_resources(prepared_resources(report), names)
    related = named + [pairs for _, pairs in referring]
    values = [v for pairs in related for _, v in pairs if len(v) >= 3]
    # a zone id's display name, as consoles of this kind write it: cn-hangzhou-h is "Zone H"
    zones = [f"Zone {z.group(1).upper()}" for pairs in related for k, v in pairs if k == "zone_id"
             for z in [re.search(r"-([a-z])$", v)] if z]
    return list(dict.fromkeys(values + zones))


def resource_hints(report: str | None, names: list[str], goal: str = "") -> list[str]:
    """The ids of the prepared resources the goal names: a console that cuts long names short in its rows
    ("lega…") still shows the id. Also of a resource of a kind the goal names that refers to one of those
    (the row that mentions the instance is the row of its EIP), or that is the only one of its kind and has
    no name to be found by ("keep its EIP", one EIP prepared)."""
    resources = prepared_resources(report)
    named, referring = _goals_resources(resources, names)
    text = " ".join(re.findall(r"[a-z0-9]+", (goal or "").casefold()))

    def kind_position(kind: str) -> int:
        """Where the goal names this kind of resource ("ecs_instance" as "ECS instance"); past its end: nowhere."""
        found = re.search(rf"\b{re.escape(kind.replace('_', ' '))}s?\b", text)
        return found.start() if found else len(text) + 1

    def of_goals_kind(kind: str) -> bool:
        return kind_position(kind) <= len(text)

    named += [pairs for kind, pairs in referring if of_goals_kind(kind)]
    # a goal that names no resource at all (a document's title: "Attach a data disk to an ECS instance"): the
    # prepared resources of the kinds it names are what the document's prerequisites prepared for it, its object
    # (the kind named first) first
    for kind, pairs in sorted(resources, key=lambda r: kind_position(r[0])):
        alone = sum(k == kind for k, _ in resources) == 1
        nameless = not any(k.endswith("name") for k, _ in pairs)
        if pairs and pairs not in named and of_goals_kind(kind) and alone and (nameless or not names):
            named.append(pairs)
    wanted = {n.casefold() for n in names}
    hints = [h for pairs in named for h in [pairs[0][1]] + [v for k, v in pairs if k in ("ip_address", "public_ip") and v]]
    return list(dict.fromkeys(h for h in hints if h.casefold() not in wanted))


def choose_option(options: list[str], goal: str, related: list[str] | tuple[str, ...] = ()) -> str | None:
    """The option a person would pick when the document's example is not offered: the one naming the
    goal's resource, else the one naming a value of the goal's prepared resources (``related``: the zone
    its vSwitch is in), else the only real one (not a "Select a ..." placeholder); None when unclear."""
    for names in ([n.casefold() for n in goal_identifiers(goal)], [v.casefold() for v in related]):
        # "branch-vpc" names "branch-vpc (192.168.0.0/16)", not "branch-vpc-old (10.99.0.0/16)": a name ends where
        # a name's characters end
        named = [o for o in options if any(names_whole(o, n) for n in names)]
        if len(named) > 1:  # several: the one that is the name itself, its details aside
            named = [o for o in named if o.split(" (")[0].strip().casefold() in names] or named
        if len(named) == 1:
            return named[0]
    real = real_options(options)
    return real[0] if len(real) == 1 else None


def named_by_goal(options: list[str], goal: str) -> str | None:
    """The option whose own name, its details aside, the goal writes whole: "to ecs.g7.2xlarge" names
    "ecs.g7.2xlarge (8 vCPU 32 GiB)", never "ecs.g7.4xlarge (...)" (measured as the follower choosing by
    meaning and taking the larger type). The longest when several do ("12 Months" over "Months")."""
    named = [o for o in real_options(options) if (own := o.split(" (")[0].strip()) and names_whole(goal, own)]
    if not named:
        return None
    longest = max(len(o.split(" (")[0]) for o in named)
    best = [o for o in named if len(o.split(" (")[0]) == longest]
    return best[0] if len(best) == 1 else None


# comparison operators as a goal writes them in words ("no two rows have an equal room" for **=**)
OPERATOR_WORDS = {"=": ("equal", "equals", "the same"), "<>": ("not equal", "different"), "!=": ("not equal", "different"),
                  "<": ("less than", "lower than"), ">": ("greater than", "more than", "higher than"),
                  "<=": ("at most", "less than or equal"), ">=": ("at least", "greater than or equal"),
                  "&&": ("overlap", "overlaps", "overlapping"), "@>": ("contains",), "<@": ("contained by",)}


def operator_in_goal(options: list[str], goal: str) -> str | None:
    """The operator among ``options`` that the goal writes in words; of several, the one written at the greater
    length ("not equal" is **<>**, not **=**); None when none or a tie."""
    found = [(max((len(w) for w in OPERATOR_WORDS.get(o.strip(), ()) if names_whole(goal, w)), default=0), o)
             for o in options]
    best = max((n for n, _ in found), default=0)
    chosen = [o for n, o in found if n == best and n > 0]
    return chosen[0] if len(chosen) == 1 else None


def real_options(options: list[str]) -> list[str]:
    """The options that are choices, not a "Select a ..." placeholder."""
    return [o for o in options if o.strip() and not re.match(r"\s*(select|choose|please|none|--)\b", o, re.IGNORECASE)]


def choose_by_meaning(options: list[str], instruction: str, goal: str, related: list[str] | tuple[str, ...] = ()) -> str | None:
    """The option a document's instruction ("Select the VPC of the application servers") points at: the
    one naming the goal's resource, else the one closest in meaning to the instruction and the goal (the
    sentence encoder, lexical fallback), else the first real one; None when there is none."""
    real = real_options(options)
    if not real:
        return None
    named = choose_option(real, goal, related)
    if named is not None:
        return named
    from consoleagent.encoder import get_encoder

    encoder = get_encoder()
    scores = [max(pair) for pair in zip(encoder.similarities(instruction, real), encoder.similarities(goal or instruction, real))]
    return real[max(range(len(real)), key=lambda i: (scores[i], -i))]
