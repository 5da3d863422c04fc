"""``${name.output}``: how task files, oracle solutions, reward rules and META templates refer to what
provisioning made (``${vpc.VpcId}``).

A module of its own at the bottom of the package because everything that reads a task file needs it:
the provisioning engine fills template parameters, the oracle its steps, the reward rules their
expected values, the rollout its goal. None of them should import another for it.
"""

from __future__ import annotations

import re
from typing import Any

REF_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_]*)\}")


def references(value: Any) -> list[tuple[str, str]]:
    """Every ``(name, output)`` that ``${name.output}`` references in a value, lists and dicts included."""
    if isinstance(value, str):
        return [(m.group(1), m.group(2)) for m in REF_PATTERN.finditer(value)]
    if isinstance(value, list):
        return [ref for item in value for ref in references(item)]
    if isinstance(value, dict):
        return [ref for item in value.values() for ref in references(item)]
    return []


def unresolved(value: Any, outputs: dict[str, dict[str, Any]]) -> list[str]:
    """The ``${name.output}`` references in ``value`` that ``outputs`` cannot fill (sorted, unique)."""
    return sorted({f"${{{name}.{output}}}" for name, output in references(value)
                   if output not in outputs.get(name, {})})


def substitute(value: Any, outputs: dict[str, dict[str, Any]]) -> Any:
    """Replace references by outputs: a whole-string reference keeps the output's type."""
    if isinstance(value, str):
        whole = REF_PATTERN.fullmatch(value)
        if whole:
            return outputs[whole.group(1)][whole.group(2)]
        return REF_PATTERN.sub(lambda m: str(outputs[m.group(1)][m.group(2)]), value)
    if isinstance(value, list):
        return [substitute(item, outputs) for item in value]
    if isinstance(value, dict):
        return {k: substitute(v, outputs) for k, v in value.items()}
    return value
