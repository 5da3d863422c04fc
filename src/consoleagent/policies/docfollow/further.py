"""The goal's further operation, done with the procedure the document refers to for it.

A goal often goes on after the document's operation: "..., and attach it to build-01 once it is available",
"..., then allow inbound TCP port 22 from 10.0.0.0/8 in it with priority 1". The document does not describe
that operation, but it names the page that does ("For more information, see Attach a data disk."). A
person who has followed the document to its end reads the rest of the goal, opens that page and follows
it too. So does the follower: a clause after the goal's first ("then ...", ", and ...", "and <verb> it",
", <verb> ..." after a command) whose words meet one referenced title's words more than any other's
(``documents.labels.terms``, function words aside) names that procedure, and each such clause its own.
Words of the goal's first clause do not count: they name the document's own operation and its object
("once the image is available set its description" shares only "image" with "Create an instance from a
custom image", which would create an instance nobody asked for). A goal is no document to report against,
and neither is the page it borrows: discrepancies there are not reported (``DocFollowerPolicy._report``).

Measured on the training split: three tasks ended at the document's last step, the disk never attached, the
rule never added, the EIP never associated; and a goal of two further operations ("..., associate the EIP
backend-nat-eip with it, and add a route for 0.0.0.0/0 through it ...") did only one of them.
"""

from __future__ import annotations

import re

from consoleagent.documents.labels import terms
from consoleagent.policies.docfollow.semantic import ACTION_VERBS

# Where the goal's next clause begins: ", then", "then", ", and", "and <verb> it"
_BREAK = re.compile(r",\s*(?:and\s+)?then\s+|\s+then\s+|,\s*and\s+|\s+and\s+(?=[a-z]+\s+(?:it|them|its|their)\b)", re.I)
# ", <a console's verb>" between two commands ("Create a NAT gateway ..., associate the EIP ... with it"); after a
# phrase that sets the scene ("In the security group web-sg, add an outbound rule") it is the same command
_VERB = rf"(?:{'|'.join(sorted(ACTION_VERBS))})\b"
_COMMA_VERB = re.compile(rf",\s+(?={_VERB})", re.I)
_COMMAND = re.compile(rf"^\s*{_VERB}", re.I)
_WHEN = re.compile(r"^(?:once|when|after|as soon as)\b[^,]*,\s*", re.I)  # "once it is available, attach it": the verb after
_FUNCTION = {"them", "their", "they", "once", "when", "after", "until", "are", "be", "then"}  # beyond terms' own


def _content(text: str) -> set[str]:
    return terms(text) - _FUNCTION


def _clauses(goal: str) -> list[str]:
    """The goal's clauses: split at its breaks, and a command at ", <verb>" where another command comes next."""
    return [part for clause in _BREAK.split(goal)
            for part in (_COMMA_VERB.split(clause) if _COMMAND.match(clause) else [clause])]


def further_procedures(goal: str, related: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The referenced procedures (title, steps) for the goal's further clauses, in the goal's order: each
    clause after the first that shares a word with exactly one best title names that title ("..., associate
    the EIP with it, and add a route ... through it" names two pages); none when no clause does."""
    if not related:
        return []
    first, *further = _clauses(goal or "")
    own = _content(first)  # the document's operation and its object ("a custom image"): they name no other page
    found: list[tuple[str, list[str]]] = []
    for clause in further:
        words = _content(_WHEN.sub("", clause.strip())) - own
        scored = sorted(((len(_content(title) & words), title) for title in related), reverse=True)
        best = scored[0][1]
        if scored[0][0] >= 1 and (len(scored) == 1 or scored[1][0] < scored[0][0]) and best not in dict(found):
            found.append((best, list(related[best])))
    return found
