"""Releases: the changelog is the ground truth of drift, so it must agree with the catalogs exactly."""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources

import pytest

from stratus.releases import BASE_RELEASE, CHANGE_KINDS, LATEST_RELEASE, RELEASES, CatalogError, catalog, changelog


def _value(release: str, key: str) -> object:
    cat = catalog(release)
    if key in cat.strings:
        return cat.strings[key]
    return cat.feature(key)


@pytest.mark.parametrize("change", changelog(), ids=lambda c: c.id)
def test_change_matches_catalogs(change) -> None:
    previous = RELEASES[RELEASES.index(change.release) - 1]
    assert _value(previous, change.key) == change.old, f"{change.source}: {change.id} old value"
    assert _value(change.release, change.key) == change.new, f"{change.source}: {change.id} new value"
    assert change.old != change.new
    assert change.page.startswith("/")
    if change.kind == "label_changed":
        assert change.key in catalog(BASE_RELEASE).strings


def test_changelog_covers_every_kind_over_ecs_and_vpc() -> None:
    changes = [c for c in changelog() if c.product in ("ecs", "vpc")]
    assert len(changes) >= 15
    kinds = Counter(c.kind for c in changes)
    assert set(CHANGE_KINDS) <= set(kinds), f"missing kinds: {set(CHANGE_KINDS) - set(kinds)}"


def test_every_catalog_difference_is_in_the_changelog() -> None:
    """A console change nobody recorded would be drift that verification can never be scored on."""
    base, later = catalog(BASE_RELEASE), catalog(LATEST_RELEASE)
    recorded = {c.key for c in changelog()}
    changed = {k for k in later.strings if base.strings.get(k) != later.strings[k] and k in base.strings}
    changed |= {k for k in later.features if base.features.get(k) != later.features[k]}
    assert changed - recorded == set()


def test_templates_only_use_defined_keys() -> None:
    base = catalog(BASE_RELEASE)
    pattern = re.compile(r"""\bt\(\s*['"]([A-Za-z0-9_.]+)['"]""")
    missing = {}
    roots = [resources.files("stratus.console").joinpath("templates")]
    roots += [p for p in resources.files("stratus.products").iterdir() if p.is_dir() and p.joinpath("templates").is_dir()]
    for root in roots:
        for path in _walk(root):
            source = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.S)  # usage examples in comments
            for key in pattern.findall(source):
                if key not in base.strings and not key.endswith((".", "_")):  # "prefix_" ~ value is dynamic
                    missing.setdefault(key, path.name)
    assert missing == {}


def _walk(root):  # noqa: ANN001, ANN202
    for entry in root.iterdir():
        if entry.is_dir():
            yield from _walk(entry)
        elif entry.name.endswith(".html"):
            yield entry


def test_unknown_keys_and_releases_fail_loudly() -> None:
    with pytest.raises(CatalogError):
        catalog(BASE_RELEASE).t("no.such.key")
    with pytest.raises(ValueError):
        catalog("1999.01")
