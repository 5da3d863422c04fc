"""Console releases: every user-visible string and every structural switch, per release.

Strings live in ``catalog/<release>/<area>.yaml`` under ``strings:``; structural switches (a moved
menu, a removed button, a new required field, a reordered wizard) under ``features:``. A release
directory holds only what differs from the release before it. ``changelog/<area>.yaml`` lists every
difference with a stable id: the ground truth of documentation drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

BASE_RELEASE = "2026.03"
LATEST_RELEASE = "2026.09"
RELEASES: tuple[str, ...] = (BASE_RELEASE, LATEST_RELEASE)
CHANGE_KINDS = (
    "label_changed",
    "element_removed",
    "navigation_changed",
    "step_order_changed",
    "field_added_required",
    "default_changed",
    "feature_removed",
)


class CatalogError(KeyError):
    """A key that no catalog file defines: a template or page asked for a string nobody wrote."""


def _yaml_files(directory: str) -> list[tuple[str, dict[str, Any]]]:
    root = resources.files("stratus.releases").joinpath(directory)
    if not root.is_dir():
        return []
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            out.append((f"{directory}/{entry.name}", yaml.safe_load(entry.read_text(encoding="utf-8")) or {}))
    return out


class _KeepMissing(dict):
    """Placeholders not given stay as ``{name}``: widgets fill some later (table rows, the JS)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True)
class Catalog:
    release: str
    strings: dict[str, str]
    features: dict[str, Any]

    def t(self, key: str, /, **values: Any) -> str:
        try:
            text = self.strings[key]
        except KeyError:
            raise CatalogError(f"no string {key!r} in release {self.release}") from None
        return text.format_map(_KeepMissing(values)) if values else text

    def feature(self, name: str) -> Any:
        try:
            return self.features[name]
        except KeyError:
            raise CatalogError(f"no feature switch {name!r} in release {self.release}") from None

    def js_strings(self) -> dict[str, str]:
        return {k: v for k, v in self.strings.items() if k.startswith("js.")}


@lru_cache(maxsize=None)
def catalog(release: str) -> Catalog:
    """The merged catalog of ``release``: the base release overlaid by each later one up to it."""
    if release not in RELEASES:
        raise ValueError(f"unknown release {release!r}; known: {', '.join(RELEASES)}")
    strings: dict[str, str] = {}
    features: dict[str, Any] = {}
    for name in RELEASES[: RELEASES.index(release) + 1]:
        defined_in: dict[str, str] = {}  # within one release, a key belongs to exactly one file
        for path, data in _yaml_files(f"catalog/{name}"):
            unknown = set(data) - {"strings", "features"}
            if unknown:
                raise ValueError(f"{path}: unknown top-level keys {sorted(unknown)}")
            for section, target in (("strings", strings), ("features", features)):
                for key, value in (data.get(section) or {}).items():
                    if key in defined_in:
                        raise ValueError(f"{path}: {section} key {key!r} is already defined in {defined_in[key]}")
                    defined_in[key] = path
                    target[str(key)] = str(value) if section == "strings" else value
    return Catalog(release, strings, features)


@dataclass(frozen=True)
class Change:
    id: str
    release: str
    product: str
    page: str
    kind: str
    key: str
    old: Any
    new: Any
    summary: str
    source: str


def changelog() -> list[Change]:
    """Every change between consecutive releases, validated field by field."""
    changes: list[Change] = []
    seen: set[str] = set()
    for path, data in _yaml_files("changelog"):
        for index, entry in enumerate(data.get("changes") or []):
            where = f"{path}: changes[{index}]"
            missing = {"id", "release", "product", "page", "kind", "key", "old", "new", "summary"} - set(entry)
            if missing:
                raise ValueError(f"{where}: missing fields {sorted(missing)}")
            if entry["kind"] not in CHANGE_KINDS:
                raise ValueError(f"{where}: kind {entry['kind']!r} is not one of {CHANGE_KINDS}")
            if entry["release"] not in RELEASES[1:]:
                raise ValueError(f"{where}: release {entry['release']!r} is not a later release")
            if entry["id"] in seen:
                raise ValueError(f"{where}: duplicate id {entry['id']}")
            seen.add(entry["id"])
            changes.append(Change(source=path, **{k: entry[k] for k in Change.__dataclass_fields__ if k != "source"}))
    return changes
