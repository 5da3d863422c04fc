"""The system prompt of a chat-model policy: what the console is, how a page is shown, the action
language, the answer format and the rules. Built from the action table (``describe_actions``),
so a new action reaches the prompt without editing it. The answer text for a recorded step
(``completion_text``) lives here too: training targets and the API-cost count both need the answer
in the format this prompt asks for.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from consoleagent.actions.schema import describe_actions
from consoleagent.actions.spec import ACTIONS, DISCREPANCY_KINDS

INTRO = """\
You operate the web console of a cloud provider in a real browser, for a user. You are given a goal \
and usually a document: a procedure written for people ("Create a VPC") whose steps you follow to \
reach the goal. The document may be out of date: the console can differ from it (renamed labels, \
moved menus, removed or new required fields, changed defaults). Your job is to reach the goal in \
the console as it really is, and to report every place where the document and the console disagree."""

PAGE_FORMAT = """\
## How you see the page
Each turn you receive: the goal; the document's numbered steps and the step you are on; your \
previous actions with their results; the error of your last action, if it failed; the options of \
the page's drop-down lists (select one with `select(id, "option")`); and the page: \
its URL, its title and an outline of its content. In the outline, every element you can act on \
has an id in brackets, its role and its accessible name, e.g. `[12] button "Create VPC"` or \
`[7] textbox "Name" value="web-01"`; headings, text, tables and dialogs are shown around them so \
you can tell which form, row or dialog an element belongs to. Ids are renumbered on every turn: \
use only ids from the current page."""

VISION = """\
You also receive a screenshot of the page on which every element with an id is boxed and labelled \
with the same number as in the outline."""

FORMAT_REACT = """\
## How to answer
Answer in exactly this format, with one action:
Thought: <briefly: what you see and what you do next, and why>
Step: <the number of the document step you are working on, if there is a document>
Action: <one action call>

For example:
Thought: The VPCs page is open and the document says to click Create VPC, which is [14].
Step: 4
Action: click(14)"""

FORMAT_TOOLS = """\
## How to answer
Write your reasoning briefly as plain text (you may add a line "Step: <n>" with the number of the \
document step you are working on), then call exactly one of the tools: each tool is one action. \
Call one tool per turn, never several."""

RULES = """\
## Rules
- One action per turn. After each action you see the new page.
- Use only ids shown in the current observation; never guess an id or reuse one from an earlier page.
- Follow the document's steps in order, but reach the goal in the console as it is.
- When the console disagrees with the document (a label, a menu path, a field, a default, the \
order of steps, the outcome), call report_discrepancy(step, kind, expected, observed) with the \
document step number, the kind ({kinds}), what the document says and what the console shows; then \
carry on towards the goal if it is still reachable.
- If the goal needs a resource the account lacks (for example a VPC or a vSwitch to put an instance \
in), call request_resource(description) describing it; you will be told what was prepared.
- If an action fails, read the error and try something different; do not repeat a failing action.
- When the goal is reached, call task_complete(answer) with a short summary. If the goal cannot be \
reached in this console, call task_unachievable(reason)."""


COMPACT = """\
You operate a cloud console in a browser. Follow the document's steps to reach the goal; where the \
console differs from the document, report it and carry on. Ids are the numbers in brackets on the \
current page.
Answer with one line Thought: <what you do and why> and one line Action: <one call>.
Actions: {signatures}."""


def compact_system_prompt() -> str:
    """A system message of about a hundred tokens for small models trained from scratch: the full
    prompt (~1,600 tokens) is the same in every sample, so a model that learns the format from
    data only pays for it in sequence length. Signatures still come from the action table."""
    return COMPACT.format(signatures=", ".join(spec.signature() for spec in ACTIONS.values()))


def system_prompt(vision: bool = False, tool_calling: bool = False) -> str:
    """The system message for a chat model."""
    parts = [INTRO, PAGE_FORMAT]
    if vision:
        parts.append(VISION)
    parts.append("## Actions\n" + describe_actions())
    parts.append(FORMAT_TOOLS if tool_calling else FORMAT_REACT)
    parts.append(RULES.format(kinds=", ".join(DISCREPANCY_KINDS)))
    return "\n\n".join(parts)


class PromptFileError(ValueError):
    """The system-prompt record beside a model is not what ``save_model_prompt`` writes."""


SYSTEM_PROMPTS = ("full", "compact")
MODEL_PROMPT_FILE = "consoleagent-prompt.json"


@lru_cache(maxsize=4)
def system_text(profile: str = "full") -> str:
    """The system message: ``full`` is the ReAct prompt every chat-model policy gets; ``compact``
    (~100 tokens) is for small models trained from scratch, which learn the format from the data."""
    if profile not in SYSTEM_PROMPTS:
        raise ValueError(f"system prompt {profile!r}: expected one of {', '.join(SYSTEM_PROMPTS)}")
    return compact_system_prompt() if profile == "compact" else system_prompt(vision=False, tool_calling=False)


def messages_for(observation_text: str, system: str | None = None) -> list[dict[str, str]]:
    """The chat prompt for one observation: used by HFPolicy (acting) and the training samples."""
    return [{"role": "system", "content": system_text() if system is None else system},
            {"role": "user", "content": observation_text}]


def save_model_prompt(model_dir: str | Path, system: str) -> Path:
    """Record beside a trained model the system message it was trained with, so that the hf policy
    prompts it exactly as in training (the model directory travels; code defaults may change)."""
    path = Path(model_dir) / MODEL_PROMPT_FILE
    path.write_text(json.dumps({"system_prompt": system}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def model_system_prompt(model_dir: str | Path) -> str | None:
    """The system message recorded with a model (``save_model_prompt``), or None."""
    path = Path(model_dir) / MODEL_PROMPT_FILE
    if not path.is_file():
        return None
    try:
        system = json.loads(path.read_text(encoding="utf-8"))["system_prompt"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise PromptFileError(f"{path}: expected a JSON object with a string field system_prompt ({exc})") from None
    if not isinstance(system, str):
        raise PromptFileError(f"{path}: system_prompt: expected a string, got {type(system).__name__}")
    return system


# -- the answer --------------------------------------------------------------------------------

_ORACLE_PREFIX = re.compile(r"^oracle step \d+:\s*", re.IGNORECASE)


def completion_text(thought: str, action: str, document_step: int | None = None) -> str:
    """The ReAct answer for a step: ``Thought: ...`` (one line), ``Step: n`` when known, ``Action: ...``."""
    thought = " ".join(_ORACLE_PREFIX.sub("", thought or "").split()) or "I take the next step."
    thought = thought[0].upper() + thought[1:]
    lines = [f"Thought: {thought}"]
    if document_step is not None:
        lines.append(f"Step: {document_step}")
    lines.append(f"Action: {action}")
    return "\n".join(lines)


def teacher_thought(record: dict[str, Any]) -> str:
    """The step's thought; where the teacher wrote only the action's name (the oracle's page-level
    steps), a sentence from the action's arguments, so that the target says why."""
    thought = " ".join(_ORACLE_PREFIX.sub("", record.get("thought") or "").split())
    parsed = record.get("parsed") or {}
    name, args = parsed.get("name"), parsed.get("args") or {}
    if thought and thought != name:
        return thought
    if name == "report_discrepancy":
        return (f"Document step {args.get('step')} says {args.get('expected')!s}, but the console shows "
                f"{args.get('observed')!s}: {str(args.get('kind', '')).replace('_', ' ')}.")
    if name == "task_complete":
        return f"The goal is reached: {args.get('answer', '')}".rstrip(": ")
    if name == "task_unachievable":
        return f"The goal cannot be reached in this console: {args.get('reason', '')}".rstrip(": ")
    if name == "goto":
        return f"I open {args.get('url', 'the page')} directly."
    if name == "press":
        return f"I press {args.get('key', 'the key')}."
    if name == "wait":
        return "The page is still changing; I wait."
    return thought
