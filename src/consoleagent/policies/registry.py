"""Build a policy by name, for the command line: ``make_policy("llm", model="gpt-4o", vision="true")``.

Options may arrive as strings (``--policy-option vision=true``); each is converted to the type
the policy's constructor declares, and an unknown option is an error that lists the known ones.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from typing import Any

from consoleagent.policies.base import Policy, PolicyConfigError

__all__ = ["ALIASES", "POLICIES", "PolicyConfigError", "coerce", "make_policy", "parse_option_pairs", "policy_options",
           "preflight"]


def _classes() -> dict[str, Callable[..., Policy]]:
    """Imported on demand: the llm policy needs the openai package, the others do not (the hf policy
    imports torch and transformers only when one is built)."""
    from consoleagent.policies.docfollower import DocFollowerPolicy
    from consoleagent.policies.hf import HFPolicy
    from consoleagent.policies.llm import LLMPolicy
    from consoleagent.policies.ranker import RankerPolicy
    from consoleagent.policies.replay import ReplayPolicy
    from consoleagent.policies.scripted import ScriptedPolicy

    return {"llm": LLMPolicy, "docfollower": DocFollowerPolicy, "replay": ReplayPolicy, "scripted": ScriptedPolicy,
            "hf": HFPolicy, "ranker": RankerPolicy}


POLICIES = ("llm", "docfollower", "replay", "scripted", "hf", "ranker")
ALIASES = {"trajectory": "trajectory_path", "path": "trajectory_path"}  # replay's file, as a CLI user would call it


def policy_options(name: str) -> dict[str, inspect.Parameter]:
    """The options a policy accepts (its constructor's parameters)."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose one of: {', '.join(POLICIES)}")
    signature = inspect.signature(_classes()[name])
    return {p.name: p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def make_policy(name: str, **options: Any) -> Policy:
    """A policy by name ("llm", "docfollower", "replay", "scripted", "hf", "ranker"), its string options converted."""
    accepted = policy_options(name)
    hints = typing.get_type_hints(_classes()[name].__init__)
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
    return _classes()[name](**converted)


def preflight(name: str, **options: Any) -> None:
    """Check what a policy can check before any worker builds it (an API key, a model path), so a
    misconfiguration is one clear error (PolicyConfigError) instead of every episode failing in a worker."""
    check = getattr(_classes().get(name), "preflight", None)
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
