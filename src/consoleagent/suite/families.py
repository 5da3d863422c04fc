"""Task families: one Jinja2 template of a task file and the variants that fill it.

A family keeps tasks that share a procedure (create a VPC with this name and that CIDR, on the
base release and on the drifted one) in one place; ``consoleagent tasks generate`` writes one task
file per variant, and a test checks the written files are what the families produce, so task
files are never edited by hand when they belong to a family.

    family: vpc-create-vpc
    variants:
      - {id: vpc-create-vpc-01, difficulty: standard, release: "2026.03", name: web-vpc, cidr: 10.0.0.0/16}
      - {id: vpc-create-vpc-02, difficulty: hard, release: "2026.09", name: db-vpc, cidr: 172.16.0.0/12}
    template: |
      id: {{ id }}
      product: vpc
      ...
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

from consoleagent.suite import FAMILIES_ROOT, TASKS_ROOT
from consoleagent.suite.validation import plan_requires
from consoleagent.tasks.spec import TaskFileError, TaskSpec

HEADER = "# Generated from {family} by `consoleagent tasks generate`: edit the family, not this file.\n"


@dataclass
class Rendered:
    path: Path  # where the task file belongs
    text: str
    family: Path


def _environment() -> jinja2.Environment:
    return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def render_family(path: Path, tasks_root: Path = TASKS_ROOT, families_root: Path = FAMILIES_ROOT) -> list[Rendered]:
    """Every task of one family file, validated; errors name the family file and the variant."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TaskFileError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"family", "variants", "template", "defaults"} \
            or not {"family", "variants", "template"} <= set(data):
        raise TaskFileError(f"{path}: a family has 'family', 'variants', 'template' and optionally 'defaults'")
    try:
        template = _environment().from_string(data["template"])
    except jinja2.TemplateSyntaxError as exc:
        raise TaskFileError(f"{path}: template line {exc.lineno}: {exc.message}") from None
    relative = path.relative_to(families_root).as_posix() if path.is_relative_to(families_root) else path.name
    rendered = []
    for index, variant in enumerate(data["variants"] or []):
        where = f"{path}: variants[{index}]"
        if not isinstance(variant, dict) or "id" not in variant:
            raise TaskFileError(f"{where}: a variant is a mapping with at least an id")
        values: dict[str, Any] = {**(data.get("defaults") or {}), **variant, "family": data["family"]}
        try:
            text = template.render(**values)
        except jinja2.UndefinedError as exc:
            raise TaskFileError(f"{where} ({variant['id']}): {exc.message}") from None
        try:
            body = yaml.safe_load(text)
            spec = TaskSpec.model_validate(body)
            plan_requires(spec)
        except Exception as exc:
            raise TaskFileError(f"{where} ({variant['id']}): the rendered task is invalid:\n{exc}") from None
        target = tasks_root / spec.product / f"{spec.id}.yaml"
        rendered.append(Rendered(target, HEADER.format(family=f"families/{relative}") + text, path))
    return rendered


def render_all(families_root: Path = FAMILIES_ROOT, tasks_root: Path = TASKS_ROOT) -> list[Rendered]:
    out: list[Rendered] = []
    for path in sorted(families_root.rglob("*.yaml")):
        out += render_family(path, tasks_root, families_root)
    ids = [r.path.stem for r in out]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise TaskFileError(f"task ids produced by more than one variant: {', '.join(repeated)}")
    return out


def generate(families_root: Path = FAMILIES_ROOT, tasks_root: Path = TASKS_ROOT, *, check: bool = False) -> list[str]:
    """Write every family's task files (or, with ``check``, list those that differ); returns the changes.

    Generated files whose family or variant disappeared are removed (or reported)."""
    rendered = render_all(families_root, tasks_root)
    changes = []
    for item in rendered:
        current = item.path.read_text(encoding="utf-8") if item.path.exists() else None
        if current != item.text:
            changes.append(f"{'create' if current is None else 'update'} {item.path}")
            if not check:
                item.path.parent.mkdir(parents=True, exist_ok=True)
                item.path.write_text(item.text, encoding="utf-8")
    wanted = {r.path for r in rendered}
    for path in sorted(tasks_root.rglob("*.yaml")):
        if path not in wanted and path.read_text(encoding="utf-8").startswith("# Generated from "):
            changes.append(f"remove {path}")
            if not check:
                path.unlink()
    return changes
