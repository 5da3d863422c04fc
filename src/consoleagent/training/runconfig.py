"""Run configurations from YAML files and command-line overrides, onto plain dataclasses.

Both trainers are configured by a dataclass (``SFTRunConfig``, ``GRPORunConfig``), in TRL's
style. A YAML mapping fills it; an unknown key or a value of the wrong type is an error that names
the file and the field, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ConfigError(ValueError):
    pass


def _check(cls: type, name: str, value: Any, where: str) -> Any:
    hints = typing.get_type_hints(cls)
    annotation = hints.get(name, Any)
    args = typing.get_args(annotation)
    optional = type(None) in args
    if value is None:
        if optional or annotation is Any:
            return None
        raise ConfigError(f"{where}: field {name!r} may not be null")
    target = [a for a in args if a is not type(None)][0] if optional and len(args) == 2 else annotation
    origin = typing.get_origin(target) or target
    if origin is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if origin in (int, float, str, bool, list, dict) and not isinstance(value, origin):
        raise ConfigError(f"{where}: field {name!r} must be {origin.__name__}, not {type(value).__name__} ({value!r})")
    if origin is int and isinstance(value, bool):
        raise ConfigError(f"{where}: field {name!r} must be int, not bool")
    return value


def from_mapping(cls: type[T], values: dict[str, Any], where: str = "config") -> T:
    """Build ``cls`` from a mapping, checking every key against the dataclass's fields."""
    if not isinstance(values, dict):
        raise ConfigError(f"{where}: expected a mapping of fields, got {type(values).__name__}")
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - fields)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(fields))}")
    checked = {k: _check(cls, k, v, where) for k, v in values.items()}
    try:
        return cls(**checked)
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_yaml(path: Path) -> dict[str, Any]:
    """A YAML file holding one mapping (an empty file is an empty mapping); errors name the line."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    return data or {}


def load_config(cls: type[T], path: Path | None, overrides: dict[str, Any] | None = None) -> T:
    """The file's mapping (if any), then the overrides (``None`` values are ignored: flags not given)."""
    values = load_yaml(path) if path is not None else {}
    where = str(path) if path is not None else "flags"
    if not isinstance(values, dict):
        raise ConfigError(f"{where}: expected a mapping of fields at the top level")
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return from_mapping(cls, values, where)
