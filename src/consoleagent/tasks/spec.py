"""The task file: one YAML file per task, validated into a :class:`TaskSpec`.

A task names its document and procedure, the console release it runs on, the goal, the resources
to provision (``requires:``), the audit-log reward rule, the expected discrepancies (for a release
later than the document's) and the oracle's solution. Errors name the file, the field and, where
the YAML parser knows it, the line (``tasks/vpc/create-vpc-01.yaml:7: reward.expect[0].event: ...``).
The format is documented in ``docs/formats.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from consoleagent.provisioning.engine import parse_requirements
from consoleagent.provisioning.types import ProvisioningError, Requirement
from consoleagent.rewards.rules import RewardRule
from consoleagent.tasks.oracle_steps import OracleStep, parse_oracle_steps
from consoleagent.tasks.task import Task

FastLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the suite loads at every CLI call
ID_PATTERN = re.compile(r"^[a-z][a-z0-9-]{2,79}$")
HARD_KINDS = ("precondition", "drifted_path", "long", "async", "impossible")


class TaskFileError(ValueError):
    """A task file that cannot be used; the message starts with ``file[:line]: field:``."""


class ExpectedDiscrepancy(BaseModel):
    """One expected difference between the document and this task's release."""

    model_config = ConfigDict(extra="forbid")
    change: str  # a change id of the console backend's ground truth (stratus: its release changelog)
    step: int = Field(ge=1)  # the document step it affects


class TaskSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    console: str = "stratus"  # the console backend it runs on (consoleagent.consoles); its templates plan `requires`
    product: str
    difficulty: Literal["standard", "hard"]
    hard_kinds: list[Literal["precondition", "drifted_path", "long", "async", "impossible"]] = Field(default_factory=list)
    split: Literal["train", "val", "test"]
    document: str  # path under the documents root, e.g. stratus/vpc/create-vpc.md
    release: str
    goal: str = Field(min_length=10)
    start_url: str = "/console"
    params: dict[str, Any] = Field(default_factory=dict)
    requires: list[dict[str, Any]] = Field(default_factory=list)
    reward: RewardRule
    expected: Literal["complete", "unachievable"] = "complete"
    discrepancies: list[ExpectedDiscrepancy] = Field(default_factory=list)
    oracle: list[dict[str, Any]] = Field(min_length=1)
    max_steps: int = Field(default=40, ge=1, le=200)
    time_limit_s: float = Field(default=600.0, gt=0)
    family: str | None = None  # the family file it was generated from, if any

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise ValueError("must be 3-80 characters of a-z, 0-9 and '-', starting with a letter")
        return value

    @field_validator("requires")
    @classmethod
    def _requires(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The entries' shape only: planning them against the console's templates is the suite's
        check (``consoleagent.suite.validation.plan_requires``), which knows the consoles."""
        try:
            parse_requirements(value, source="requires")
        except ProvisioningError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("oracle")
    @classmethod
    def _oracle(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parse_oracle_steps(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "TaskSpec":
        if self.difficulty == "hard" and not self.hard_kinds:
            raise ValueError(f"hard_kinds: a hard task names why it is hard (one or more of {', '.join(HARD_KINDS)})")
        if self.difficulty == "standard" and self.hard_kinds:
            raise ValueError("hard_kinds: only hard tasks have hard_kinds")
        if ("impossible" in self.hard_kinds) != (self.expected == "unachievable"):
            raise ValueError("expected: an 'impossible' task expects 'unachievable', and only such a task does")
        if self.reward.outcome != self.expected:
            raise ValueError(f"reward.outcome: is {self.reward.outcome!r} but the task expects {self.expected!r}")
        return self

    @property
    def requirements(self) -> list[Requirement]:
        return parse_requirements(self.requires, source=self.id)

    @property
    def oracle_steps(self) -> list[OracleStep]:
        return parse_oracle_steps(self.oracle)

    def document_path(self, documents_root: Path) -> Path:
        return documents_root / self.document.split("#", 1)[0]

    def procedure(self, documents_root: Path) -> Any:
        """The procedure the task follows: the document's first, or the one ``document: file.md#<procedure id>`` names."""
        from consoleagent.documents import ProcedureError, load_document

        path = self.document_path(documents_root)
        document = load_document(path)
        wanted = self.document.split("#", 1)[1] if "#" in self.document else None
        for procedure in document.procedures:
            if wanted is None or procedure.id == wanted:
                return procedure
        known = ", ".join(p.id for p in document.procedures) or "none"
        raise ProcedureError(f"no procedure {wanted!r} (procedures: {known})" if wanted else document.skipped or "no procedure",
                             str(path), 1)

    def to_task(self, documents_root: Path | None = None, document_steps: list[str] | None = None) -> Task:
        """The environment's view of the task (the document's steps included when a root is given)."""
        from consoleagent.documents.references import References, references

        steps, cited = document_steps, References()
        if steps is None and documents_root is not None:
            steps = self.procedure(documents_root).step_texts()
            path = self.document_path(documents_root)
            # a suite document's references are looked up among the suite's documents; a file named by its absolute
            # path (a document under verification) is a lone file
            outside = Path(self.document.split("#", 1)[0]).is_absolute()
            cited = references(path, None if outside else documents_root)
        return Task(goal=self.goal, start_url=self.start_url, id=self.id, document=steps or [], related=cited.procedures,
                    alternatives=cited.alternatives,
                    max_steps=self.max_steps, time_limit_s=self.time_limit_s, reward=self.reward, spec=self,
                    release=self.release)


@dataclass
class LoadedTask:
    spec: TaskSpec
    path: Path
    text: str = ""

    @cached_property
    def lines(self) -> dict[str, int]:
        """The line of every field, for error messages: composed only when a message needs it."""
        return field_lines(self.text)


def load_task_file(path: Path) -> LoadedTask:
    """Read and validate one task file; every problem is a TaskFileError naming file, line and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = yaml.load(text, Loader=FastLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise TaskFileError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise TaskFileError(f"{path}: a task file is a mapping of fields (id, goal, reward, ...)")
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise TaskFileError(_describe(path, exc, field_lines(text))) from None
    loaded = LoadedTask(spec, path, text)
    if loaded.spec.id != path.stem:
        raise TaskFileError(f"{path}:{loaded.lines.get('id', 1)}: id: {loaded.spec.id!r} must equal the file name {path.stem!r}")
    return loaded


def field_lines(text: str) -> dict[str, int]:
    return _field_lines(yaml.compose(text, Loader=FastLoader))


def _field_lines(node: Any, prefix: str = "") -> dict[str, int]:
    """``{"reward.expect.0.event": 12, ...}``: the line of every field, for error messages."""
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = f"{prefix}{key.value}"
            lines[name] = key.start_mark.line + 1
            lines.update(_field_lines(value, name + "."))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            name = f"{prefix}{index}"
            lines[name] = item.start_mark.line + 1
            lines.update(_field_lines(item, name + "."))
    return lines


def _describe(path: Path, exc: ValidationError, lines: dict[str, int]) -> str:
    problems = []
    for error in exc.errors():
        location = [str(p) for p in error["loc"]]
        line = next((lines[".".join(location[:n])] for n in range(len(location), 0, -1)
                     if ".".join(location[:n]) in lines), None)
        readable = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in location).lstrip(".") or "(task)"
        message = error["msg"].removeprefix("Value error, ")
        item = re.match(r"(\w+)\[(\d+)\]", message)  # "oracle[3]: ..." points at the step's own line
        if item and f"{item[1]}.{item[2]}" in lines:
            line = lines[f"{item[1]}.{item[2]}"]
        if error["type"] == "extra_forbidden":
            message = "unknown field"
        problems.append(f"{path}:{line}: {readable}: {message}" if line else f"{path}: {readable}: {message}")
    return "\n".join(problems)
