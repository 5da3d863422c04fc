"""UI labels in canonical step text: how they are written, recognised and read back.

Writers mark a UI label in many ways: **bold**, *italic* (reference manuals), ``code``, "quotes",
``:guilabel:``, ``<span class="uicontrol">``, and menu paths as ``choose A > B``,
``Object > Create > Database`` or ``:menuselection:`A --> B```. The format readers turn every one
of them into ``**X**`` (and a path into ``**A** > **B**``), so the rest of the project recognises a
label one way. This module holds that one way, and the judgement of whether emphasised text is a
label at all (italics also stress words: "do *not* ...").
"""

from __future__ import annotations

import re
from collections.abc import Callable

BOLD = re.compile(r"\*\*(.+?)\*\*")
# ``choose **A** > **B** > **C**``: a menu path (also written with an arrow).
NAV_PATH = re.compile(r"\*\*[^*]+\*\*(?:\s*(?:>|→|-->|&gt;)\s*\*\*[^*]+\*\*)+")
# A path written in one code span or menuselection: "Object > Create > Database", "A --> B", "A → B".
PATH_SEPARATOR = re.compile(r"\s*(?:-->|->|→|›|»|>)\s*")
# "Log on to the ECS console", "Open the VPC console", "go to the Elastic Compute Service console".
CONSOLE = re.compile(r"\b(?i:log (?:on|in)(?: to)?|sign in to|open|go to|navigate to|access)\s+the\s+"
                     r"(?:\*\*)?(?P<name>[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*){0,4})(?:\s+\((?P<short>[A-Z][\w&-]*)\))?(?:\*\*)?"
                     r"\s+(?:management\s+)?console\b")

# Emphasis that stresses a word rather than naming a control.
_STRESS = {"not", "only", "must", "never", "always", "all", "any", "each", "every", "before", "after", "and", "or",
           "cannot", "can", "should", "will", "may", "also", "both", "either", "neither", "exactly", "first", "last",
           "one", "new", "same", "no longer", "at least", "at most", "more", "less", "very", "do", "does", "is", "are"}
_NOTE_WORD = re.compile(r"^(?:note|notes|warning|tip|important|caution|danger|attention)\s*:$", re.I)
MAX_LABEL_WORDS = 8
MAX_PATH_PART_WORDS = 5
_PROSE_WORD = re.compile(r"\b(?:is|are|was|were|when|if|than|then|because|means)\b", re.I)
MAX_LABEL_CHARS = 80
# How a document's label and a console's name are compared (the agents and verification alike):
MAX_ADDED_WORDS = 3  # "Add Rule" → "Add Security Group Rule" is still the same control, renamed
FUZZY_RATIO = 0.8  # difflib ratio above which two labels are one label, misspelt or reworded slightly

# Quoted text right after a UI verb, or right before a control noun, is a label: click "OK", the "Name" field.
_QUOTED_AFTER_VERB = re.compile(r"(?P<verb>\b(?:click|choose|select|press|tap|open|expand|go to)\s+(?:the\s+)?)"
                                r"[\"“'‘](?P<label>[^\"”'’\n]{1,80})[\"”'’]", re.I)
_CONTROL_NOUN = (r"(?:field|button|tab|page|dialog|dialog box|box|menu|check ?box|column|section|link|option|list|"
                 r"drop-down|switch|text box|panel|pane|icon|toggle)\b")
_QUOTED_BEFORE_NOUN = re.compile(rf"(?P<lead>\bthe\s+)[\"“'‘](?P<label>[^\"”'’\n]{{1,80}})[\"”'’](?=\s+{_CONTROL_NOUN})", re.I)

# The same for a code span (READMEs and runbooks write labels as code): click `Restart`, the `Actions` column,
# and each part of a path whose first part is already a label (go to `VPC` > `vSwitches`). A code span anywhere
# else stays code: a value to type ("enter `web-01`") or a name to find ("in the row of `old-vsw`").
# "press `F5`" is a key, not a label; "confirm with `OK`" names the button; "the status changes to `Running`" the
# status a list shows
CONFIRM_WITH = r"(?:confirm|submit|finish|close|save) with"  # "confirm with **OK**": the button is the label
_UI_VERB = (rf"\b(?:click|choose|select|open|expand|go to|{CONFIRM_WITH}|"
            r"status\b[^.;`]{0,40}?\bto)\s+(?:the\s+)?")
_CODE_AFTER_VERB = re.compile(rf"(?P<lead>{_UI_VERB})`(?P<label>[^`\n]{{1,80}})`", re.I)
_CODE_BEFORE_NOUN = re.compile(rf"(?P<lead>\bthe\s+)`(?P<label>[^`\n]{{1,80}})`(?=\s+{_CONTROL_NOUN})", re.I)
_CODE_IN_PATH = re.compile(r"(?P<lead>\*\*[^*]+\*\*\s*(?:>|→|-->|&gt;)\s*)`(?P<label>[^`\n]{1,80})`")


def normalize(text: str) -> str:
    """Casefold, punctuation to spaces, whitespace collapsed: how labels are compared."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def words_kept_in_order(want: list[str], have: list[str]) -> bool:
    """``have`` is ``want`` with a few words added ("vSwitches" → "Subnets (vSwitches)"); a lone short word
    ("Delete") is too common to be recognised this way."""
    if not want or len(have) - len(want) > MAX_ADDED_WORDS or (len(want) == 1 and len(want[0]) < 6):
        return False
    position = 0
    for word in have:
        if position < len(want) and word == want[position]:
            position += 1
    return position == len(want)


def strip_markup(text: str) -> str:
    """Canonical text without its marks: what a person reads."""
    return re.sub(r"\s+", " ", text.replace("**", "").replace("`", "")).strip()


def bold_labels(text: str) -> list[str]:
    """The labels of canonical text, each once, in order."""
    return list(dict.fromkeys(label.strip() for label in BOLD.findall(text)
                              if label.strip() and not _NOTE_WORD.match(label.strip())))


_SERIES = re.compile(r"(?P<items>(?:[\w.+-]+(?: [\w.+-]+){0,3}, )+[\w.+-]+(?: [\w.+-]+){0,3},? or [\w.+-]+(?: [\w.+-]+){0,3})(?=[.;)]|$)")


def listed_choices(text: str) -> list[str]:
    """The choices a description lists in plain words after a colon: "How long ...: 1 Month, 3 Months, 6
    Months or 12 Months." Only after a colon, so ordinary prose ("names, tags or descriptions") is not
    mistaken for a field's options."""
    plain = strip_markup(text)
    for part in plain.split(":")[1:]:
        found = _SERIES.search(part.strip())
        if found and found.start() == 0:
            return [item.strip() for item in re.split(r",\s*(?:or\s+)?|\s+or\s+", found.group("items")) if item.strip()]
    return []


def described_choices(description: str) -> list[str]:
    """The choices a field's description offers: the labels it marks ("**Allow** accepts ...; **Deny** drops it."),
    else those it lists in plain words after a colon (``listed_choices``). The documentation follower's instructions
    and the ranker's parameter rows read a description this one way."""
    return bold_labels(description) or listed_choices(description)


def navigation_paths(text: str) -> list[list[str]]:
    """Every menu path of canonical text as its labels: ``**A** > **B**`` → ["A", "B"]."""
    return [[label.strip() for label in BOLD.findall(m.group(0))] for m in NAV_PATH.finditer(text)]


def console_named(text: str) -> str | None:
    """The product console a sentence starts in ("Log on to the **ECS** console" → "ECS"; "the Elastic Compute
    Service (ECS) console" → "ECS")."""
    match = CONSOLE.search(text)
    return (match.group("short") or match.group("name")).strip() if match else None


def is_label_like(text: str, mid_sentence: bool = False) -> bool:
    """Whether emphasised text reads as a UI label: short, not a sentence, not a stressed word. A word people
    stress is a label when capitalised inside a sentence ("a status: *Enable*, *Replica* *Always*."; never
    "*Always* back up first")."""
    plain = " ".join(text.split())
    if not plain or len(plain) > MAX_LABEL_CHARS or len(plain.split()) > MAX_LABEL_WORDS:
        return False
    if plain.casefold() in _STRESS and not (mid_sentence and plain[0].isupper()):
        return False
    if re.search(r"[.;:!]$", plain) and not plain.endswith("..."):
        return False
    return any(ch.isalnum() for ch in plain)


def emphasised(text: str, before: str) -> str:
    """Emphasised text as the document means it: a label in bold, else its plain words. ``before``: what
    precedes it in its paragraph (where the sentence it is in began)."""
    if "**" in text:
        return text
    mid_sentence = bool(before.strip()) and not re.search(r"[.!?:]\s*$", before)
    return bold(text) if is_label_like(text, mid_sentence) else text


def bold(label: str) -> str:
    """A label in canonical form (never nested)."""
    clean = " ".join(label.replace("**", "").split())
    return f"**{clean}**" if clean else ""


def menu_path(text: str) -> list[str] | None:
    """The labels of a path written in one span ("Object > Create > Database"), or None if it is not one."""
    parts = [p.strip() for p in PATH_SEPARATOR.split(text)]
    if len(parts) < 2 or not all(parts) or not all(is_label_like(p) for p in parts):
        return None
    if any(len(p.split()) > MAX_PATH_PART_WORDS or _PROSE_WORD.search(p) for p in parts):
        return None  # "a > b when a is larger": a comparison in prose, not a menu
    return parts


def path_markup(labels: list[str]) -> str:
    return " > ".join(bold(label) for label in labels)


def code_or_path(text: str) -> str:
    """A code span in canonical form: a menu path becomes labels, anything else stays code."""
    path = menu_path(text) if re.search(r"-->|->|→|›|»|>", text) else None
    return path_markup(path) if path else f"`{text}`"


def mark_quoted_labels(text: str) -> str:
    """Quoted labels in prose become ``**X**``: click "Create VPC", the 'Name' field; so do code spans in
    those places (click `Restart`, the `Actions` column) and the parts of a path that starts with one."""
    text = _QUOTED_AFTER_VERB.sub(lambda m: m.group("verb") + bold(m.group("label")), text)
    text = _QUOTED_BEFORE_NOUN.sub(lambda m: m.group("lead") + bold(m.group("label")), text)

    def label(match: re.Match[str]) -> str:
        return match.group("lead") + (bold(match.group("label")) if is_label_like(match.group("label")) else
                                      f"`{match.group('label')}`")

    text = _CODE_AFTER_VERB.sub(label, text)
    text = _CODE_BEFORE_NOUN.sub(label, text)
    while True:  # **A** > `B` > `C`: one part at a time, each after the label before it
        marked = _CODE_IN_PATH.sub(label, text)
        if marked == text:
            return text
        text = marked


# A document that marks no label at all ("click Create VPC", "choose Instances & Images > Images", "in the Key
# Pair Name field"): its labels are found from the phrasing a writer uses around them. A label starts with a
# capital (sentence case, "Create route table", or title case) and ends before punctuation, a preposition or
# conjunction that begins the rest of the sentence, or the control noun that follows it.
_LABEL_WORD = r"[\w&'()/+-]+"
_ENDS_LABEL = (r"(?:in|on|at|to|for(?!\s+[A-Z])|from|with|within|and|or|then|next|of|if|when|until|again|under|below|above|after|before|"
               r"that|which|so|as|button|tab|link|icon|menu|option|column|field|list|drop-down|check|box|"
               r"dialog|page|section|switch|toggle|state|step|pane|panel)\b")
_PLAIN_LABEL = rf"(?:[A-Z0-9]|[a-z]+[A-Z]){_LABEL_WORD}(?:\s+(?!{_ENDS_LABEL}){_LABEL_WORD}){{0,{MAX_LABEL_WORDS - 1}}}"
# (a lower-case "modify" only: "the Modify Image Information dialog box" names a dialog)
_PLAIN_VERB = (r"\b(?:(?i:click|choose|select|press|tap|open|expand|go to|navigate to)|enter|specify|fill in|set|change|"
               r"modify|update|edit)\s+(?:(?:the|an?)\s+)?")
_PLAIN_PATH = re.compile(rf"(?P<lead>{_PLAIN_VERB})(?P<path>[A-Z0-9][^.,;:\n>→]*?(?:\s*(?:>|→)\s*[^.,;:\n>→]+?)+)"
                         rf"(?=\s*(?:[.,;:)]|$)|\s+(?:in|on|from|at|and)\s+)")
# after a verb: the label, and those a series adds ("select the Zone and the Instance Type")
_PLAIN_AFTER_VERB = re.compile(rf"(?P<lead>{_PLAIN_VERB})(?P<labels>{_PLAIN_LABEL}"
                               rf"(?:(?:\s*,\s*|\s+(?:and|or)\s+)(?:the\s+)?{_PLAIN_LABEL})*)")
# a status a list shows: "changes from Attaching to In Use", "changes to Running"
_PLAIN_STATUS = re.compile(rf"(?P<lead>\bchanges?\s+(?:from\s+|to\s+)?)(?P<labels>{_PLAIN_LABEL}(?:\s+to\s+{_PLAIN_LABEL})?)")
# (not "page" or "section": writers who mark every button still leave "On the Instances page" unmarked)
_PLAIN_BEFORE_NOUN = re.compile(rf"(?P<lead>\bthe\s+)(?P<label>{_PLAIN_LABEL})(?=\s+(?:field|tab|column|list|drop-down list|"
                                r"check ?box|switch|toggle|option|button|dialog box|dialog|state|step|text box|menu)\b)")
# a list of choices in title-case words: "ESSD, Standard SSD, Ultra Disk or ESSD AutoPL" (a table's description cell)
_CHOICE_WORD = r"[\w+/-]*(?:\.[\w+/-]+)*"  # a dot only inside a word ("ecs.g7"), never the sentence's full stop
_CHOICE = rf"[A-Z0-9]{_CHOICE_WORD}(?: [A-Z0-9]{_CHOICE_WORD}){{0,3}}(?: \([^()\n]*\))?"
_PLAIN_CHOICES = re.compile(rf"(?<![\w*])(?P<labels>{_CHOICE}(?:,\s*{_CHOICE})*,?\s+or\s+{_CHOICE})"
                            r"(?=\s*[.;)]|\s*$|\s+(?:to|for|if|when|where|which)\s)")  # "or Set Later to reset ..."
_SERIES_SPLIT = re.compile(r"(\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|to)\s+)((?:the\s+)?)")
PARENTHESIS = re.compile(r"\([^()\n]*\)")
# "(billed by the hour)" explains a choice; "(VPC)" or "(4 vCPU 16 GiB)" is part of its label
_EXPLAINS = re.compile(r"\s*\((?=[^)]*\b[a-z]{2,}\b)[^()]*\)$")


def unexplained(choice: str) -> str:
    """A choice without the parenthesis that explains it: "Online (the instance keeps running)" is *Online*."""
    return _EXPLAINS.sub("", choice)


def _mark_one(text: str) -> str:
    note = _EXPLAINS.search(text)
    label, after = (text[:note.start()], text[note.start():]) if note else (text, "")
    return (bold(label) if is_label_like(label) else label) + after


def _mark_series(labels: str) -> str:
    """Each label of "A, B and the C" marked; a comma inside a parenthesis separates nothing."""
    hidden, restore = _hide_parentheses(labels)
    parts = [restore(part) for part in _SERIES_SPLIT.split(hidden)]
    out = [_mark_one(parts[0])]  # label, separator, article, label, ...
    for i in range(1, len(parts), 3):
        out += [parts[i], parts[i + 1], _mark_one(parts[i + 2])]
    return "".join(out)


def _marked(match: re.Match[str]) -> str:
    """A match of one of the patterns above with its labels marked (what leads up to them kept)."""
    return (match.groupdict().get("lead") or "") + _mark_series(match.group("labels"))


_MARKED = re.compile(r"(\*\*[^*]+\*\*(?:\s*>\s*\*\*[^*]+\*\*)*)")  # labels (and paths) already marked
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")
_CLAUSE_SEPARATOR = re.compile(r";\s+|,\s+(?:(?:and|or)\s+)?|\s+or\s+")


def _outside_marks(text: str, mark: Callable[[str], str]) -> str:
    """``mark`` applied to the parts of ``text`` that no label mark covers yet."""
    pieces = _MARKED.split(text)
    return "".join(mark(piece) if i % 2 == 0 else piece for i, piece in enumerate(pieces))


def _hide_parentheses(text: str) -> tuple[str, Callable[[str], str]]:
    """``text`` with each parenthesis one opaque token (a comma or an "or" inside it separates nothing), and the
    function that puts them back."""
    kept: list[str] = []
    hidden = PARENTHESIS.sub(lambda m: kept.append(m.group(0)) or f"\x00{len(kept) - 1}\x00", text)
    return hidden, lambda part: re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], part)


def _choices_beside(example: str, cell: str) -> list[str]:
    """The choices a description explains one clause each, found from the one the row's example gives: in
    "Pay-by-data-transfer charges for outbound traffic; Pay-by-bandwidth charges for the peak bandwidth" the
    example *Pay-by-data-transfer* leads a clause, so each sibling clause of its sentence is led by a choice of
    as many words (a parenthesis after it kept: "Online (the instance keeps running) for an attached disk")."""
    size = len(PARENTHESIS.sub("", example).split())
    hidden, restore = _hide_parentheses(strip_markup(cell))
    sentences = _SENTENCE_END.split(hidden)
    led = [restore(s.split(":", 1)[0]) for s in sentences if ":" in s]  # "Basic Security Group: instances ..."
    if example in led:
        return [lead for lead in led if re.match(r"[A-Z0-9]", lead) and is_label_like(lead)]
    for sentence in sentences:
        clauses = [restore(c).strip().rstrip(".") for c in _CLAUSE_SEPARATOR.split(sentence)]
        if not any(c == example or c.startswith(example + " ") for c in clauses):
            continue
        found = []
        for clause in clauses:
            lead = re.match(rf"[A-Z0-9]\S*(?:\s+\S+){{{size - 1}}}(?:\s+\([^()]*\))?", clause)
            if lead and lead.group(0).split()[-1].casefold() not in STOPWORDS and is_label_like(lead.group(0)):
                found.append(lead.group(0))
        return found
    return []


def _mark_cell(cell: str, example: str) -> str:
    """A description cell of a table row with the labels it names: after a UI verb ("set the Peak Bandwidth"),
    and the choices of the row's example ("The default is Ultra Disk", "for example ecs.g7 · General Purpose",
    and the clauses beside it; ``_choices_beside``)."""
    cell = _outside_marks(cell, lambda piece: _PLAIN_AFTER_VERB.sub(_marked, piece))
    # an example with no capitalised word is a value ("doc-vpc", "web-01"), which a description may name too
    if not re.search(r"\b[A-Z]", example) or not is_label_like(unexplained(example)) or bold(unexplained(example)) in cell:
        return cell
    for choice in [example] + [c for c in _choices_beside(example, cell) if c != example]:
        if bold(unexplained(choice)) not in cell:
            cell = _outside_marks(cell, lambda piece, c=choice: re.sub(rf"(?<![\w*]){re.escape(c)}(?![\w*])",
                                                                       lambda _: _mark_one(c), piece, count=1))
    return cell


def _mark_plain_row(line: str) -> str:
    """A table row: its first cell names its field by position and is left alone; its description cells may
    list choices, and name labels after a verb or through the row's example (its last cell)."""
    cells = _PLAIN_CHOICES.sub(_marked, line).split("|")  # ["  ", field, description..., example, ""]
    example = cells[-2].strip() if len(cells) >= 5 else ""
    for i in range(2, len(cells) - 2):
        cells[i] = _mark_cell(cells[i], example)
    return "|".join(cells)


def _mark_plain_line(line: str) -> str:
    if line.lstrip().startswith("|"):  # a table's row names its fields by position
        return _mark_plain_row(line)

    def path(match: re.Match[str]) -> str:
        parts = [p.strip() for p in PATH_SEPARATOR.split(match.group("path"))]
        menu = all(re.match(r"[A-Z0-9]|[a-z]+[A-Z]", p) and len(p.split()) <= MAX_PATH_PART_WORDS and not _PROSE_WORD.search(p)
                   for p in parts)  # "More" is a menu here, though a stressed word elsewhere
        return match.group("lead") + (path_markup(parts) if menu else match.group("path"))

    def prose(piece: str) -> str:
        for pattern in (_PLAIN_AFTER_VERB, _PLAIN_CHOICES, _PLAIN_STATUS):
            piece = pattern.sub(_marked, piece)
        return _PLAIN_BEFORE_NOUN.sub(lambda m: m.group("lead") + _mark_one(m.group("label")), piece)

    return _outside_marks(_PLAIN_PATH.sub(path, line), prose)  # the paths just marked left alone


def mark_unmarked_labels(steps: list[str]) -> list[str]:
    """The steps of a document that marks no UI label anywhere, with its labels marked as ``**X**`` from their
    phrasing; any other document's steps as they are. Why the whole document decides: a writer who marks
    labels marks them throughout, and an unmarked capitalised phrase in such a document is not a label."""
    if any("**" in step for step in steps):
        return list(steps)
    return ["\n".join(_mark_plain_line(line) for line in step.split("\n")) for step in steps]


def tidy(text: str) -> str:
    """Collapse the whitespace of canonical inline text and join adjacent marks (``**A****B**``)."""
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    return text.strip()


# Words of which one says the opposite of the other ("Inbound" / "Outbound Rules", "Start" / "Stop").
OPPOSITES = [("start", "stop"), ("attach", "detach"), ("associate", "disassociate"), ("inbound", "outbound"),
             ("enable", "disable"), ("create", "delete"), ("authorize", "revoke"), ("join", "leave"), ("ok", "cancel"),
             ("yes", "no"), ("next", "previous"), ("next", "back"), ("ingress", "egress"), ("open", "close"),
             ("expand", "collapse"), ("show", "hide"), ("import", "export"), ("upload", "download"),
             ("allow", "deny"), ("accept", "reject"), ("on", "off"), ("in", "out")]

# Words that name nothing: a name's content words are the rest (``terms``).
STOPWORDS = {"a", "an", "the", "of", "in", "on", "to", "for", "with", "and", "or", "by", "from", "at", "as", "is", "its",
             "it", "that", "this", "these", "those", "using", "use", "via", "into", "named", "called", "whose", "which",
             "new", "s"}  # "s": what a possessive leaves ("the tool's dialog")


def singular(word: str) -> str:
    """English plural to singular, enough for collection names ("Databases", "Dictionaries", "Casts")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def terms(text: str) -> set[str]:
    """The words of a text that can name a place: casefolded, singular, no stop words; a dotted name
    ("public.items") counts whole and by its parts."""
    found: set[str] = set()
    for token in re.findall(r"[\w.$/-]+", (text or "").casefold()):
        token = token.strip(".-/")
        parts = [token] + (token.split(".") if "." in token else []) + (token.split("/") if "/" in token else [])
        found |= {singular(p) for p in parts if p and p not in STOPWORDS}
    return found
