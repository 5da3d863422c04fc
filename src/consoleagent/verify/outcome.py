"""Whether a procedure without a suite task reached its goal: the audit log's successful writes that
match the goal.

A task file says exactly which audit event proves its goal. A team's own document has only its
title ("Apply for an EIP for a web server"), so the rule is derived from it: among the console's
*write* actions (never its reads: ``DescribeEipAddresses`` must not satisfy "Add ..."), the ones
whose verb belongs to the goal's verb family ("apply for" ~ allocate/create, "release" ~
release/delete) and whose resource is closest in meaning to the goal's (the sentence encoder, or
its lexical fallback). The rule is an anchored alternation of those exact event names, so a
partial name can never match; the reward system counts only the agent's own successful calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from consoleagent.encoder import get_encoder

# Verb families: the words a document uses → the verbs API actions are named with. One family per verb
# kind; "add" is ambiguous (create a resource, or authorise a rule) and belongs to both.
VERB_FAMILIES: dict[str, tuple[set[str], set[str]]] = {
    "create": ({"create", "add", "apply", "allocate", "purchase", "buy", "launch", "run", "new", "make", "set up",
                "import", "generate", "build", "take"},
               {"create", "allocate", "run", "import"}),
    "delete": ({"delete", "release", "remove", "destroy", "terminate", "drop", "discard"},
               {"delete", "release"}),
    "modify": ({"modify", "change", "edit", "rename", "update", "configure", "set", "enable", "disable", "turn",
                "upgrade", "downgrade", "resize", "expand", "extend", "scale"},
               {"modify", "resize"}),
    "start": ({"start", "boot", "power on"}, {"start"}),
    "stop": ({"stop", "shut down", "shutdown", "halt", "power off"}, {"stop"}),
    "reboot": ({"reboot", "restart"}, {"reboot"}),
    "attach": ({"attach", "mount", "bind"}, {"attach"}),
    "detach": ({"detach", "unmount", "unbind"}, {"detach"}),
    "associate": ({"associate", "bind", "assign"}, {"associate"}),
    "unassociate": ({"unassociate", "disassociate", "unbind", "unassign"}, {"unassociate"}),
    "authorize": ({"add", "allow", "authorize", "open"}, {"authorize"}),
    "revoke": ({"revoke", "remove", "delete", "close"}, {"revoke"}),
    "join": ({"join", "add"}, {"join"}),
    "leave": ({"leave", "remove"}, {"leave"}),
    "renew": ({"renew", "extend"}, {"renew"}),
    "reset": ({"reset", "reinitialize", "reinitialise", "roll back", "rollback", "restore"}, {"reset"}),
}
# What an action's verb does to its resource, in a goal's words ("AuthorizeSecurityGroup" adds a rule).
GLOSS = {"authorize": "add rule to", "revoke": "remove rule from", "join": "add instance to", "leave": "remove instance from",
         "allocate": "create", "run": "create"}
RESOURCE_MARGIN = 0.05  # actions this close to the best resource match count too (StopInstance, StopInstances)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_FOLLOWING = re.compile(r",?\s*following the document\.?$", re.I)


@dataclass(frozen=True)
class ActionName:
    name: str  # "AllocateEipAddress"
    verb: str  # "allocate"
    resource: str  # "eip address"


def split_action(name: str) -> ActionName:
    words = [w.casefold() for w in _CAMEL.findall(name)]
    return ActionName(name, words[0] if words else "", " ".join(words[1:]))


def goal_verbs(goal: str) -> set[str]:
    """The API verbs a goal's own verbs can stand for (empty: the goal names no verb we know)."""
    text = " " + " ".join(re.sub(r"[^\w\s]", " ", _FOLLOWING.sub("", goal).casefold()).split()) + " "
    first = text.split()[:4]  # the verb is at the start of a title ("Apply for an EIP ...", "How to stop ...")
    verbs: set[str] = set()
    for words, api in VERB_FAMILIES.values():
        if any(" " in w and f" {w} " in text for w in words) or any(w in first for w in words if " " not in w):
            verbs |= api
    return verbs


def matching_writes(goal: str, writes: Iterable[str], labels: Iterable[str] = ()) -> list[str]:
    """The write actions that reach ``goal``: verb family first, then the document's own buttons, then the
    resource closest in meaning.

    With no verb recognised every write is a candidate; with no candidate at all, all writes are
    returned (still writes only). ``labels``: the UI labels the procedure names; an action spelt like one
    of them ("Create vSwitch" for ``CreateVSwitch``) is what the procedure does, whatever its title says
    ("Tutorial: give your VPC its first subnet" names the VPC, not the vSwitch it creates)."""
    actions = [split_action(name) for name in dict.fromkeys(writes)]
    verbs = goal_verbs(goal)
    candidates = [a for a in actions if a.verb in verbs] if verbs else actions
    if not candidates:
        return [a.name for a in actions]
    spelt = {re.sub(r"[^a-z0-9]", "", label.casefold()) for label in labels}
    pressed = [a for a in candidates if re.sub(r"[^a-z0-9]", "", a.name.casefold()) in spelt]
    candidates = pressed or candidates
    subject = _FOLLOWING.sub("", goal)
    phrases = [f"{GLOSS.get(a.verb, a.verb)} {a.resource}" for a in candidates]
    scores = get_encoder().similarities(subject, phrases)
    best = max(scores)
    return [a.name for a, score in zip(candidates, scores) if score >= best - RESOURCE_MARGIN]


def outcome_regex(names: list[str]) -> str:
    """An anchored alternation of exact event names: ``^(?:CreateVpc|...)$``."""
    return "^(?:" + "|".join(re.escape(n) for n in sorted(names)) + ")$"


def console_writes(console: object) -> list[str] | None:
    """The names of the console's state-changing API actions: its backend's ``write_actions()`` (the
    default console's when ``console`` is None), else None (unknown)."""
    if console is None:
        from consoleagent.consoles import DEFAULT_CONSOLE, backend_class

        console = backend_class(DEFAULT_CONSOLE)
    listed = getattr(console, "write_actions", None)
    return list(listed()) if callable(listed) else None


def goal_outcome_regex(goal: str, console: object = None, fallback: str = "", labels: Iterable[str] = ()) -> str:
    """The audit-event rule for a procedure without a task (see the module docstring); ``labels``: the UI
    labels its steps name. A console whose write actions are unknown keeps its own ``write_event`` rule (or
    ``fallback``)."""
    writes = console_writes(console)
    if not writes:
        return str(getattr(console, "write_event", None) or fallback)
    return outcome_regex(matching_writes(goal, writes, labels))
