"""How a product plugs into the console: its pages (a router), its navigation tree, its home."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from fastapi import APIRouter

from stratus.releases import Catalog

if TYPE_CHECKING:
    from stratus.console.pages import ConsolePage


@dataclass
class NavItem:
    label: str
    href: str
    active: bool = False


@dataclass
class NavGroup:
    label: str
    items: list[NavItem] = field(default_factory=list)
    href: str | None = None
    active: bool = False


@dataclass
class ResourceCount:
    label: str
    count: int
    href: str


@dataclass
class ConsoleProduct:
    """A product's console. ``nav`` takes the release catalog because releases move menu items."""

    key: str
    router: APIRouter
    nav: Callable[[Catalog], list[NavGroup]]
    home_href: str
    templates_package: str
    resource_counts: Callable[["ConsolePage"], list[ResourceCount]] | None = None


CONSOLE_PRODUCTS: dict[str, ConsoleProduct] = {}


def register_console_product(product: ConsoleProduct) -> ConsoleProduct:
    CONSOLE_PRODUCTS[product.key] = product
    return product


def mark_active(groups: list[NavGroup], path: str) -> list[NavGroup]:
    """Mark the nav item whose href is the longest prefix of ``path`` (and its group) as active."""
    best: tuple[int, NavGroup | None, NavItem | None] = (0, None, None)
    for group in groups:
        candidates = [(group.href, group, None)] if group.href else []
        candidates += [(item.href, group, item) for item in group.items]
        for href, grp, item in candidates:
            if href and (path == href or path.startswith(href.rstrip("/") + "/")) and len(href) > best[0]:
                best = (len(href), grp, item)
    _, group, item = best
    if group:
        group.active = True
    if item:
        item.active = True
    return groups
