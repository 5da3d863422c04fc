"""Who may call what: RAM policy checks for every call, made in the one dispatcher.

The root account principal may do everything in its account. A RAM user may do only what the
policies attached to it allow (deny by default, explicit Deny wins, see
``stratus.core.policy_language``). Because ``dispatch.invoke`` calls ``authorize`` before it
validates or runs anything, the rule holds for the SDK, the console's JSON calls and the
console's own page reads alike, and a denial is audited like any other failed call.

What a call acts on is named by ARNs ``acs:<product>:<region>:<account>:<type>/<id>``, one per
resource id in its parameters (``VpcId``, ``InstanceIds``...); a call that names no resource
(creates, lists) acts on ``acs:<product>:<region>:<account>:*``. RAM is global: its users and
policies are ``acs:ram::<account>:user/<name>`` and ``acs:ram::<account>:policy/<name>``, and a RAM
call naming neither acts on ``acs:ram::<account>:*``.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from stratus.api.registry import ACTIONS, ApiAction
from stratus.core.clock import format_time
from stratus.core.errors import ApiError
from stratus.core.policies import attachments_of, custom_policy
from stratus.core.policy_language import NamedPolicy, PolicyError, Request, document_from, evaluate, parse_document
from stratus.core.resources import ResourceType, type_for_id

if TYPE_CHECKING:
    from stratus.api.context import CallContext

log = logging.getLogger("stratus.api")

PRODUCT_NAMES = {"ecs": "ECS", "vpc": "VPC", "actiontrail": "ActionTrail", "resourcecenter": "ResourceCenter", "ram": "RAM"}
MAX_RESOURCES = 200  # distinct resource ids one call may name before it is refused outright


def product_name(product: str) -> str:
    return PRODUCT_NAMES.get(product, product.upper())


# --- system policies ----------------------------------------------------------------------


def _allow(actions: list[str]) -> dict[str, Any]:
    return {"Version": "1", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}


def _read_actions(product: str | None = None) -> list[str]:
    return sorted(f"{p}:{name}" for (p, name), spec in ACTIONS.items() if spec.rw == "Read" and product in (None, p))


@lru_cache(maxsize=1)
def system_policies() -> dict[str, tuple[str, dict[str, Any]]]:
    """name -> (description, document). Built from the action registry, so a new Read action is
    in ReadOnlyAccess the moment it is registered. Cached: the registry is complete once
    ``stratus.products`` has been imported, which happens before any call is served."""
    policies: dict[str, tuple[str, dict[str, Any]]] = {
        "AdministratorAccess": ("Full access to every product and to RAM.", _allow(["*"])),
        "ReadOnlyAccess": ("Read-only access (every Read action) to every product.", _allow(_read_actions())),
    }
    for product in sorted({p for p, _ in ACTIONS}):
        name = product_name(product)
        policies[f"{name}FullAccess"] = (f"Full access to {name}.", _allow([f"{product}:*"]))
        policies[f"{name}ReadOnlyAccess"] = (f"Read-only access to {name}.", _allow(_read_actions(product)))
    return policies


@lru_cache(maxsize=64)
def _system_named(name: str) -> NamedPolicy | None:
    entry = system_policies().get(name)
    return NamedPolicy("System", name, document_from(entry[1])) if entry else None


# --- what a call acts on ------------------------------------------------------------------


def arn_type(resource_type: ResourceType) -> str:
    """``ACS::VPC::VSwitch`` -> ``vswitch``, as Alibaba Cloud writes resource types in ARNs."""
    return resource_type.type_name.rsplit("::", 1)[-1].lower()


def _ids_in(value: Any) -> list[str]:
    """Resource ids in one ``...Id``/``...Ids`` parameter: a string, a list, or a JSON list in a string."""
    if isinstance(value, str) and value.startswith("[") and len(value) <= 100_000:
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def request_resources(product: str, region: str, account_id: str, params: dict[str, Any]) -> tuple[str, ...]:
    arns: list[str] = []
    for key, value in params.items():
        if product == "ram" and key in ("UserName", "PolicyName") and isinstance(value, str):
            arns.append(f"acs:ram::{account_id}:{key[:-4].lower()}/{value}")
        elif key.endswith(("Id", "Ids")):
            for resource_id in _ids_in(value):
                resource_type = type_for_id(resource_id)
                if resource_type is not None:
                    arns.append(f"acs:{resource_type.product}:{region}:{account_id}:{arn_type(resource_type)}/{resource_id}")
    distinct = tuple(dict.fromkeys(arns))
    if len(distinct) > MAX_RESOURCES:
        raise ApiError("Forbidden.RAM", f"A call of a RAM user may name at most {MAX_RESOURCES} resources.", 403)
    if distinct:
        return distinct
    return (f"acs:ram::{account_id}:*",) if product == "ram" else (f"acs:{product}:{region}:{account_id}:*",)


# --- the check ----------------------------------------------------------------------------


def user_policies(ctx: "CallContext") -> list[NamedPolicy]:
    """The policies attached to the calling RAM user, system ones resolved by name."""
    principal = ctx.principal
    assert principal.user_id is not None
    out: list[NamedPolicy] = []
    for attachment in attachments_of(ctx.db, principal.account_id, principal.user_id):
        if attachment.policy_type == "System":
            named = _system_named(attachment.policy_name)
        else:
            stored = custom_policy(ctx.db, principal.account_id, attachment.policy_name)
            named = _custom_named(stored.name, stored.document) if stored else None
        if named is not None:
            out.append(named)
    return out


def _custom_named(name: str, text: str) -> NamedPolicy | None:
    try:
        return NamedPolicy("Custom", name, parse_document(text))
    except PolicyError:  # documents are checked when stored; a bad one grants nothing
        log.error("stored custom policy %s does not parse; ignored", name)
        return None


def authorize(ctx: "CallContext", spec: ApiAction, params: dict[str, Any], source_ip: str) -> None:
    """Raise ``Forbidden.RAM`` unless the caller may run ``spec`` with these parameters.

    The message says which policy and statement decided (or that none allowed it), so the
    denial's audit record and the caller both learn why, without revealing anything outside
    the caller's own account."""
    principal = ctx.principal
    if principal.user_id is None:  # the root account
        return
    action = f"{spec.product}:{spec.name}"
    request = Request(
        action=action,
        resources=request_resources(spec.product, ctx.region, principal.account_id, params),
        context={"acs:sourceip": source_ip, "acs:currentregion": ctx.region, "acs:currenttime": format_time(ctx.now),
                 "stratus:actor": principal.actor},
    )
    decision = evaluate(user_policies(ctx), request)
    if not decision.allowed:
        raise ApiError("Forbidden.RAM", f"The RAM user {principal.user_name} is not authorized to perform {action} on "
                                        f"{decision.resource}: {decision.describe()}.", 403)
