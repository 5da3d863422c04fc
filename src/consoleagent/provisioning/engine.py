"""The requirement engine: a task's ``requires:`` → a dependency graph → resources, and back.

``plan`` resolves ``${name.output}`` references, adds the implicit resources a template depends
on when the task does not supply them, and orders everything; ``provision`` creates and verifies
in that order and, when anything fails, destroys what it made before raising; ``destroy`` undoes
a provisioning in reverse order. Every call goes through the account's *provisioner* credentials, so
the audit-log reward never counts the set-up as the agent's work.

The engine knows no console: the provisioner's client, the default waiter and which errors mean
"already gone" come from the library's ``ConsoleBinding`` (set by the console's backend), or from
the ``client_factory`` and ``waiter`` given here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from consoleagent.placeholders import references, substitute
from consoleagent.provisioning.templates import ClientFactory, ConsoleBinding, TemplateContext, TemplateLibrary, Waiter
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement, ResourceReport

AUTO_PREFIX = "_auto_"
NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
Client = Any  # a templates.ProvisioningClient of the library's console


def _no_client(account: PooledAccount) -> Any:
    raise ProvisioningError("these templates name no client for their console (the library has no ConsoleBinding "
                            "client_factory): give the engine a client_factory", phase="lease")


# --- parsing ``requires:`` -----------------------------------------------------------------


def parse_requirements(data: Any, source: str = "<task>") -> list[Requirement]:
    """``requires:`` entries (``{name, template, params}``) → Requirements; errors name the entry and field."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ProvisioningError(f"{source}: requires must be a list, not {type(data).__name__}", phase="plan")
    out: list[Requirement] = []
    seen: set[str] = set()
    for index, entry in enumerate(data):
        where = f"{source}: requires[{index}]"
        if not isinstance(entry, dict):
            raise ProvisioningError(f"{where}: an entry must be a mapping with name, template and params", phase="plan")
        unknown = sorted(set(entry) - {"name", "template", "params"})
        if unknown:
            raise ProvisioningError(f"{where}: unknown field {unknown[0]!r} (fields: name, template, params)", phase="plan")
        name, template, params = entry.get("name"), entry.get("template"), entry.get("params", {})
        if not isinstance(template, str) or not template:
            raise ProvisioningError(f"{where}: field 'template' is required (a template name)", phase="plan")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise ProvisioningError(f"{where}: field 'name' must start with a letter and hold only letters, digits, "
                                    f"'_' and '-' (got {name!r})", phase="plan", template=template)
        if name in seen:
            raise ProvisioningError(f"{where}: field 'name': {name!r} is used twice", phase="plan", template=template)
        if params is None:
            params = {}
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise ProvisioningError(f"{where}: field 'params' must be a mapping of attribute names to values",
                                    phase="plan", template=template)
        seen.add(name)
        out.append(Requirement(name=name, template=template, params=dict(params)))
    return out


# --- plan ----------------------------------------------------------------------------------


@dataclass
class PlannedResource:
    """One resource to create: its name, template and (still referencing) parameters."""

    name: str
    template: str
    params: dict[str, Any]
    after: list[str] = field(default_factory=list)  # names this step needs created first
    implicit: bool = False
    origin: str = ""  # "requires[2]", or "implicit for web.vswitch_id"


class _Planner:
    """Builds the graph: explicit steps, then implicit suppliers found or made for each missing parameter."""

    def __init__(self, library: TemplateLibrary, requirements: list[Requirement]) -> None:
        self.library = library
        self.requirements = requirements
        self.steps: dict[str, PlannedResource] = {}
        self.order: list[str] = []  # insertion order: implicit steps go right before what needs them
        self.counters: dict[str, int] = {}

    def fail(self, step: PlannedResource, message: str) -> ProvisioningError:
        label = f"{step.origin} ({step.name!r}, template {step.template!r})"
        return ProvisioningError(f"{label}: {message}", template=step.template, phase="plan")

    def run(self) -> list[PlannedResource]:
        for index, req in enumerate(self.requirements):
            step = PlannedResource(req.name, req.template, dict(req.params), origin=f"requires[{index}]")
            if not NAME_PATTERN.match(req.name):
                raise self.fail(step, "field 'name' must start with a letter and hold only letters, digits, '_' and '-'")
            if req.name in self.steps:
                raise self.fail(step, f"field 'name': {req.name!r} is used twice")
            self.check_params(step)
            self.steps[req.name] = step
            self.order.append(req.name)
        for step in list(self.steps.values()):
            self.check_references(step)
        for name in list(self.order):
            self.fill_missing(self.steps[name])
        return self.sorted_steps()

    def check_params(self, step: PlannedResource) -> None:
        try:
            template = self.library.get(step.template)
        except ProvisioningError as err:
            raise self.fail(step, f"field 'template': {err}") from None
        for key, value in step.params.items():
            attribute = template.attributes.get(key)
            if attribute is None:
                raise self.fail(step, f"params.{key}: no such attribute (attributes: {', '.join(template.attributes)})")
            if value is None:
                continue
            try:
                attribute.validate(value)
            except ValueError as err:
                raise self.fail(step, f"params.{key}: {err}") from None

    def check_references(self, step: PlannedResource) -> None:
        for key, value in step.params.items():
            for name, output in references(value):
                target = self.steps.get(name)
                if target is None:
                    raise self.fail(step, f"params.{key}: ${{{name}.{output}}} names no requirement "
                                          f"(names: {', '.join(self.order)})")
                outputs = self.library.get(target.template).outputs
                if output not in outputs:
                    raise self.fail(step, f"params.{key}: ${{{name}.{output}}}: template {target.template!r} has no "
                                          f"output {output!r} (outputs: {', '.join(outputs)})")
                if name not in step.after:
                    step.after.append(name)

    def closure(self, names: list[str]) -> list[str]:
        """The names and everything they need, transitively (in a stable order)."""
        seen: list[str] = []
        stack = list(names)
        while stack:
            name = stack.pop(0)
            if name in seen or name not in self.steps:
                continue
            seen.append(name)
            stack.extend(self.steps[name].after)
        return seen

    def fill_missing(self, step: PlannedResource, context: list[str] | None = None) -> None:
        """Give every missing ``depends`` parameter a supplier; other required attributes must be given."""
        template = self.library.get(step.template)
        for key, attribute in template.attributes.items():
            if step.params.get(key) not in (None, "") or not attribute.required:
                continue
            supplier = template.depends.get(key)
            if supplier is None:
                raise self.fail(step, f"params.{key} is required")
            chosen = self.supplier_for(step, key, supplier, (context or []) + step.after)
            step.params[key] = f"${{{chosen}.{key}}}"
            step.after.append(chosen)

    def supplier_for(self, step: PlannedResource, key: str, template: str, context: list[str]) -> str:
        """The resource that supplies ``key``: the one of that template among what the step already uses,
        else the only one in the plan, else a new implicit one (``_auto_<template>_<n>``)."""
        near = [n for n in self.closure(context) if self.steps[n].template == template]
        if len(near) == 1:
            return near[0]
        if len(near) > 1:
            raise self.fail(step, f"params.{key} is not given and the resources it uses lead to {len(near)} "
                                  f"{template} resources ({', '.join(near)}); name one with ${{NAME.{key}}}")
        candidates = [n for n in self.order if self.steps[n].template == template and step.name not in self.closure([n])]
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise self.fail(step, f"params.{key} is not given and the plan has {len(candidates)} {template} "
                                  f"resources ({', '.join(candidates)}); name one with ${{NAME.{key}}}")
        self.counters[template] = self.counters.get(template, 0) + 1
        name = f"{AUTO_PREFIX}{template}_{self.counters[template]}"
        implicit = PlannedResource(name, template, {}, implicit=True, origin=f"implicit for {step.name}.{key}")
        self.steps[name] = implicit
        self.order.insert(self.order.index(step.name), name)
        self.fill_missing(implicit, context)
        return name

    def sorted_steps(self) -> list[PlannedResource]:
        """Topological order, ties broken by position (so the plan reads like the task)."""
        done: list[str] = []
        remaining = list(self.order)
        while remaining:
            ready = next((n for n in remaining if all(d in done for d in self.steps[n].after)), None)
            if ready is None:
                raise self.cycle_error(remaining)
            done.append(ready)
            remaining.remove(ready)
        return [self.steps[n] for n in done]

    def cycle_error(self, remaining: list[str]) -> ProvisioningError:
        path = [remaining[0]]
        while True:
            nxt = next(d for d in self.steps[path[-1]].after if d in remaining)
            if nxt in path:
                cycle = path[path.index(nxt):] + [nxt]
                break
            path.append(nxt)
        first = self.steps[cycle[0]]
        return self.fail(first, f"dependency cycle: {' -> '.join(cycle)} (each needs the next's outputs)")


# --- provisioned resources -----------------------------------------------------------------


@dataclass
class ProvisionedResource:
    name: str
    template: str
    params: dict[str, Any]
    outputs: dict[str, Any]
    implicit: bool = False


@dataclass
class Provisioned:
    """What ``provision`` made, in creation order; enough to destroy it later, even in another process."""

    account: PooledAccount
    resources: list[ProvisionedResource] = field(default_factory=list)

    @property
    def outputs(self) -> dict[str, dict[str, Any]]:
        return {r.name: dict(r.outputs) for r in self.resources}

    def report(self, source: str = "template", notes: str = "") -> ResourceReport:
        items = [{"name": r.name, "template": r.template, "outputs": dict(r.outputs)} for r in self.resources]
        return ResourceReport(resources=items, source=source, notes=notes)

    def to_dict(self) -> dict[str, Any]:
        return {"account": self.account.to_dict(),
                "resources": [{"name": r.name, "template": r.template, "params": r.params, "outputs": r.outputs,
                               "implicit": r.implicit} for r in self.resources]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Provisioned":
        return cls(PooledAccount.from_dict(data["account"]), [ProvisionedResource(**r) for r in data["resources"]])


# --- the engine ----------------------------------------------------------------------------


class ProvisioningEngine:
    """Plans, creates, verifies and destroys template resources in an account.

    Without ``client_factory`` and ``waiter`` it uses the library's ``ConsoleBinding`` (the console
    backend's own client and waiter); clients it makes itself, it closes.
    """

    def __init__(self, library: TemplateLibrary, client_factory: ClientFactory | None = None, *,
                 waiter: Waiter | None = None, wait_timeout_s: float = 120.0) -> None:
        binding = getattr(library, "binding", None) or ConsoleBinding()
        self.library = library
        self.client_factory = client_factory or binding.client_factory or _no_client
        self._owns_clients = client_factory is None  # clients it makes itself, it closes
        self.waiter = waiter or binding.waiter
        self.gone = binding.gone  # the client's "already gone" errors: destroy tolerates them
        self.wait_timeout_s = wait_timeout_s

    @contextmanager
    def client(self, account: PooledAccount) -> Iterator[Client]:
        """The provisioner client for an account (closed afterwards when the engine made it)."""
        client = self.client_factory(account)
        try:
            yield client
        finally:
            if self._owns_clients:
                client.close()

    def plan(self, requirements: list[Requirement]) -> list[PlannedResource]:
        """Check and order the requirements; implicit suppliers are added. Nothing is created."""
        return _Planner(self.library, requirements).run()

    def context(self, client: Client, name: str) -> TemplateContext:
        hint = "meta-" + name.strip("_").replace("_", "-")
        return TemplateContext(client, client.region, self.wait_timeout_s, self.waiter, hint)

    def provision(self, account: PooledAccount, requirements: list[Requirement]) -> Provisioned:
        """Create and verify every step in order; on a failure destroy what was made and raise."""
        steps = self.plan(requirements)
        with self.client(account) as client:
            return self._provision(steps, account, client)

    def _provision(self, steps: list[PlannedResource], account: PooledAccount, client: Client) -> Provisioned:
        done = Provisioned(account)
        for step in steps:
            template = self.library.get(step.template)
            ctx = self.context(client, step.name)
            phase = "create"
            try:
                params = template.bind(substitute(step.params, done.outputs))
                outputs = template.create(ctx, params)
                done.resources.append(ProvisionedResource(step.name, step.template, params, outputs, step.implicit))
                phase = "verify"
                template.verify(ctx, params, outputs)
            except Exception as err:  # any failure ends the same way: undo, then an env_error for the episode
                if phase == "create" and ctx.recorded:  # made, then failed: undo the half-made resource too
                    done.resources.append(ProvisionedResource(step.name, step.template, {}, dict(ctx.recorded), step.implicit))
                cleanup = self._destroy_all(done, client)
                notes = f"; clean-up failed: {'; '.join(cleanup)}" if cleanup else "; what was created is destroyed"
                raise ProvisioningError(f"{step.origin} ({step.name!r}, template {step.template!r}): {phase} failed: "
                                        f"{err}{notes}", template=step.template, phase=phase) from err
        return done

    def destroy(self, provisioned: Provisioned) -> None:
        """Destroy in reverse order; resources already gone are fine; every failure is reported together."""
        with self.client(provisioned.account) as client:
            errors = self._destroy_all(provisioned, client)
        if errors:
            raise ProvisioningError("destroy failed: " + "; ".join(errors), phase="destroy",
                                    template=provisioned.resources[-1].template)

    def _destroy_all(self, provisioned: Provisioned, client: Client) -> list[str]:
        errors: list[str] = []
        for resource in reversed(list(provisioned.resources)):
            template = self.library.get(resource.template)
            try:
                template.destroy(self.context(client, resource.name), resource.outputs)
            except self.gone:
                pass
            except Exception as err:  # keep going: one stuck resource must not strand the others
                errors.append(f"{resource.template} {resource.name!r}: {err}")
                continue
            provisioned.resources.remove(resource)
        return errors
