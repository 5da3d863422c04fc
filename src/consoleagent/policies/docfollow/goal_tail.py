"""What the goal asks for after the document's procedure ends: "..., then start it again", "... and, once it
is running, restart it", "... and start it again afterwards".

A document describes one operation; a goal often chains a second command on the same resource. A person
who has followed the document to its end reads the rest of the goal, finds that command's button in the
resource's row (or on its page), waits while the button is disabled (the instance is still "Stopping"),
clicks it and confirms when a dialog asks. Only a last clause whose object is the resource itself ("VERB
it") is read this way: a clause with objects or values of its own ("attach it to build-01", "set its
description to ...", "allow inbound TCP port 22 ...") needs a procedure the document does not give.

Measured on the training split: goals ending "then start it again" and "once it is running, restart it"
ended at the document's last step.
"""

from __future__ import annotations

import re

from consoleagent.documents.instructions import Instruction, instructions_from
from consoleagent.documents.labels import normalize
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.docfollow.marks import names_in

# The goal's last clause: ", then start it again.", ", restart it.", " and start it again afterwards."
_TAIL = re.compile(r"(?:,|\band\b|\bthen\b)\s*(?:and\s+)?(?:then\s+)?(?P<verb>[a-z]+)\s+(?:it|them)"
                   r"(?:\s+(?:again|afterwards|afterward|as well|too))*\s*[.!]?\s*$", re.I)
# Not commands of a console: "leave it", "keep it", "wait for it"
_NOT_COMMANDS = {"leave", "keep", "wait", "let", "make", "have", "use", "name", "call", "check", "verify", "see"}
COMMAND_ROLES = {"button", "menuitem", "link"}


def tail_instruction(goal: str, document: list[str]) -> Instruction | None:
    """The console command the goal adds after the document's procedure ("Start") as the follower's instruction
    (kind ``tail``), or None: no such clause, or a command the document's own steps already click."""
    found = _TAIL.search(goal.strip())
    if found is None or found.group("verb").casefold() in _NOT_COMMANDS:
        return None
    command = found.group("verb").capitalize()
    clicked = {normalize(i.target) for text in document for i in instructions_from(text) if i.kind == "click"}
    if normalize(command) in clicked:
        return None
    return Instruction("tail", command, text=found.group(0).strip(" ,."), sentence=goal)


def command_mark(command: str, obs: Observation, names: list[str]) -> Mark | None:
    """The command's button for the goal's resource: in the row that names it (the whole name: "build-agent-7"
    is not the row of "build-agent-7-b"), or anywhere on a page whose URL or title names it. Never another
    row's button, and never a button merely like the command: a goal is no document to report against."""
    on_its_page = any(n.casefold() in f"{obs.url} {obs.title}".casefold() for n in names)
    candidates = [m for m in obs.marks if m.role in COMMAND_ROLES and normalize(m.name) == normalize(command)]
    in_row = [m for m in candidates if names_in(m.context, names)]
    if in_row:
        return min(in_row, key=lambda m: "disabled" in m.states)
    if on_its_page:
        unrowed = [m for m in candidates if not m.context.startswith("row")]
        return min(unrowed, key=lambda m: "disabled" in m.states) if unrowed else None
    return None
