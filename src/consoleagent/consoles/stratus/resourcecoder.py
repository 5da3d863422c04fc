"""ResourceCoder: provisioning on demand in stratus, when the agent calls ``request_resource("...")``.

It belongs to the stratus backend: its scripts are stratus SDK scripts, checked through stratus's
API. The template path is the generic engine over the stratus library.

Two ways, in order. First the request is matched to Resource META templates (``RequestMatcher``:
offline, deterministic) and the template engine creates and verifies the resources. When no
template matches, or the templates failed, and a script writer (an LLM) is configured, the writer
gets the request and an SDK reference, writes a Python script, and the script runs in the
OS sandbox (``sandbox.py``: bubblewrap, uid 65534, no network but the console's API) with the
account's provisioner key; its error goes back to the writer, which repairs the script, at most
``max_attempts`` times. The script is hostile by default: what it reports is a claim, and an attempt
succeeds only when the run was clean (exit 0, no refusal on record) and the console's API, asked
by this process with its own client, confirms every resource id the script named (at least one).
Only those verified ids reach the report. A script that worked is saved as a candidate template
(the reference system's data flywheel: reviewed candidates become META templates). Without a
working sandbox no generated code runs at all; the template path needs no sandbox.

Whatever fails ends as a ``ProvisioningError``; ``as_env_provisioner`` turns it into the
environment fault that ends the episode as ``env_error``: a missing resource is the environment's
failure, never the agent's.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import time
from pathlib import Path
from typing import Any, Callable

from stratus.sdk import Client, NotFoundError, StratusError

from consoleagent.consoles.stratus.provisioning import provisioner_client
from consoleagent.consoles.stratus.sandbox import Sandbox, SandboxUnavailable
from consoleagent.consoles.stratus.script_writer import Attempt, LLMScriptWriter, ScriptWriter
from consoleagent.env.faults import EnvironmentFault
from consoleagent.provisioning.request_matcher import RequestMatcher
from consoleagent.provisioning.types import PooledAccount, ProvisioningError, Requirement, ResourceReport

__all__ = ["Attempt", "LLMScriptWriter", "ResourceCoder", "ScriptWriter"]

RESOURCE_ID = re.compile(r"^[a-z]{1,5}-[a-z0-9]{6,40}$")  # vpc-…, vsw-…, sg-…, i-…, d-…, eip-…, ngw-…
OUTPUT_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
MAX_VERIFIED_IDS = 50  # resource ids looked up per attempt (a hostile script could name thousands)
REFERENCE_LIMIT = 14_000  # characters of SDK reference given to the writer
SDK_USAGE = """\
SDK usage (the sandbox's `client` is a stratus.sdk.Client):
    vpc = client.call("vpc", "CreateVpc", VpcName="demo", CidrBlock="192.168.0.0/16")
    client.wait_for(vpc["VpcId"], "Available")
    outputs["vpc_id"] = vpc["VpcId"]
Errors are StratusError subclasses (from stratus.sdk import StratusError, NotFoundError, ...) whose
message names the parameter at fault, e.g. "MissingParameter: The input parameter VpcId ...".
Parameters are the console API's (CamelCase); RegionId defaults to the client's region.
In the template code below, `ctx.call(...)` is `client.call(...)`, `ctx.wait(id, status)` is
`client.wait_for(id, status)`, and `p[...]` are the template's attributes."""


class ResourceCoder:
    """Provision what a request describes in one account: templates first, then generated scripts."""

    def __init__(self, library: Any, engine: Any | None, *, writer: ScriptWriter | None = None, sandbox: Sandbox,
                 max_attempts: int = 3, candidates_dir: str | Path | None = None,
                 client_factory: Callable[[PooledAccount], Client] | None = None) -> None:
        self.library = library
        self.engine = engine
        self.writer = writer
        self.sandbox = sandbox
        self.max_attempts = max_attempts
        self.candidates_dir = Path(candidates_dir) if candidates_dir else None
        self.client_factory = client_factory or getattr(engine, "client_factory", None) or provisioner_client
        self.matcher = RequestMatcher(library)
        self.provisioned: list[Any] = []  # what the template path made (the engine can destroy it)
        self.attempts: list[Attempt] = []  # the script path's attempts for the last request
        self.saved: list[Path] = []  # candidate templates written

    # --- the two ways ---------------------------------------------------------------------------
    def match(self, description: str, *, region: str = "cn-hangzhou") -> list[Requirement] | None:
        """The templates a request asks for, or None (deterministic, offline)."""
        return self.matcher.match(description, region=region)

    def provision(self, account: PooledAccount, description: str) -> ResourceReport:
        """Provision ``description`` in ``account``; raises ProvisioningError when nothing worked."""
        region = account.extra.get("region", "cn-hangzhou")
        requirements = self.match(description, region=region)
        template_error: ProvisioningError | None = None
        if requirements and self.engine is not None:
            try:
                return self._by_templates(account, description, requirements)
            except ProvisioningError as err:
                template_error = err
        if self.writer is not None:
            return self._by_script(account, description, template_error)
        if template_error is not None:
            raise ProvisioningError(f"the templates for {description!r} failed: {template_error}",
                                    template=template_error.template, phase=template_error.phase) from template_error
        raise ProvisioningError(f"no Resource META template matches {description!r} and no script writer is configured "
                                f"(templates: {', '.join(self.library.names())})", phase="script")

    def _by_templates(self, account: PooledAccount, description: str, requirements: list[Requirement]) -> ResourceReport:
        provisioned = self.engine.provision(account, requirements)
        self.provisioned.append(provisioned)
        plan = ", ".join(f"{r.name}={r.template}" for r in requirements)
        report = provisioned.report()
        report.source = "resourcecoder-template"
        report.notes = f"Provisioned for the request {description!r} from templates ({plan})."
        return report

    def _by_script(self, account: PooledAccount, description: str, template_error: ProvisioningError | None) -> ResourceReport:
        assert self.writer is not None
        try:
            self.sandbox.ensure_available()
        except SandboxUnavailable as err:
            raise ProvisioningError(f"generated provisioning scripts need the OS sandbox: {err}", phase="script") from err
        sandbox = self.sandbox.with_console(account.console)
        env = _sandbox_env(account)
        reference = self.sdk_reference(description)
        client = self.client_factory(account)
        try:
            return self._repair_loop(description, sandbox, env, reference, client, template_error)
        finally:
            client.close()

    def _repair_loop(self, description: str, sandbox: Sandbox, env: dict[str, str], reference: str, client: Client,
                     template_error: ProvisioningError | None) -> ResourceReport:
        """Write, run, verify; on failure show the writer what went wrong and try again."""
        assert self.writer is not None
        self.attempts = []
        for _ in range(self.max_attempts):
            try:
                script = self.writer.write(description, reference, list(self.attempts))
            except Exception as exc:  # the model endpoint failed: an environment problem like any other
                raise ProvisioningError(f"the script writer failed: {exc}", phase="script") from exc
            try:
                result = sandbox.run(script, env)
            except SandboxUnavailable as err:
                raise ProvisioningError(f"generated provisioning scripts need the OS sandbox: {err}", phase="script") from err
            verified, error = ({}, result.error or "the script failed") if not result.ok else self._verify(client, result.outputs)
            self.attempts.append(Attempt(script, error, result.stdout, result.stderr))
            if error is None:
                saved = self._save_candidate(description, script, verified)
                return self._script_report(description, verified, template_error, saved)
        last = self.attempts[-1].error if self.attempts else "no attempt was made"
        prefix = f"the templates failed ({template_error}); then " if template_error else ""
        raise ProvisioningError(f"{prefix}ResourceCoder could not provision {description!r} in {len(self.attempts)} "
                                f"script attempt(s); last error: {last}", phase="script")

    # --- pieces ---------------------------------------------------------------------------------
    def sdk_reference(self, description: str) -> str:
        """What the writer is told about the SDK: usage, the library's resources, and working template code
        for the resources the request seems to name (all of them when it names none)."""
        listing = self.library.describe_text() if hasattr(self.library, "describe_text") else str(self.library.describe())
        named = [r.template for r in (self.match(description) or [])]
        chosen = [n for n in self.library.names() if n in named] or list(self.library.names())
        examples = []
        for name in chosen:
            create = getattr(self.library.get(name), "create", None)
            try:
                examples.append(f"# template {name}\n{inspect.getsource(create)}" if create else "")
            except (OSError, TypeError):
                continue
        text = f"{SDK_USAGE}\n\nResources (Resource META templates):\n{listing}\n\nWorking create code:\n" + \
            "\n".join(e for e in examples if e)
        return text[:REFERENCE_LIMIT]

    def _verify(self, client: Client, outputs: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """The outputs naming resources that the console's API confirms in the account, or why not (shown
        to the writer). The script's outputs are claims: only ids this process looked up are kept."""
        claimed = claimed_ids(outputs)
        if not claimed:
            return {}, ("the script finished but named no resource: put the created resources' ids in `outputs` "
                        "(e.g. outputs['vpc_id'] = vpc['VpcId'])")
        if sum(len(ids) for ids in claimed.values()) > MAX_VERIFIED_IDS:
            return {}, f"the script named more than {MAX_VERIFIED_IDS} resource ids in `outputs`"
        for key, ids in claimed.items():
            for item in ids:
                try:
                    found = client.get_resource(item)
                except NotFoundError:
                    return {}, f"verification failed: outputs[{key!r}] = {item!r}, but no such resource exists in the account"
                except StratusError as err:
                    return {}, f"verification of outputs[{key!r}] = {item!r} failed: {err}"
                if found.get("ResourceId") != item:
                    return {}, f"verification failed: the console describes {found.get('ResourceId')!r} for outputs[{key!r}]"
        return {key: ids if isinstance(outputs[key], list) else ids[0] for key, ids in claimed.items()}, None

    def _save_candidate(self, description: str, script: str, outputs: dict[str, Any]) -> Path | None:
        """Keep a script that worked as a candidate template, with a header saying what it makes."""
        if self.candidates_dir is None:
            return None
        self.candidates_dir.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^a-z0-9]+", "-", description.lower()).strip("-")[:48] or "resource"
        digest = hashlib.sha256(script.encode()).hexdigest()[:8]
        path = self.candidates_dir / f"{slug}-{digest}.py"
        header = ["# ResourceCoder candidate template (generated; review before adding it to the META library)",
                  f"# description: {' '.join(description.split())}",
                  f"# outputs: {', '.join(sorted(outputs))}",
                  f"# created: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
                  f"# attempts: {len(self.attempts)}",
                  "# contract: globals `client` (stratus.sdk.Client, provisioner key), `params` (dict); results in `outputs`"]
        path.write_text("\n".join(header) + "\n\n" + script.rstrip() + "\n", encoding="utf-8")
        self.saved.append(path)
        return path

    def _script_report(self, description: str, verified: dict[str, Any], template_error: ProvisioningError | None,
                       saved: Path | None) -> ResourceReport:
        notes = f"Provisioned for the request {description!r} by a generated script ({len(self.attempts)} attempt(s))."
        if template_error is not None:
            notes += f" The matching templates had failed: {template_error}"
        report = ResourceReport(resources=[{"name": "requested", "template": "script", "outputs": dict(verified)}],
                                source="resourcecoder-script", notes=notes)
        if saved is not None:
            report.resources[0]["candidate"] = str(saved)
        return report

    # --- the environment's view -----------------------------------------------------------------
    def as_env_provisioner(self, account: PooledAccount) -> Callable[[str], str]:
        """What ``ConsoleEnv(provisioner=...)`` takes: description → the report's text; a failure is an
        ``EnvironmentFault``, so the episode ends as ``env_error``."""

        def provisioner(description: str) -> str:
            try:
                report = self.provision(account, description)
            except ProvisioningError as err:
                raise EnvironmentFault(f"provisioning failed ({err.phase or 'unknown phase'}): {err}") from err
            except Exception as exc:  # the console or the sandbox broke: still the environment's failure
                raise EnvironmentFault(f"provisioning failed: {type(exc).__name__}: {exc}") from exc
            return f"Resources provisioned for {description!r}:\n{report.text()}"

        return provisioner


def claimed_ids(outputs: Any) -> dict[str, list[str]]:
    """The resource ids a script's outputs name, by output key: a string id or a list of them under a
    plain identifier key. Anything else (numbers, notes, odd keys, nested data) is not a claim."""
    if not isinstance(outputs, dict):
        return {}
    claimed: dict[str, list[str]] = {}
    for key, value in outputs.items():
        if not (isinstance(key, str) and OUTPUT_KEY.match(key)):
            continue
        items = value if isinstance(value, list) else [value]
        ids = [item for item in items if isinstance(item, str) and RESOURCE_ID.match(item)]
        if ids and len(ids) == len(items):
            claimed[key] = ids
    return claimed


def _sandbox_env(account: PooledAccount) -> dict[str, str]:
    """The script's client settings: the console's API with the account's provisioner key."""
    if not account.provisioner_key:
        raise ProvisioningError(f"account {account.account_id} has no provisioner key", phase="script")
    key_id, secret = account.provisioner_key
    return {"STRATUS_ENDPOINT": account.console, "STRATUS_ACCESS_KEY_ID": key_id, "STRATUS_ACCESS_KEY_SECRET": secret,
            "STRATUS_REGION": str(account.extra.get("region", "cn-hangzhou"))}
