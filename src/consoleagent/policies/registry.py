"""Build a policy by name, for the command line: ``make_policy("llm", model="gpt-4o", vision="true")``.

Options may arrive as strings (``--policy-option vision=true``); each is converted to the type
the policy's constructor declares, and an unknown option is an error that lists the known ones.
"""

from __future__ import annotations

import importlib
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from consoleagent.policies.base import Policy, PolicyConfigError

__all__ = ["ALIASES", "REGISTRY", "PolicyConfigError", "PolicyEntry", "coerce", "make_policy", "parse_option_pairs",
           "policy_help", "policy_names", "policy_options", "preflight"]


@dataclass(frozen=True)
class PolicyEntry:
    """One policy of the command line: its name, what it is in a line, and how to import its class.

    ``from_task``: built for each episode from the task it plays (``cls.for_episode(task_spec, outputs)``),
    like the oracle, which plays the task's known solution; such a policy takes no command-line options."""

    name: str
    summary: str
    module: str
    cls: str
    from_task: bool = False

    def load(self) -> Callable[..., Policy]:
        """Imported on demand: the llm policy needs the openai package, hf and ranker torch; the others neither."""
        return getattr(importlib.import_module(self.module), self.cls)


# The one list of policies: help texts, option checks and factories are all built from it.
REGISTRY: dict[str, PolicyEntry] = {entry.name: entry for entry in (
    PolicyEntry("oracle", "each suite task's known solution (needs a task)", "consoleagent.policies.oracle",
                "OraclePolicy", from_task=True),
    PolicyEntry("docfollower", "follows the document step by step (offline heuristic)",
                "consoleagent.policies.docfollower", "DocFollowerPolicy"),
    PolicyEntry("ranker", "scores candidate actions with the packaged sentence encoder and a trained head",
                "consoleagent.policies.ranker", "RankerPolicy"),
    PolicyEntry("llm", "an OpenAI-compatible chat model (API key or local server)", "consoleagent.policies.llm",
                "LLMPolicy"),
    PolicyEntry("hf", "a local Hugging Face causal LM that writes its actions", "consoleagent.policies.hf", "HFPolicy"),
    PolicyEntry("replay", "re-executes a recorded trajectory", "consoleagent.policies.replay", "ReplayPolicy"),
    PolicyEntry("scripted", "a fixed list of actions", "consoleagent.policies.scripted", "ScriptedPolicy"),
)}
ALIASES = {"trajectory": "trajectory_path", "path": "trajectory_path"}  # replay's file, as a CLI user would call it


def policy_names(*, needs_no_task: bool = False) -> tuple[str, ...]:
    """Every registered policy (only those that run without a suite task with ``needs_no_task``)."""
    return tuple(n for n, e in REGISTRY.items() if not (needs_no_task and e.from_task))


def policy_help(*, needs_no_task: bool = False) -> str:
    """``--policy`` help: each policy with its one-line summary, from the registry."""
    return "; ".join(f"{n}: {REGISTRY[n].summary}" for n in policy_names(needs_no_task=needs_no_task)) + "."


def entry_of(name: str) -> PolicyEntry:
    """The registered policy ``name`` (ValueError listing the known ones otherwise)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown policy {name!r}; choose one of: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def policy_options(name: str) -> dict[str, inspect.Parameter]:
    """The options a policy accepts on the command line (its constructor's parameters; none for a policy
    built from its task)."""
    entry = entry_of(name)
    if entry.from_task:
        return {}
    signature = inspect.signature(entry.load())
    return {p.name: p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def make_policy(name: str, *, task: Any = None, outputs: dict[str, dict[str, Any]] | None = None,
                **options: Any) -> Policy:
    """A policy by name (see ``REGISTRY``), its string options converted. A policy built from its task (the
    oracle) needs ``task`` (the task file, a ``TaskSpec``) and the provisioned ``outputs``."""
    entry = entry_of(name)
    if entry.from_task:
        if options:
            raise ValueError(f"the {name} policy takes no options (it is built from the task it plays)")
        if task is None:
            raise ValueError(f"the {name} policy plays a suite task's known solution: it needs a task")
        return entry.load().for_episode(task, outputs or {})
    return entry.load()(**checked_options(name, options))


def checked_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` for the constructor of policy ``name`` (not one built from its task), string values converted;
    ValueError for an option it does not take or a required one missing. Lets a command refuse a policy it
    cannot build before it starts a console, without building it."""
    accepted = policy_options(name)
    hints = typing.get_type_hints(entry_of(name).load().__init__)
    converted: dict[str, Any] = {}
    for key, value in options.items():
        key = ALIASES.get(key, key) if name == "replay" else key
        key = key.replace("-", "_")
        if key not in accepted:
            raise ValueError(f"policy {name!r} has no option {key!r}; its options: {', '.join(accepted)}")
        converted[key] = coerce(value, hints.get(key, Any), key) if isinstance(value, str) else value
    missing = [p for p, param in accepted.items() if param.default is param.empty and p not in converted]
    if missing:
        raise ValueError(f"policy {name!r} needs option(s): {', '.join(missing)}")
    return converted


def preflight(name: str, **options: Any) -> None:
    """Check what a policy can check before any worker builds it (an API key, a model path), so a
    misconfiguration is one clear error (PolicyConfigError) instead of every episode failing in a worker."""
    check = getattr(entry_of(name).load(), "preflight", None)
    if check is not None:
        check(**options)


def parse_option_pairs(pairs: list[str]) -> dict[str, str]:
    """``["model=gpt-4o", "vision=true"]`` (repeated ``--policy-option``) to a dict of strings."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"policy option {pair!r} must look like key=value")
        options[key.strip()] = value
    return options


def coerce(value: str, annotation: Any, key: str) -> Any:
    """Convert a command-line string to the declared type (bool, int, float, list, dict, str, or None)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    optional = type(None) in typing.get_args(annotation)
    if optional and value.strip().casefold() in ("", "none", "null"):
        return None
    target = args[0] if optional and len(args) == 1 else annotation
    origin = typing.get_origin(target) or target
    try:
        if origin is bool:
            lowered = value.strip().casefold()
            if lowered not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise ValueError(value)
            return lowered in ("true", "1", "yes", "on")
        if origin is int:
            return int(value)
        if origin is float:
            return float(value)
        if origin in (list, dict):
            parsed = json.loads(value) if value.strip()[:1] in "[{" else value.split(",")
            if not isinstance(parsed, origin):
                raise ValueError(value)
            return parsed
    except ValueError:
        raise ValueError(f"option {key!r}: cannot read {value!r} as {getattr(origin, '__name__', origin)}") from None
    return value
