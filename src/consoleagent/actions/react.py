"""Split a model's ReAct answer (``Thought: ...`` then ``Action: click(3)``) into its parts.

Models format the same answer many ways (lower-case or bold labels, code fences, a bare call on
the last line), so the reader is lenient about the wrapping; it is strict about the content: it
never invents an action that is not written, and it refuses an answer with two different actions.
It returns the action's raw text; checking the call is the parser's job, so the agent gets the
parser's precise message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NO_ACTION = "no action found: end your answer with one line 'Action: <call>', e.g. Action: click(12)"
TWO_ACTIONS = "write exactly one action per turn; your answer has {count}: {calls}"

_DECOR = r"[\s>*_#`-]*"  # markdown around a label: **Action:**, ### Thought, > Action
_LABEL = re.compile(rf"^{_DECOR}(thought|action|step|document step)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?(.*)$",
                    re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[\w+-]*\s*$")
_CALL_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*\(")
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)  # reasoning models' hidden drafts


@dataclass
class ReactOutput:
    thought: str
    action: str | None  # the call's text as written (not parsed), or None when there is none
    error: str | None = None  # why no action could be taken from the answer
    document_step: int | None = None  # from an optional "Step: 3" line


def parse_react(text: str) -> ReactOutput:
    """Read the thought, the one action and the optional document step of a ReAct answer."""
    output = _parse_visible(_THINK.sub("", str(text)))
    if not output.thought:  # a reasoning model that put all its reasoning inside <think>
        output.thought = "\n\n".join(m.strip() for m in _THINK.findall(str(text))).strip()
    return output


def _parse_visible(text: str) -> ReactOutput:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    lines = ["" if _FENCE.match(line) else line for line in lines]
    sections = _sections(lines)
    step = _document_step(sections)
    thought = _thought(lines, sections)
    action_sections = [body for label, body, _ in sections if label == "action"]
    if action_sections:
        calls: list[str] = []
        for body in action_sections:
            calls += _calls_in(body)
        if not calls:
            return ReactOutput(thought, None, _no_call_message(action_sections), step)
    else:
        calls, start = _trailing_calls(lines)
        if calls:  # the thought is what comes before the bare call
            thought = _thought(lines[:start], _sections(lines[:start]))
    distinct = list(dict.fromkeys(" ".join(c.split()) for c in calls))
    if not calls:
        return ReactOutput(thought, None, NO_ACTION, step)
    if len(distinct) > 1:
        return ReactOutput(thought, None, TWO_ACTIONS.format(count=len(distinct), calls="; ".join(distinct)), step)
    return ReactOutput(thought, calls[0], None, step)


def _sections(lines: list[str]) -> list[tuple[str, str, int]]:
    """(label, text, first line) for every labelled section; a section runs to the next label."""
    found: list[tuple[str, list[str], int]] = []
    for index, line in enumerate(lines):
        match = _LABEL.match(line)
        if match:
            label = match.group(1).lower().replace("document step", "step")
            found.append((label, [match.group(2)], index))
        elif found:
            found[-1][1].append(line)
    return [(label, "\n".join(body).strip(), index) for label, body, index in found]


def _document_step(sections: list[tuple[str, str, int]]) -> int | None:
    for label, body, _ in sections:
        if label == "step":
            match = re.match(r"[\s*_`]*(\d{1,6})\b", body)
            return int(match.group(1)) if match else None
    return None


def _thought(lines: list[str], sections: list[tuple[str, str, int]]) -> str:
    thoughts = [body for label, body, _ in sections if label == "thought"]
    if thoughts:
        return "\n\n".join(_strip_labels(t) for t in thoughts).strip()
    first = sections[0][2] if sections else len(lines)  # unlabelled text before the first label
    return _strip_labels("\n".join(lines[:first]))


def _strip_labels(text: str) -> str:
    return text.strip().strip("*_").strip()


def _calls_in(body: str) -> list[str]:
    """The calls of an Action section: one at its start, plus any other line that begins with one."""
    calls = []
    rest = body.lstrip(" \t`")
    while True:
        match = _CALL_START.match(rest)
        if not match:
            break
        end = _balanced_end(rest, match.end())
        if end is None:  # unterminated: hand the line to the parser, which will say what is wrong
            calls.append(rest.split("\n", 1)[0].strip().rstrip("`").strip())
            break
        calls.append(rest[:end])
        rest = _next_call_candidate(rest[end:])
        if rest is None:
            break
    return calls


def _next_call_candidate(rest: str) -> str | None:
    """Where a second call would start: after ';' on the same line, or at the start of a later line."""
    after = rest.lstrip(" \t`")
    if after.startswith(";"):
        after = after[1:].lstrip(" \t`")
        if _CALL_START.match(after):
            return after
    for line in rest.split("\n")[1:]:
        candidate = line.strip().strip("`").strip()
        if _CALL_START.match(candidate) and _balanced_end(candidate, _CALL_START.match(candidate).end()) == len(
                candidate.rstrip(";").rstrip()):
            return candidate
    return None


def _trailing_calls(lines: list[str]) -> tuple[list[str], int]:
    """Without an Action label: the bare calls on the last non-empty lines, and where they begin."""
    calls: list[str] = []
    index = len(lines)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].strip().strip("`").strip().rstrip(";").rstrip()
        if not line:
            continue
        match = _CALL_START.match(line)
        if not match or _balanced_end(line, match.end()) != len(line):
            return calls, index + 1
        calls.insert(0, line)
    return calls, 0


def _balanced_end(text: str, start: int) -> int | None:
    """The offset after the ')' closing the '(' just before ``start``, skipping quoted strings."""
    depth, i = 1, start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else char
            i = _string_end(text, i + len(quote), quote)
            if i is None:
                return None
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _string_end(text: str, i: int, quote: str) -> int | None:
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(quote, i):
            return i + len(quote)
        if text[i] == "\n" and len(quote) == 1:
            return None
        i += 1
    return None


def _no_call_message(bodies: list[str]) -> str:
    written = next((b for b in bodies if b), "")
    if not written:
        return NO_ACTION
    first = written.split("\n", 1)[0].strip()
    shown = first if len(first) <= 60 else first[:59] + "…"
    return f"{NO_ACTION}; the Action line must be a call, got {shown!r}"
