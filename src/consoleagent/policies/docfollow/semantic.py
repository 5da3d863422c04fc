"""A document's label against what the page shows, by meaning: renames that share no word.

"Apply for EIP" became "Create EIP", "Release" became "Delete": no spelling rule sees these, the
sentence encoder does (cosine 0.77 for the first). Raw similarity is not enough on its own: short
verbs sit close to their opposites ("Inbound" ~ "Outbound Rules" 0.74, "Stop" ~ "Start" 0.43) and
to unrelated verbs ("Delete" ~ "Modify" 0.52). So: both labels are first written with one verb per
family (apply for/allocate/add → create, release/remove → delete), a pair whose words are
opposites is never a rename, nor is an action ("Create Widget") and a place ("Widgets"), and a
rename must clear ``RENAME_THRESHOLD`` and beat the runner-up by ``RENAME_MARGIN`` (two equally
close candidates are a guess, not a rename). The threshold is
calibrated on the embedded cloud's changelog renames (tests/test_docfollower_semantic.py); the lexical
fallback (no encoder installed) sees only shared words and trigrams, so it finds fewer renames,
never more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from consoleagent.documents.labels import OPPOSITES
from consoleagent.encoder import get_encoder

RENAME_THRESHOLD = 0.6
RENAME_MARGIN = 0.05
# One verb per family, as the document and the console may each word it.
CANONICAL_VERBS = {"apply for": "create", "allocate": "create", "add": "create", "new": "create", "purchase": "create",
                   "buy": "create", "release": "delete", "remove": "delete", "destroy": "delete", "terminate": "delete",
                   "edit": "modify", "change": "modify", "configure": "modify", "unassociate": "disassociate",
                   "unbind": "disassociate", "bind": "associate"}


def canonical(label: str) -> str:
    """The label with its verb written as its family's: "Apply for EIP" → "create eip"."""
    text = " " + " ".join(re.sub(r"[^\w\s]", " ", label.casefold()).split()) + " "
    for verb, canon in sorted(CANONICAL_VERBS.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(f" {verb} ", f" {canon} ")
    return text.strip()


# Words that make a label an action ("Create Widget") rather than a place ("Widgets"): an action is
# renamed to an action, never to the link of the page it acts on.
ACTION_VERBS = {"create", "delete", "modify", "apply", "release", "start", "stop", "reboot", "restart", "attach",
                "detach", "associate", "disassociate", "unassociate", "bind", "unbind", "renew", "reset", "resize",
                "enable", "disable", "import", "export", "edit", "change", "configure", "buy", "purchase", "new",
                "remove", "allocate", "join", "leave", "authorize", "revoke", "copy", "upload", "download", "save",
                "submit", "confirm", "cancel", "open", "close", "connect", "add", "rename", "upgrade", "roll", "make", "launch", "run"}


def is_action(label: str) -> bool:
    return any(w in ACTION_VERBS for w in re.sub(r"[^\w\s]", " ", label.casefold()).split())


def opposed(a: str, b: str) -> bool:
    """Whether one label says the opposite of the other ("Inbound" / "Outbound Rules")."""
    wa, wb = set(canonical(a).split()), set(canonical(b).split())
    return any((x in wa and y in wb and x not in wb) or (y in wa and x in wb and y not in wb) for x, y in OPPOSITES)


@dataclass(frozen=True)
class Rename:
    index: int  # of the candidate
    name: str
    score: float


def scores(label: str, names: Sequence[str]) -> list[float]:
    """Similarity of ``label`` to each name after verb canonicalisation (0 for opposites)."""
    if not names:
        return []
    raw = get_encoder().similarities(canonical(label), [canonical(n) for n in names])
    action = is_action(label)
    return [0.0 if opposed(label, n) or is_action(n) != action else float(s) for n, s in zip(names, raw)]


def find_rename(label: str, names: Sequence[str], threshold: float = RENAME_THRESHOLD,
                margin: float = RENAME_MARGIN) -> Rename | None:
    """The one name on the page that is ``label`` renamed, or None (see the module docstring)."""
    distinct = list(dict.fromkeys(n for n in names if n and n.strip()))
    if not distinct:
        return None
    graded = sorted(zip(scores(label, distinct), range(len(distinct))), reverse=True)
    best, index = graded[0]
    runner_up = next((s for s, i in graded[1:] if canonical(distinct[i]) != canonical(distinct[index])), 0.0)
    if best < threshold or best - runner_up < margin:
        return None
    return Rename(names.index(distinct[index]), distinct[index], best)
