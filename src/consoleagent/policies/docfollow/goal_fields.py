"""The goal's value for a field a reference page only describes.

A reference page says what a field is for ("Use the drop-down listbox next to *Handler function* to
select ...") and never what to put there; the goal says it in its own words ("create a language
whose handler function is plpgsql_call_handler", "with the template snowball", "on host 127.0.0.1,
port 5433", "a cast from integer to text", "the ddl_command_start event"). A person reads the
field's label in the goal and takes the value beside it. So does this:

- the label's words (stemmed: "Copy collation" finds "copied from the collation") are looked for in
  the goal as a phrase; failing that, a one-word label's word, or a label's last word when the
  goal uses it once;
- after it, a value follows directly ("template snowball"), or after a linking word ("is", "set to",
  "=", "named", "from the ...") when it looks like a value (a name with ``_``, ``.`` or a digit, a
  path, a quoted string, an upper-case word); before it, "the <value> <label>" ("the custom
  format") when nothing follows;
- a role preposition stands for a label that is absent from the goal: "from X" is the source, "to
  X" the target, as in "a cast from integer to text";
- a path in the goal is the value of a field about a file; a switch is on when all its words are in
  the goal, off when the goal says "without <its verb>ing", unknown otherwise;
- a pair's two fields ("Tag Key", "Tag Value") split the goal's pair for the thing ("the tag team:research").

Values are returned as written in the goal; None when the goal does not name one for this field.
"""

from __future__ import annotations

import itertools
import re

_TOKEN = re.compile(r"\$\{[^}]+\}|\"[^\"]+\"|'[^']+'|[\w./:@\"$-]*[\w\"/]|[=:]")
LINKS = {"is", "are", "set", "to", "=", ":", "of", "from", "the", "a", "an", "as", "be", "with"}
STRUCTURE = {"the", "a", "an", "of", "in", "on", "and", "or", "with", "for", "to", "that", "which", "whose", "from", "by",
             "it", "its", "is", "set", "named", "called", "into", "using", "use", "uses", "without", "at", "as", "so",
             "no", "not", "this", "these", "new", "each", "any", "all", "both", "only"}
# Prepositions that name a field's role when the goal does not name the field ("a cast from integer to text").
ROLE_WORDS = {"source": "from", "target": "to", "destination": "to", "origin": "from"}
_PRINCIPALS = {"role", "user", "group", "login"}  # "for the role alice": the word before the name says what it is
GENERIC = {"field", "value", "name", "type", "option", "box", "listbox", "list", "drop", "down", "switch", "the"}
_VALUE_LIKE = re.compile(r"^(?:\$\{.+\}|[\"'].+[\"']|.*[_.\d/@:].*|[A-Z][A-Z0-9_]*|[A-Z])$")
_ACRONYM = re.compile(r"[A-Z]{2,5}")  # ECS, VPC, EIP, RDS: a product's name, no digits
# A key/value pair's two fields ("Tag Key", "Tag Value") and the goal's pair for them ("team:research", "env=prod")
_PAIR_PART = re.compile(r"(?P<what>.*\w)\s+(?P<part>key|value)", re.IGNORECASE)
_KEY_VALUE = re.compile(r"(?P<key>[A-Za-z][\w-]*)\s*[:=]\s*(?P<value>[\w-]+)")
_PATH = re.compile(r"(?<![\w/])(/[\w.@+-]+(?:/[\w.@+-]+)+)")


# Resource names and ids in a goal: words with a digit or an inner hyphen ("web-01", "meta-shared", "i-8f3k...").
IDENTIFIER = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.]*(?:-[\w.]+)+|[A-Za-z]+\d[\w.-]*)(?![\w-])")


def goal_identifiers(goal: str) -> list[str]:
    """The names and ids a goal mentions: what tells its resource's row or option from the others."""
    return list(dict.fromkeys(m.group(1).rstrip(".") for m in IDENTIFIER.finditer(goal or "")))


def whole_name(name: str, qualified: bool = True) -> re.Pattern[str]:
    """The name as a whole in casefolded text: "legacy-crm" is not in the row of "legacy-crm-b" (a name ends where
    a name's characters end). ``qualified=False``: nor is it the first part of a dotted name ("public.items")."""
    after = r"(?![\w-])" if qualified else r"(?![\w-]|\.\w)"
    return re.compile(rf"(?<![\w.-]){re.escape(name.casefold())}{after}")


def names(text: str, name: str) -> bool:
    """Whether ``text`` holds ``name`` whole, ignoring case: "branch-vpc" is in "branch-vpc (192.168.0.0/16)",
    not in "branch-vpc-old", nor in "branch-vpc.old"."""
    return whole_name(name, qualified=False).search(text.casefold()) is not None


_IRREGULAR = {"does": "do", "did": "do", "done": "do", "has": "have", "had": "have"}  # "does nothing" for **Do Instead**


def stem(word: str) -> str:
    """A crude English stem, enough to tell "copied" and "copy", "connecting" and "connect" for the same word."""
    w = word.casefold().strip("?")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)] + repl
    return w


def root(word: str) -> str:
    """``stem`` without a final "e", so that "disabled" and "disable", "tables" and "table" meet: for comparing two
    texts' words with each other (the word lists of this module are compared with stems)."""
    w = stem(word)
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


_PREFIX = 5


def related_words(a: str, b: str) -> bool:
    """Two words about the same thing: the same stem, or the same first five letters ("deferrable" and
    "deferred", "condition" and "conditional")."""
    return stem(a) == stem(b) or (len(a) >= _PREFIX and len(b) >= _PREFIX and a[:_PREFIX] == b[:_PREFIX])


def _tokens(goal: str) -> list[str]:
    return _TOKEN.findall(goal or "")


def _clean(value: str) -> str:
    value = value.rstrip(".,;:")
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" and value.count(value[0]) == 2:
        return value[1:-1]
    return value


def _label_words(label: str) -> list[str]:
    return [w for w in re.findall(r"[\w]+", label.casefold()) if w]


def _same(goal_word: str, label_word: str) -> bool:
    """A label's word in the goal, or abbreviated in the label ("config" for "configuration")."""
    return goal_word == label_word or (len(label_word) >= 4 and goal_word.startswith(label_word))


def _find_phrase(stems: list[str], words: list[str]) -> list[tuple[int, int]]:
    """Where the label's words occur in the goal in order, a few linking words allowed between them
    ("copied from the collation" for "Copy collation"): (start, end) token spans."""
    found = []
    for i, s in enumerate(stems):
        if not _same(s, words[0]):
            continue
        j, k = i + 1, 1
        while k < len(words) and j < len(stems) and j - i <= 3 * len(words):
            if _same(stems[j], words[k]):
                k += 1
            elif stems[j] not in LINKS:
                break
            j += 1
        if k == len(words):
            found.append((i, j))
    return found


def _product_before(got: str, tokens: list[str], start: int, whole: bool) -> bool:
    """"an *ECS* instance" for the field **Instance Name**: the product's acronym before one word of the label
    names the kind of resource, not a value (measured: "ECS" typed as an instance's name)."""
    return not whole and start > 0 and tokens[start - 1] == got and _ACRONYM.fullmatch(got) is not None


def value_from_goal(label: str, goal: str, others: list[str] | tuple[str, ...] = ()) -> str | None:
    """The goal's value for the field ``label`` (see the module docstring), or None. ``others``: the labels of the
    other fields the document names; words of the goal that a longer one of them claims are not this field's
    ("includes the column guest" is **Include columns**', not **Column**'s)."""
    pair = _PAIR_PART.fullmatch(label.strip())
    if pair:  # "the tag team:research": **Tag Key** is "team", **Tag Value** "research"
        parts = _KEY_VALUE.fullmatch(value_from_goal(pair.group("what"), goal) or "")
        if parts:
            return parts.group(pair.group("part").casefold())
    tokens = _tokens(goal)
    if not tokens:
        return None
    stems = [stem(t) for t in tokens]
    words = [stem(w) for w in _label_words(label)]
    if not words:
        return None
    lowered = label.casefold()
    if "file" in lowered or "path" in lowered:
        path = _PATH.search(goal)
        if path:
            return path.group(1).rstrip(".")
    if "user" in words:  # whom it is for comes first: "the option user set to x" is an option, not the user
        whom = _for_whom(tokens)
        if whom is not None:
            return whom
    kind = _object_kind(tokens)
    claimed = _claimed(tokens, len(words), others)
    spans = [span for span in _find_phrase(stems, words) if span[0] not in kind
             and not any(start <= span[0] and span[1] <= end for start, end in claimed)]
    whole = bool(spans)
    for word in (words[-1], words[0]):
        if not spans and len(words) > 1 and word not in GENERIC and stems.count(word) == 1 \
                and stems.index(word) not in kind and not _modified(stems, stems.index(word), words):
            spans = [(stems.index(word), stems.index(word) + 1)]
    if not spans:
        agent = _by_agent(tokens, stems, words)
        if agent is not None:
            return agent
    for value_like in (True, False):  # a value that looks like one anywhere beats a plain word
        for start, end in spans:
            for got in (_after(tokens, end), _before(tokens, start, whole)):
                # a plain word is taken only beside the whole label, never beside one of its words
                if got and (_VALUE_LIKE.match(got) or (not value_like and whole)) and not _product_before(got, tokens, start, whole):
                    return got
    if words == ["value"]:  # an option's value: "the option debug set to true"
        setting = re.search(r"\bset\s+to\s+(\S+)", goal or "", re.I)
        if setting:
            return _clean(setting.group(1))
    role = next((ROLE_WORDS[w] for w in words if w in ROLE_WORDS), None)
    if role is not None and not spans:
        for i, token in enumerate(tokens[:-1]):
            if token.casefold() == role:
                following = tokens[i + 1]
                if following.casefold() not in STRUCTURE:
                    return _clean(following)
    return None


def _for_whom(tokens: list[str]) -> str | None:
    """The principal a goal makes something for: "a user mapping for PUBLIC", "for the role alice" (past the
    article and the word that says what the name is); never a number ("for 3 months")."""
    for i, token in enumerate(tokens[:-1]):
        if token.casefold() != "for":
            continue
        rest = list(itertools.dropwhile(lambda t: t.casefold() in STRUCTURE | _PRINCIPALS, tokens[i + 1:]))
        if rest and rest[0].isidentifier() and not rest[0].isdigit():
            return _clean(rest[0])
    return None


def _modified(stems: list[str], at: int, words: list[str]) -> bool:
    """Whether the goal's word at ``at`` follows a modifier the label lacks: "whose *handler* function is X" is
    the **Handler Function**'s value, not **Inline Function**'s (measured as a dialog with the handler typed
    into all three of its function fields)."""
    before = stems[at - 1] if at > 0 else ""
    return bool(before) and before.isalpha() and before not in STRUCTURE and before not in words


CREATE_VERBS = {"create", "add", "register", "define", "make", "build", "set up"}  # a goal making an object


def _object_kind(tokens: list[str]) -> set[int]:
    """Positions of the words that name what the goal creates ("create a *user mapping* for PUBLIC"): the
    kind of object, never a field's value position ("User" is not "mapping")."""
    kind: set[int] = set()
    for i, token in enumerate(tokens):
        if token.casefold() not in CREATE_VERBS:
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].casefold() in ("a", "an", "the"):
            j += 1
        while j < len(tokens) and tokens[j].casefold() not in STRUCTURE and tokens[j] not in (",", ";") \
                and not _VALUE_LIKE.match(tokens[j]):
            kind.add(j)
            j += 1
    return kind


def _claimed(tokens: list[str], size: int, others: list[str] | tuple[str, ...]) -> list[tuple[int, int]]:
    """The goal's token spans that a label of more than ``size`` words names, with the value after it
    ("includes the column guest" for **Include columns**). Compared by ``root``, as "includes" is "include"."""
    roots = [root(t) for t in tokens]
    spans = []
    for other in others:
        words = [root(w) for w in _label_words(other)]
        if len(words) > size:
            spans += [(start, min(end + 1, len(tokens))) for start, end in _find_phrase(roots, words)]
    return spans


def outside_others(goal: str, label: str, others: list[str] | tuple[str, ...]) -> str:
    """The goal without the words that labels of ``others`` longer than ``label`` claim (``_claimed``): where a
    list's option or a switch's wish for ``label`` is looked for ("an equal room, and that includes the column
    guest" offers **Column** only "room")."""
    found = list(_TOKEN.finditer(goal or ""))
    claimed = _claimed([m.group(0) for m in found], len(_label_words(label)), others)
    merged: list[list[int]] = []
    for start, end in sorted(claimed):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):  # cut from the end, so earlier positions stay valid
        goal = goal[:found[start].start()] + goal[found[end - 1].end():]
    return goal


def _after(tokens: list[str], index: int) -> str | None:
    """The value after a label: directly ("template snowball"), or after linking words when value-like."""
    linked = False
    for at in range(index, min(index + 5, len(tokens))):
        token, lowered = tokens[at], tokens[at].casefold()
        if lowered in LINKS:
            linked = True
            continue
        if lowered in STRUCTURE or token in (",", ";"):
            return None
        if at == index and _kind_noun(tokens, at):
            continue
        if not linked or _VALUE_LIKE.match(token):
            return _clean(token)
        return None
    return None


_COPULAS = {"is", "=", ":"}


def _kind_noun(tokens: list[str], at: int) -> bool:
    """Whether the word at ``at`` says what kind of thing the label's value is, before "is" and the value:
    "whose validator *function* is postgresql_fdw_validator" (measured as "function" typed into **Validator**)."""
    if not tokens[at].isalpha() or _VALUE_LIKE.match(tokens[at]) or at + 2 >= len(tokens):
        return False
    return tokens[at + 1].casefold() in _COPULAS and bool(_VALUE_LIKE.match(tokens[at + 2]))


def _by_agent(tokens: list[str], stems: list[str], words: list[str]) -> str | None:
    """The value of a label that names who does something, from the goal's passive: "owned by the role
    reporting" for **Owner**, "granted by alice" for **Grantor** (past the article and the word that says what
    the name is)."""
    verbs = {w[:-2] for w in words if len(w) > 4 and w.endswith(("er", "or"))}
    for i, token in enumerate(tokens[:-1]):
        if stems[i] in verbs and token.casefold().endswith("ed") and tokens[i + 1].casefold() == "by":
            rest = list(itertools.dropwhile(lambda t: t.casefold() in STRUCTURE | _PRINCIPALS, tokens[i + 2:]))
            if rest and rest[0] not in (",", ";"):
                return _clean(rest[0])
    return None


def _before(tokens: list[str], index: int, whole: bool) -> str | None:
    """"the <value> <label>": "the custom format", "the ddl_command_start event"; a number right before the
    whole label: "with 2 parallel workers" for **PARALLEL** (never "2 instances" for **Instance Name**)."""
    if index >= 2 and tokens[index - 2].casefold() in ("the", "a", "an") and tokens[index - 1].casefold() not in STRUCTURE:
        return _clean(tokens[index - 1])
    if whole and index >= 1 and tokens[index - 1].isdigit():
        return tokens[index - 1]
    return None


_SWITCH_ON = {"enable", "activate", "allow"}
_NEGATIONS = {"without", "not", "no", "never"}
# A switch labelled with one of these verbs gives its object to the resource ("Assign Public IPv4 Address")
_GIVING = {stem(w) for w in ("assign", "use", "add", "attach", "bind", "associate", "allocate", "include", "apply")}
_SWITCH_OFF = {"disable", "deactivate", "stop", "cancel"}
# "with auto-renewal enabled": the participle after the switch's words (measured as the switch left cleared)
_SWITCHED_ON = {stem(w) for w in ("enabled", "activated", "allowed")}
_SWITCHED_OFF = {stem(w) for w in ("disabled", "deactivated", "stopped", "cancelled")}
# A switch labelled as a question ("Do instead?", "Is template?") asks about its other words: a goal "instead of a
# DELETE" says **Do instead**, though it never says "do" (measured as the rule created without DO INSTEAD)
_ASKING = {"do", "is", "are", "has"}


def switch_from_goal(label: str, goal: str) -> bool | None:
    """On when every word of the switch's label is in the goal ("All tables?" in "for all tables"), off when
    the goal says "without <its first word>ing" ("without connecting now"), None when the goal is silent."""
    label_words = _asked(_label_words(label))
    words = [stem(w) for w in label_words if w not in GENERIC]
    if not words:
        return None
    stems = [stem(t) for t in _tokens(goal)]
    if words[0] in _SWITCH_ON and len(words) > 1:  # "Enable auto-renewal": "disable auto-renewal" turns it off,
        rest, plain = words[1:], [stem(w) for w in _label_words(goal)]  # and so does "auto-renewal disabled"
        for i, s in enumerate(plain):
            if plain[i + 1:i + 1 + len(rest)] == rest and s in _SWITCH_OFF | _SWITCH_ON:
                return s in _SWITCH_ON
            if i >= len(rest) and plain[i - len(rest):i] == rest and s in _SWITCHED_OFF | _SWITCHED_ON:
                return s in _SWITCHED_ON
    for i, s in enumerate(stems):
        if s == words[0] and i > 0 and stems[i - 1] in _NEGATIONS:
            return False
    if _together(words, stems) or _together([root(w) for w in label_words if w not in GENERIC],
                                            [root(t) for t in _tokens(goal)]):
        return True  # "freezes the rows" names **FREEZE**: compared without the final "e" too
    return _given_object(words, stems)


# "To exclude status messages from the process output, move the **Verbose Messages** switch to the **No** position"
_PURPOSE_FIRST = re.compile(r"^\s*to\s+(?P<verb>[a-z]+)\s+(?P<what>[a-z][a-z -]*?)\s*(?:\b(?:from|in|of|on|for|to)\b[^,]*)?,",
                            re.I)
_EXCLUDING = {stem(w) for w in ("exclude", "omit", "hide", "suppress", "remove", "skip", "disable", "drop", "avoid")}


def purpose_in_goal(sentence: str, goal: str) -> bool:
    """Whether the goal asks for what a sentence that starts with its purpose is for ("To exclude status messages
    from the process output, move ...": a goal "without status messages in the output"): the purpose's object is
    in the goal, after a "without"/"no" when the purpose excludes it and not after one when it does not."""
    purpose = _PURPOSE_FIRST.match(sentence or "")
    if purpose is None:
        return False
    what = [root(w) for w in _label_words(purpose.group("what")) if w not in GENERIC]
    roots = [root(t) for t in _tokens(goal)]
    if not what or not _together(what, roots):
        return False
    at = next(i for i, r in enumerate(roots) if r == what[0])
    negated = any(r in _NEGATIONS | _EXCLUDING for r in roots[max(0, at - 3):at])
    return negated == (stem(purpose.group("verb")) in _EXCLUDING)


def _asked(words: list[str]) -> list[str]:
    """A question label's words without its asking verb ("Do instead?" is about "instead")."""
    return words[1:] if len(words) > 1 and words[0] in _ASKING else words


def _together(words: list[str], stems: list[str]) -> bool:
    """Every word of a switch's label in one stretch of the goal ("for all tables" for **All tables?**), not spread
    over it ("publishes only the inserts into the table" is not **Only table?**): at most two other words
    between them."""
    span = len(words) + 2
    return any(set(words) <= set(stems[i:i + span]) for i, s in enumerate(stems) if s in words)


def only_one_of(label: str, listed: list[str], goal: str) -> bool | None:
    """Of switches listed together (**INSERT**, **UPDATE**, **DELETE**, **TRUNCATE**), a goal's "only the inserts"
    (or "only the inserts and updates") turns on the ones it names and off the others; None when the goal says
    "only" of none of them."""
    tokens = [root(t) for t in _tokens(goal)]  # "updates" is **UPDATE**
    for i, token in enumerate(tokens):
        if token != "only":
            continue
        chosen: list[str] = []
        for word in tokens[i + 1:]:
            if word in ("the", "a", "an", "its", "their", "and", "or"):
                continue
            named = [other for other in listed if word in [root(w) for w in _label_words(other)]]
            if not named:
                break
            chosen += named
        if chosen:
            return label in chosen
    return None


def _given_object(words: list[str], stems: list[str]) -> bool | None:
    """"Assign Public IPv4 Address" for a goal "with a public IPv4 address of 10 Mbps": a switch whose label is a
    verb of giving and its object is on when the goal names the object whole, off when it says "without" (or "no")
    the object (measured as an instance created with no public address and the bandwidth the goal asked for lost)."""
    if words[0] not in _GIVING or len(words) < 3:
        return None
    rest = words[1:]
    for i in range(len(stems) - len(rest) + 1):
        if stems[i:i + len(rest)] == rest:
            before = [s for s in stems[max(0, i - 3):i] if s not in ("a", "an", "the", "any")]
            return not (before and before[-1] in _NEGATIONS)
    return None
