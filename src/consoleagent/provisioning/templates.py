"""Resource META templates: what a template is, the context it runs in, and the registry of them.

A template is ⟨description, key attributes, create, verify, destroy⟩ plus the templates that can
supply the parameters it needs (``depends``). It knows one resource kind and nothing about the
task: the engine (``engine.py``) resolves references, orders the graph and cleans up; matching a
free-text request to a template (ResourceCoder) reads what ``TemplateLibrary.describe`` exposes.

Nothing here knows a console. How a library's templates reach their console (the provisioner's
client, waiting for asynchronous states, which errors mean "already gone", what an account holds)
is the :class:`ConsoleBinding` that the console's backend attaches to its library
(``consoles/<name>/``): the engine and validation work through it, so adding a console never
touches this package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from consoleagent.placeholders import REF_PATTERN
from consoleagent.provisioning.types import PooledAccount, ProvisioningError


class ProvisioningClient(Protocol):
    """What a template's context holds: one console's client acting with the provisioner's credentials
    (an API SDK's client on the account's provisioner key, SQL as a provisioner role...)."""

    region: str

    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]: ...

    def close(self) -> None: ...


# (client, resource id, wanted statuses, timeout seconds) -> the resource as the console describes it;
# a waiter that runs out of time raises ``wait_failed(...)`` (a ProvisioningError).
Waiter = Callable[[Any, str, set[str], float], dict[str, Any]]
ClientFactory = Callable[[PooledAccount], Any]


@dataclass(frozen=True)
class ConsoleBinding:
    """How one console's templates reach it; its backend attaches this to its ``TemplateLibrary``.

    ``client_factory`` makes the provisioner's client for an account (the engine's default);
    ``waiter`` is the default waiter (None: templates of this console cannot wait); ``gone`` are
    the client's errors meaning "the resource is already gone" (destroy tolerates them);
    ``inventory`` lists every resource an account holds, so validation can find what a template
    leaves behind (None: that check is not possible and validation says so).
    """

    client_factory: ClientFactory | None = None
    waiter: Waiter | None = None
    gone: tuple[type[BaseException], ...] = ()
    inventory: Callable[[Any], set[str]] | None = None


ATTRIBUTE_TYPES = ("str", "int", "bool", "list[str]")
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
}


def wait_failed(resource_id: str, statuses: set[str], reason: str) -> ProvisioningError:
    """What a waiter raises when time runs out (every console's waiter says it the same way)."""
    return ProvisioningError(f"{resource_id} did not become {'/'.join(sorted(statuses))}: {reason}")


@dataclass(frozen=True)
class Attribute:
    """One key attribute of a template: its type, default, allowed values and meaning.

    ``required`` attributes have no usable default; the engine fills those named in the template's
    ``depends`` with an implicit resource, and reports the others as missing. ``check`` validates
    a value beyond its type (raise ``ValueError`` with the reason) so a task's mistake is reported
    at planning time, before anything is created.
    """

    type: str = "str"
    default: Any = None
    choices: tuple[Any, ...] = ()
    description: str = ""
    required: bool = False
    check: Callable[[Any], None] | None = None

    def validate(self, value: Any) -> None:
        """Raise ``ValueError`` saying what is wrong with ``value``; references are checked later."""
        if is_reference(value):
            return
        if not _TYPE_CHECKS[self.type](value):
            raise ValueError(f"expected {self.type}, got {type(value).__name__} {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{value!r} is not one of {', '.join(map(str, self.choices))}")
        if self.check is not None and not has_reference(value):
            self.check(value)

    def describe(self) -> dict[str, Any]:
        return {"type": self.type, "default": self.default, "choices": list(self.choices),
                "description": self.description, "required": self.required}


def is_reference(value: Any) -> bool:
    return isinstance(value, str) and REF_PATTERN.search(value) is not None


def has_reference(value: Any) -> bool:
    """Whether a value holds a ``${name.output}`` anywhere (lists and dicts included)."""
    if isinstance(value, list):
        return any(has_reference(item) for item in value)
    if isinstance(value, dict):
        return any(has_reference(item) for item in value.values())
    return is_reference(value)


@dataclass
class TemplateContext:
    """What a template's create/verify/destroy may use: the console's provisioner client and a waiter.

    The client must act with the account's *provisioner* credentials so every write is audited with
    actor ``provisioner`` and never counts as the agent's work. ``waiter`` is pluggable because a
    console's client waits in real time: tests on a manual clock pass one that advances the clock.
    ``name_hint`` names resources whose task gave no name (deterministic, so snapshots compare).
    ``recorded`` collects ids as soon as they exist, so a create that fails half-way can be undone.
    """

    client: Any  # a ProvisioningClient
    region: str
    wait_timeout_s: float = 120.0
    waiter: Waiter | None = None
    name_hint: str = "meta"
    recorded: dict[str, Any] = field(default_factory=dict)

    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]:
        return self.client.call(product, action, **params)

    def wait(self, resource_id: str, status: str | set[str], timeout: float | None = None) -> dict[str, Any]:
        """Wait until the resource is in ``status`` (``"Deleted"`` = gone); a timeout is a ProvisioningError."""
        wanted = {status} if isinstance(status, str) else set(status)
        if self.waiter is None:
            raise ProvisioningError(f"cannot wait for {resource_id}: this console's templates have no waiter")
        return self.waiter(self.client, resource_id, wanted, timeout or self.wait_timeout_s)

    def record(self, **outputs: Any) -> None:
        self.recorded.update(outputs)

    def name(self, params: dict[str, Any], key: str = "name") -> str:
        return params.get(key) or self.name_hint


CreateFn = Callable[[TemplateContext, dict[str, Any]], dict[str, Any]]
VerifyFn = Callable[[TemplateContext, dict[str, Any], dict[str, Any]], None]
DestroyFn = Callable[[TemplateContext, dict[str, Any]], None]


@dataclass
class Template:
    """⟨description, key attributes, create, verify, destroy⟩ and the templates it depends on.

    ``depends`` maps a parameter to the template that supplies it when the task does not (the
    supplying template has an output of the same name: ``vswitch.vpc_id`` ← ``vpc.vpc_id``).
    ``verify`` raises ``ProvisioningError`` when the resource is missing or in the wrong state;
    ``destroy`` tolerates a resource that is already gone.
    """

    name: str
    description: str
    attributes: dict[str, Attribute]
    outputs: list[str]
    create: CreateFn
    verify: VerifyFn
    destroy: DestroyFn
    depends: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)

    def bind(self, params: dict[str, Any]) -> dict[str, Any]:
        """Parameters with defaults filled in, every value validated; errors name the field."""
        unknown = sorted(set(params) - set(self.attributes))
        if unknown:
            raise ProvisioningError(f"template {self.name!r} has no attribute {unknown[0]!r} "
                                    f"(attributes: {', '.join(self.attributes)})", template=self.name)
        bound: dict[str, Any] = {}
        for key, attribute in self.attributes.items():
            value = params.get(key)
            if value is None:
                if attribute.required:
                    raise ProvisioningError(f"template {self.name!r}: attribute {key!r} is required", template=self.name)
                bound[key] = list(attribute.default) if isinstance(attribute.default, list) else attribute.default
                continue
            try:
                attribute.validate(value)
            except ValueError as err:
                raise ProvisioningError(f"template {self.name!r}: attribute {key!r}: {err}", template=self.name) from None
            bound[key] = value
        return bound

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "keywords": list(self.keywords),
                "attributes": {k: a.describe() for k, a in self.attributes.items()},
                "outputs": list(self.outputs), "depends": dict(self.depends)}


class TemplateLibrary:
    """The registry of templates by name; checks that every ``depends`` can really be supplied.

    ``binding`` says how the templates reach their console (see :class:`ConsoleBinding`); a library
    without one can still be planned against (task validation), but not provisioned unless the engine
    is given a client factory.
    """

    def __init__(self, templates: list[Template] | tuple[Template, ...] = (), *,
                 binding: ConsoleBinding | None = None) -> None:
        self.binding = binding or ConsoleBinding()
        self._templates: dict[str, Template] = {}
        for template in templates:
            self.register(template)

    def register(self, template: Template) -> Template:
        if template.name in self._templates:
            raise ValueError(f"template {template.name!r} is registered twice")
        for key, attribute in template.attributes.items():
            if attribute.type not in ATTRIBUTE_TYPES:
                raise ValueError(f"template {template.name!r}: attribute {key!r} has unknown type {attribute.type!r}")
        for param in template.depends:
            if param not in template.attributes:
                raise ValueError(f"template {template.name!r}: depends names {param!r}, which is no attribute")
        self._templates[template.name] = template
        return template

    def check(self) -> None:
        """Every dependency names a registered template with an output of the parameter's name."""
        for template in self._templates.values():
            for param, supplier in template.depends.items():
                if supplier not in self._templates:
                    raise ValueError(f"template {template.name!r}: {param!r} depends on unknown template {supplier!r}")
                if param not in self._templates[supplier].outputs:
                    raise ValueError(f"template {template.name!r}: {supplier!r} has no output {param!r}")

    def get(self, name: str) -> Template:
        try:
            return self._templates[name]
        except KeyError:
            raise ProvisioningError(f"unknown template {name!r} (known: {', '.join(self.names())})", template=name) from None

    def names(self) -> list[str]:
        return list(self._templates)

    def __contains__(self, name: object) -> bool:
        return name in self._templates

    def __iter__(self) -> Iterator[Template]:
        return iter(self._templates.values())

    def __len__(self) -> int:
        return len(self._templates)

    def describe(self) -> list[dict[str, Any]]:
        """Every template as plain data: for prompts, docs and request matching."""
        return [template.describe() for template in self._templates.values()]

    def describe_text(self) -> str:
        """A compact listing for an LLM prompt: one block per template with attributes and outputs."""
        blocks = []
        for template in self._templates.values():
            lines = [f"{template.name}: {template.description}"]
            for key, attribute in template.attributes.items():
                default = "required" if attribute.required else f"default {attribute.default!r}"
                choices = f", one of {list(attribute.choices)}" if attribute.choices else ""
                supplied = f", else a new {template.depends[key]}" if key in template.depends else ""
                lines.append(f"  - {key} ({attribute.type}, {default}{choices}{supplied}): {attribute.description}")
            lines.append(f"  outputs: {', '.join(template.outputs)}")
            blocks.append("\n".join(lines))
        return "\n".join(blocks)
