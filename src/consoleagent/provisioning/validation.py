"""Template validation: create, verify and destroy each template in a scratch account.

A template that provisions fine but leaves something behind would leak into the next episode of
the account, so validation also compares the account's inventory before and after (the
inventory of the library's ``ConsoleBinding``; a console without one gets its templates created,
verified and destroyed, and the result says the leak check was not possible). Wired into the CLI
as ``consoleagent templates validate``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from consoleagent.provisioning.engine import ClientFactory, ProvisioningEngine
from consoleagent.provisioning.templates import TemplateLibrary, Waiter
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement


@dataclass
class ValidationResult:
    name: str
    ok: bool
    seconds: float
    error: str = ""
    leaks_checked: bool = True  # False: the console has no inventory, what destroy left was not compared


def validate_template(engine: ProvisioningEngine, account: PooledAccount, name: str) -> ValidationResult:
    """One template with its implicit dependencies: provision, destroy, then nothing new may remain."""
    inventory = engine.library.binding.inventory
    started = time.monotonic()
    try:
        before: set[str] = set()
        if inventory is not None:
            with engine.client(account) as client:
                before = inventory(client)
        provisioned = engine.provision(account, [Requirement(name="subject", template=name)])
        engine.destroy(provisioned)
        if inventory is not None:
            with engine.client(account) as client:
                left = sorted(inventory(client) - before)
            if left:
                raise ProvisioningError(f"left behind after destroy: {', '.join(left)}", template=name, phase="destroy")
    except Exception as err:  # a report, not a crash: the next template is still validated
        return ValidationResult(name, False, round(time.monotonic() - started, 3), f"{type(err).__name__}: {err}",
                                inventory is not None)
    return ValidationResult(name, True, round(time.monotonic() - started, 3), leaks_checked=inventory is not None)


def validate_library(library: TemplateLibrary, account: PooledAccount, *, names: list[str] | None = None,
                     client_factory: ClientFactory | None = None, waiter: Waiter | None = None,
                     wait_timeout_s: float = 120.0) -> list[ValidationResult]:
    """Create, verify and destroy each template (all, or ``names``) in a scratch account, one at a time."""
    engine = ProvisioningEngine(library, client_factory, waiter=waiter, wait_timeout_s=wait_timeout_s)
    chosen = names if names is not None else library.names()
    for name in chosen:
        library.get(name)  # unknown names fail before anything is created
    return [validate_template(engine, account, name) for name in chosen]
