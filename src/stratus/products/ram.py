"""RAM: policies and who has them (``CreatePolicy``, ``AttachPolicyToUser``...).

These actions go through the dispatcher like any other, so the root account may always call
them and a RAM user only if one of its policies allows ``ram:<Action>``. Note what that implies,
as on real clouds: a user allowed ``ram:AttachPolicyToUser`` can grant itself anything.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import delete, func, select

from stratus.api.authorization import system_policies
from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, ListRequest, action, page
from stratus.core.clock import format_time
from stratus.core.errors import ApiError, invalid_parameter
from stratus.core.identity import RamUser
from stratus.core.policies import CustomPolicy, PolicyAttachment, attach, attachments_of, custom_policy
from stratus.core.policy_language import PolicyError, parse_document

_POLICY_NAME = re.compile(r"^[A-Za-z0-9-]{1,128}$")


class PolicyNameRequest(ApiRequest):
    PolicyName: str = Field(min_length=1, max_length=128)


class TypedPolicyRequest(PolicyNameRequest):
    PolicyType: Literal["System", "Custom"]


class CreatePolicyRequest(PolicyNameRequest):
    PolicyDocument: str = Field(min_length=1)
    Description: str | None = Field(None, max_length=1024)


class UserPolicyRequest(TypedPolicyRequest):
    UserName: str = Field(min_length=1, max_length=64)


class ListPoliciesRequest(ListRequest):
    PolicyType: Literal["System", "Custom"] | None = None


class UserRequest(ApiRequest):
    UserName: str = Field(min_length=1, max_length=64)


def _user(ctx: CallContext, name: str) -> RamUser:
    user = ctx.db.execute(select(RamUser).where(RamUser.account_id == ctx.principal.account_id, RamUser.name == name)
                          ).scalar_one_or_none()
    if user is None:
        raise ApiError("EntityNotExist.User", f"The user {name!r} does not exist.", 404)
    return user


def _require_policy(ctx: CallContext, policy_type: str, name: str) -> dict[str, Any]:
    """The policy's public description, or ``EntityNotExist.Policy``."""
    if policy_type == "System":
        entry = system_policies().get(name)
        if entry is None:
            raise ApiError("EntityNotExist.Policy", f"The system policy {name!r} does not exist.", 404)
        return {"PolicyName": name, "PolicyType": "System", "Description": entry[0],
                "PolicyDocument": json.dumps(entry[1], separators=(",", ":")), "CreateDate": None}
    stored = custom_policy(ctx.db, ctx.principal.account_id, name)
    if stored is None:
        raise ApiError("EntityNotExist.Policy", f"The custom policy {name!r} does not exist.", 404)
    return {"PolicyName": stored.name, "PolicyType": "Custom", "Description": stored.description,
            "PolicyDocument": stored.document, "CreateDate": format_time(stored.created_at)}


def _attachment_count(ctx: CallContext, policy_type: str, name: str) -> int:
    return ctx.db.execute(select(func.count()).select_from(PolicyAttachment).where(
        PolicyAttachment.account_id == ctx.principal.account_id, PolicyAttachment.policy_type == policy_type,
        PolicyAttachment.policy_name == name)).scalar_one()


@action("ram", "CreatePolicy", rw="Write", request=CreatePolicyRequest)
def create_policy(ctx: CallContext, req: CreatePolicyRequest) -> dict[str, Any]:
    """Store a custom policy document (checked now, so a bad one is refused with its place named)."""
    if not _POLICY_NAME.match(req.PolicyName):
        raise invalid_parameter("PolicyName", "A policy name is 1-128 letters, digits or hyphens.")
    if req.PolicyName in system_policies() or custom_policy(ctx.db, ctx.principal.account_id, req.PolicyName):
        raise ApiError("EntityAlreadyExists.Policy", f"A policy named {req.PolicyName!r} already exists.", 409)
    try:
        parse_document(req.PolicyDocument)
    except PolicyError as exc:
        raise invalid_parameter("PolicyDocument", str(exc)) from None
    ctx.db.add(CustomPolicy(account_id=ctx.principal.account_id, name=req.PolicyName, description=req.Description or "",
                            document=req.PolicyDocument, created_at=ctx.now, updated_at=ctx.now))
    ctx.db.flush()
    return {"Policy": {"PolicyName": req.PolicyName, "PolicyType": "Custom", "Description": req.Description or "",
                       "CreateDate": format_time(ctx.now)}}


@action("ram", "GetPolicy", rw="Read", request=TypedPolicyRequest)
def get_policy(ctx: CallContext, req: TypedPolicyRequest) -> dict[str, Any]:
    """A policy with its document and how many users have it."""
    policy = _require_policy(ctx, req.PolicyType, req.PolicyName)
    policy["AttachmentCount"] = _attachment_count(ctx, req.PolicyType, req.PolicyName)
    return {"Policy": policy}


@action("ram", "DeletePolicy", rw="Write", request=PolicyNameRequest)
def delete_policy(ctx: CallContext, req: PolicyNameRequest) -> dict[str, Any]:
    """Delete a custom policy; refused while a user still has it (detach it first)."""
    stored = custom_policy(ctx.db, ctx.principal.account_id, req.PolicyName)
    if stored is None:
        raise ApiError("EntityNotExist.Policy", f"The custom policy {req.PolicyName!r} does not exist.", 404)
    if _attachment_count(ctx, "Custom", req.PolicyName):
        raise ApiError("DeleteConflict.Policy.User", f"The policy {req.PolicyName!r} is still attached to a user; "
                                                     "detach it first.", 409)
    ctx.db.delete(stored)
    return {}


@action("ram", "ListPolicies", rw="Read", request=ListPoliciesRequest)
def list_policies(ctx: CallContext, req: ListPoliciesRequest) -> dict[str, Any]:
    """System policies, then the account's custom policies, each with its attachment count."""
    items: list[dict[str, Any]] = []
    if req.PolicyType in (None, "System"):
        items += [{"PolicyName": name, "PolicyType": "System", "Description": description, "CreateDate": None}
                  for name, (description, _) in system_policies().items()]
    if req.PolicyType in (None, "Custom"):
        rows = ctx.db.execute(select(CustomPolicy).where(CustomPolicy.account_id == ctx.principal.account_id)
                              .order_by(CustomPolicy.name)).scalars()
        items += [{"PolicyName": p.name, "PolicyType": "Custom", "Description": p.description,
                   "CreateDate": format_time(p.created_at)} for p in rows]
    counts = dict(((t, n), c) for t, n, c in ctx.db.execute(
        select(PolicyAttachment.policy_type, PolicyAttachment.policy_name, func.count())
        .where(PolicyAttachment.account_id == ctx.principal.account_id)
        .group_by(PolicyAttachment.policy_type, PolicyAttachment.policy_name)))
    for item in items:
        item["AttachmentCount"] = counts.get((item["PolicyType"], item["PolicyName"]), 0)
    return page(items, req, "Policies")


@action("ram", "AttachPolicyToUser", rw="Write", request=UserPolicyRequest)
def attach_policy_to_user(ctx: CallContext, req: UserPolicyRequest) -> dict[str, Any]:
    """Give a RAM user a policy; it applies to the user's next call."""
    user = _user(ctx, req.UserName)
    _require_policy(ctx, req.PolicyType, req.PolicyName)
    if not attach(ctx.db, ctx.principal.account_id, user.id, req.PolicyType, req.PolicyName, ctx.now):
        raise ApiError("EntityAlreadyExists.User.Policy",
                       f"The user {req.UserName!r} already has the {req.PolicyType} policy {req.PolicyName!r}.", 409)
    return {}


@action("ram", "DetachPolicyFromUser", rw="Write", request=UserPolicyRequest)
def detach_policy_from_user(ctx: CallContext, req: UserPolicyRequest) -> dict[str, Any]:
    """Take a policy away from a RAM user."""
    user = _user(ctx, req.UserName)
    removed = ctx.db.execute(delete(PolicyAttachment).where(
        PolicyAttachment.account_id == ctx.principal.account_id, PolicyAttachment.user_id == user.id,
        PolicyAttachment.policy_type == req.PolicyType, PolicyAttachment.policy_name == req.PolicyName)).rowcount
    if not removed:
        raise ApiError("EntityNotExist.User.Policy",
                       f"The user {req.UserName!r} does not have the {req.PolicyType} policy {req.PolicyName!r}.", 404)
    return {}


@action("ram", "ListPoliciesForUser", rw="Read", request=UserRequest)
def list_policies_for_user(ctx: CallContext, req: UserRequest) -> dict[str, Any]:
    """The policies attached to one RAM user, in the order they were attached."""
    user = _user(ctx, req.UserName)
    policies = [{"PolicyName": a.policy_name, "PolicyType": a.policy_type, "AttachDate": format_time(a.attached_at)}
                for a in attachments_of(ctx.db, ctx.principal.account_id, user.id)]
    return {"Policies": policies}
