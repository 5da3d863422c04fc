"""Matching a free-text ``request_resource("...")`` to Resource META templates, offline and deterministically.

"a VPC with one vSwitch in zone b" → ``vpc`` + ``vswitch(vpc_id=${vpc.vpc_id}, zone=cn-hangzhou-b)``.
The matcher finds the resources a request names (a template's name or keywords, longest phrase
first), how many of each ("two vSwitches"), and the few attributes a request usually states: zones
(``zone b`` or ``cn-hangzhou-b``), CIDR blocks, running/stopped, ports and well-known services for
security-group rules, names, sizes, bandwidths, instance types and billing. Each value goes to the
nearest named resource that has such an attribute; values a template would refuse (not among its
choices) are left out so the template's default applies. A requirement whose template depends on
another named resource refers to it (``${vpc.vpc_id}``); a dependency the request does not name is
left to the engine, which supplies it implicitly. A denied link ("is not attached", "not associated with
an instance or a NAT gateway") links nothing and asks for nothing it names. No model is involved: the same request always
gives the same requirements, which is what keeps offline provisioning reproducible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from consoleagent.provisioning.types import Requirement

# Keywords that describe a resource's attributes or actions rather than name a resource: they
# never make a request ask for a template on their own.
WEAK_KEYWORDS = frozenset({
    "zone", "port", "rule", "running", "stopped", "attach", "detach", "associate", "ingress", "egress", "subscription",
    "auto-renewal", "renew", "network", "gateway", "route", "backup", "rollback", "ip address", "internet access",
    "route entry", "next hop", "routing", "volume", "server", "switch",
})
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
SERVICE_PORTS = {"ssh": 22, "rdp": 3389, "remote desktop": 3389, "http": 80, "https": 443, "mysql": 3306,
                 "postgresql": 5432, "postgres": 5432, "redis": 6379}
MAX_COUNT = 6

_CIDR = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}\b")
_ZONE_ID = re.compile(r"\b[a-z]{2}-[a-z]+(?:-\d)?-[a-z0-9]\b")
_ZONE_LETTER = re.compile(r"\bzone\s+([a-z])\b")
_INSTANCE_TYPE = re.compile(r"\becs\.[a-z0-9-]+\.[a-z0-9]+\b")
_NAME = re.compile(r"\b(?:named|called|with the name|name)\s+[\"'“]?([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)[\"'”]?", re.IGNORECASE)  # a sentence's full stop is not part of it
_SIZE = re.compile(r"\b(\d{1,5})\s*(?:gib|gb|g)\b")
_BANDWIDTH = re.compile(r"\b(\d{1,4})\s*(?:mbps|mbit/s|mbit|m)\b")
_PORT = re.compile(r"\bports?\s+(\d{1,5})(?:\s*(?:-|to)\s*(\d{1,5}))?")
_FROM_CIDR = re.compile(r"\bfrom\s+(\d{1,3}(?:\.\d{1,3}){3}/\d{1,2})")
_LINKING = re.compile(r"\b(attach|associat|bound|bind)")
# "is not attached", "not associated with an instance or a NAT gateway", "unattached": the link is denied and
# what it names is not asked for (up to the end of the clause)
_NEGATED_LINK = re.compile(r"\b(?:(?:is|are|be)\s+)?(?:not|never|no longer)\s+(?:yet\s+)?(?:attach|associat|bound|bind)\w*"
                           r"(?:\s+(?:to|with)\b[^.;,()]*)?|\b(?:un(?:attach|associat|bound)|detach)\w*", re.IGNORECASE)


@dataclass
class Mention:
    """One resource named in the request: which template, where, and how many."""

    template: str
    start: int
    end: int
    count: int = 1
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Value:
    """An attribute value found in the text, waiting to be given to the nearest resource that takes it."""

    attributes: tuple[str, ...]  # the attribute names it may fill, preferred first
    value: Any
    start: int
    end: int
    before: bool = True  # usually written after its resource ("a VPC 10.0.0.0/8"); False for adjectives ("a stopped instance")


class RequestMatcher:
    """Free text → requirements for a ``TemplateLibrary`` (``names()`` and ``get(name)``)."""

    def __init__(self, library: Any, *, region: str = "cn-hangzhou") -> None:
        self.library = library
        self.region = region
        self._phrases = self._keyword_phrases()

    def _keyword_phrases(self) -> list[tuple[str, str]]:
        """(phrase, template) pairs, longest phrase first so "nat gateway" wins over "gateway"."""
        phrases: dict[str, str] = {}
        for name in self.library.names():
            template = self.library.get(name)
            for phrase in [name, name.replace("_", " "), *getattr(template, "keywords", [])]:
                phrase = phrase.lower().strip()
                if phrase and phrase not in WEAK_KEYWORDS:
                    phrases.setdefault(phrase, name)
        return sorted(phrases.items(), key=lambda item: (-len(item[0]), item[0]))

    def match(self, description: str, *, region: str | None = None) -> list[Requirement] | None:
        """The requirements the request asks for, or None when it names no known resource."""
        original = _NEGATED_LINK.sub(lambda m: " " * len(m.group(0)), " ".join(description.split()))
        text = original.lower()
        values, masked = self._values(text, original if len(original) == len(text) else text, region or self.region)
        mentions = self._mentions(masked)
        if not mentions:
            return None
        self._assign(values, mentions)
        return self._requirements(mentions, linking=bool(_LINKING.search(text)))

    # --- finding resources --------------------------------------------------------------------
    def _mentions(self, text: str) -> list[Mention]:
        taken = [False] * len(text)
        found: list[Mention] = []
        for phrase, template in self._phrases:
            pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(phrase)}(?:s|es)?(?![a-z0-9_])")
            for hit in pattern.finditer(text):
                if any(taken[hit.start():hit.end()]):
                    continue
                taken[hit.start():hit.end()] = [True] * (hit.end() - hit.start())
                found.append(Mention(template, hit.start(), hit.end(), count=self._count_before(text, hit.start())))
        found.sort(key=lambda m: m.start)
        return self._merge_repeats(found)

    @staticmethod
    def _count_before(text: str, start: int) -> int:
        """"two vSwitches", "3 stopped instances": a number up to three words before the resource."""
        words = re.findall(r"[a-z0-9-]+", text[max(0, start - 40):start])[-3:]
        for word in reversed(words):
            if word in NUMBER_WORDS:
                return NUMBER_WORDS[word]
            if word.isdigit() and 0 < int(word) <= MAX_COUNT:
                return int(word)
        return 1

    @staticmethod
    def _merge_repeats(mentions: list[Mention]) -> list[Mention]:
        """"an ECS instance (a running instance)": the same template named again without a count is one resource."""
        merged: list[Mention] = []
        for mention in mentions:
            previous = next((m for m in merged if m.template == mention.template), None)
            if previous is not None and mention.count == 1:
                continue
            merged.append(mention)
        return merged

    # --- finding attribute values -------------------------------------------------------------
    def _values(self, text: str, original: str, region: str) -> tuple[list[_Value], str]:
        """Every attribute value in the text, and the text with the values blanked out (so "ecs.g7.large"
        does not also read as the resource "ecs")."""
        values: list[_Value] = []
        chars = list(text)

        def take(hit: re.Match[str], attributes: tuple[str, ...], value: Any, group: int = 0, before: bool = True) -> None:
            values.append(_Value(attributes, value, hit.start(), hit.end(), before))
            chars[hit.start(group):hit.end(group)] = " " * (hit.end(group) - hit.start(group))

        rule_sources = {hit.start(1) for hit in _FROM_CIDR.finditer(text)}
        for hit in _INSTANCE_TYPE.finditer(text):
            take(hit, ("instance_type",), hit.group(), before=False)
        for hit in _ZONE_ID.finditer(text):
            take(hit, ("zone",), hit.group())
        for hit in _ZONE_LETTER.finditer(text):
            take(hit, ("zone",), f"{region}-{hit.group(1)}", 1)
        for hit in _CIDR.finditer(text):
            if hit.start() not in rule_sources:
                take(hit, ("cidr_block",), hit.group())
        for hit in _NAME.finditer(original):  # names keep their case
            take(hit, ("name",), hit.group(1), 1)
        for hit in _SIZE.finditer(text):
            take(hit, ("size", "system_disk_size"), int(hit.group(1)), before=False)
        for hit in _BANDWIDTH.finditer(text):
            take(hit, ("bandwidth", "internet_bandwidth"), int(hit.group(1)))
        for hit in re.finditer(r"\b(running|started|stopped)\b", text):
            take(hit, ("state",), "running" if hit.group(1) in ("running", "started") else "stopped", before=False)
        for hit in re.finditer(r"\b(subscription|prepaid|pre-paid|pay-as-you-go|postpaid|pay as you go)\b", text):
            take(hit, ("charge_type",), "prepaid" if hit.group(1) in ("subscription", "prepaid", "pre-paid") else "postpaid",
                 before=False)
        values.extend(self._rules(text))
        return values, "".join(chars)

    @staticmethod
    def _rules(text: str) -> list[_Value]:
        """Security-group rules from "allows SSH", "port 8080", "ports 80-443 from 10.0.0.0/8"."""
        source = _FROM_CIDR.search(text)
        cidr = source.group(1) if source else "0.0.0.0/0"
        found: list[_Value] = []
        for service, port in SERVICE_PORTS.items():
            for hit in re.finditer(rf"\b{re.escape(service)}\b", text):
                found.append(_Value(("rules",), f"tcp:{port}:{cidr}", hit.start(), hit.end()))
        for hit in _PORT.finditer(text):
            low, high = hit.group(1), hit.group(2) or hit.group(1)
            found.append(_Value(("rules",), f"tcp:{low}-{high}:{cidr}" if low != high else f"tcp:{low}:{cidr}",
                                hit.start(), hit.end()))
        for hit in re.finditer(r"\b(ping|icmp)\b", text):
            found.append(_Value(("rules",), f"icmp:-1:{cidr}", hit.start(), hit.end()))
        found.sort(key=lambda v: v.start)
        return found

    def _assign(self, values: list[_Value], mentions: list[Mention]) -> None:
        """Give each value to the nearest resource that takes it, on the side the value is usually written
        (a resource that already has a value for that attribute comes last); a value no named resource
        takes goes to a dependency that does ("an instance in zone i" → its vSwitch)."""
        for value in values:
            best = self._taker(value, mentions)
            if best is None:
                best = self._taker(value, self._suppliers(mentions))
                if best is not None:
                    mentions.append(best[0])
                    mentions.sort(key=lambda m: m.start)
            if best is None:
                continue
            mention, name = best
            if name == "rules":
                rules = mention.params.setdefault("rules", [])
                if value.value not in rules:
                    rules.append(value.value)
            else:
                mention.params.setdefault(name, value.value)

    def _taker(self, value: _Value, mentions: list[Mention]) -> tuple[Mention, str] | None:
        ranked: list[tuple[int, int, Mention, str]] = []
        for position, mention in enumerate(mentions):
            attributes = self.library.get(mention.template).attributes
            name = next((a for a in value.attributes if a in attributes), None)
            if name is None or not self._acceptable(attributes[name], value.value):
                continue
            preferred_side = mention.start <= value.start if value.before else mention.start >= value.end
            distance = max(mention.start - value.end, value.start - mention.end, 0)
            distance += (0 if preferred_side else 1_000) + (10_000 if name in mention.params and name != "rules" else 0)
            ranked.append((distance, position, mention, name))
        if not ranked:
            return None
        _, _, mention, name = min(ranked, key=lambda item: item[:2])
        return mention, name

    def _suppliers(self, mentions: list[Mention]) -> list[Mention]:
        """Resources the named ones depend on but the request does not name (at their dependant's place)."""
        named = {m.template for m in mentions}
        found: list[Mention] = []
        queue = list(mentions)
        while queue:
            mention = queue.pop(0)
            for supplier in (getattr(self.library.get(mention.template), "depends", {}) or {}).values():
                if supplier not in named:
                    named.add(supplier)
                    extra = Mention(supplier, mention.start, mention.start)
                    found.append(extra)
                    queue.append(extra)
        return found

    @staticmethod
    def _acceptable(attribute: Any, value: Any) -> bool:
        choices = tuple(getattr(attribute, "choices", ()) or ())
        kind = getattr(attribute, "type", "str")
        if kind == "list[str]":
            return True
        if kind == "int" and not isinstance(value, int) or kind == "str" and not isinstance(value, str):
            return False
        return not choices or value in choices

    # --- requirements -------------------------------------------------------------------------
    def _requirements(self, mentions: list[Mention], *, linking: bool) -> list[Requirement]:
        """One requirement per resource (``vswitch``, ``vswitch_2``...), dependencies referring to named ones."""
        named: list[tuple[Mention, str]] = []
        for mention in mentions:
            for index in range(mention.count):
                named.append((mention, mention.template if index == 0 else f"{mention.template}_{index + 1}"))
        requirements: list[Requirement] = []
        for mention, name in named:
            if any(r.name == name for r in requirements):  # the same template named twice with counts
                continue
            template = self.library.get(mention.template)
            params = {k: list(v) if isinstance(v, list) else v for k, v in mention.params.items()}
            params.update(self._references(template, named, mention, linking))
            requirements.append(Requirement(name=name, template=mention.template, params=params))
        return _dependency_order(requirements, self.library)

    def _references(self, template: Any, named: list[tuple[Mention, str]], me: Mention, linking: bool) -> dict[str, str]:
        """``${supplier.output}`` for each dependency the request names (the first resource of that kind)."""
        depends: dict[str, str] = dict(getattr(template, "depends", {}) or {})
        refs: dict[str, str] = {}
        for attribute in template.attributes:
            supplier = depends.get(attribute)
            candidates = [name for mention, name in named if mention is not me and
                          (mention.template == supplier if supplier else
                           linking and attribute.endswith("_id") and attribute in self.library.get(mention.template).outputs
                           and attribute != f"{template.name}_id")]
            if candidates:
                refs[attribute] = "${" + candidates[0] + "." + attribute + "}"
        return refs


def _dependency_order(requirements: list[Requirement], library: Any) -> list[Requirement]:
    """Suppliers before the requirements that refer to them, otherwise in the order of the request."""
    ordered: list[Requirement] = []
    pending = list(requirements)
    while pending:
        placed = {r.name for r in ordered}
        for requirement in pending:
            refs = {m.group(1) for v in requirement.params.values() if isinstance(v, str)
                    for m in re.finditer(r"\$\{([A-Za-z_][A-Za-z0-9_-]*)\.", v)}
            if refs <= placed or not refs & {r.name for r in pending}:
                ordered.append(requirement)
                pending.remove(requirement)
                break
        else:  # a cycle cannot come from a checked library; keep the request's order
            ordered.extend(pending)
            break
    return ordered
