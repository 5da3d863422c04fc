"""ECS security groups: virtual firewalls of a VPC, their ingress/egress rules, and membership.

A new group has no rules. As on the real cloud, a basic (``normal``) group then denies all
inbound traffic and implicitly accepts all outbound traffic, and its members reach each other
(``InnerAccessPolicy: Accept``); an ``enterprise`` group denies everything not explicitly
allowed, members included. Rules are explicit rows; the implicit defaults are reported by
``DescribeSecurityGroupAttribute`` as ``InnerAccessPolicy`` and ``DefaultEgressPolicy``.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal

from pydantic import Field
from sqlalchemy import func, or_, select

from stratus.api.context import CallContext
from stratus.api.registry import ApiRequest, CreateRequest, ListRequest, action
from stratus.core.clock import format_time
from stratus.core.dependencies import ensure_no_dependents, register_dependents
from stratus.core.errors import dependency_violation, incorrect_status, invalid_parameter, not_found
from stratus.products.ecs.params import check_description, check_name, id_list, tags_view
from stratus.products.ecs.models import (
    SECURITY_GROUP_RULE_TYPE,
    SECURITY_GROUP_TYPE,
    Instance,
    InstanceSecurityGroup,
    SecurityGroup,
    SecurityGroupRule,
)
from stratus.products.vpc.models import Vpc

PROTOCOLS = ("TCP", "UDP", "ICMP", "GRE", "ALL")
PORTLESS = ("ICMP", "GRE", "ALL")
MAX_GROUPS_PER_INSTANCE = 5
Direction = Literal["ingress", "egress"]


def get_security_group(ctx: CallContext, security_group_id: str) -> SecurityGroup:
    """The caller's security group in this region, or ``NotFound``."""
    return ctx.get(SecurityGroup, security_group_id)


# --- who depends on what ------------------------------------------------------------------


def _instances_in_group(ctx: CallContext, security_group_id: str) -> list[str]:
    stmt = ctx.scoped(InstanceSecurityGroup, regional=False).where(
        InstanceSecurityGroup.security_group_id == security_group_id)
    return sorted(row.instance_id for row in ctx.db.execute(stmt).scalars())


def _instance_dependents(ctx: CallContext, security_group_id: str) -> list[tuple[str, str]]:
    return [("instance", instance_id) for instance_id in _instances_in_group(ctx, security_group_id)]


def _vpc_dependents(ctx: CallContext, vpc_id: str) -> list[tuple[str, str]]:
    stmt = ctx.scoped(SecurityGroup, regional=False).where(SecurityGroup.vpc_id == vpc_id).order_by(SecurityGroup.id)
    return [("security group", group.id) for group in ctx.db.execute(stmt).scalars()]


register_dependents(SECURITY_GROUP_TYPE.type_name, _instance_dependents)
register_dependents("ACS::VPC::VPC", _vpc_dependents)


def _referencing_groups(ctx: CallContext, security_group_id: str) -> list[str]:
    stmt = ctx.scoped(SecurityGroupRule).where(SecurityGroupRule.peer_group_id == security_group_id,
                                               SecurityGroupRule.security_group_id != security_group_id)
    return sorted({rule.security_group_id for rule in ctx.db.execute(stmt).scalars()})


# --- views ---------------------------------------------------------------------------------


def _rule_count(ctx: CallContext, group_id: str) -> int:
    return ctx.count(SecurityGroupRule, SecurityGroupRule.security_group_id == group_id)


def group_view(ctx: CallContext, group: SecurityGroup) -> dict[str, Any]:
    return {
        "SecurityGroupId": group.id, "SecurityGroupName": group.name, "Description": group.description,
        "VpcId": group.vpc_id, "SecurityGroupType": group.group_type, "RegionId": group.region_id,
        "InstanceCount": len(_instances_in_group(ctx, group.id)), "RuleCount": _rule_count(ctx, group.id),
        "CreationTime": format_time(group.created_at),
        "Tags": tags_view(group.tags),
    }


def rule_view(rule: SecurityGroupRule) -> dict[str, Any]:
    ingress = rule.direction == "ingress"
    return {
        "SecurityGroupRuleId": rule.id, "Direction": rule.direction, "IpProtocol": rule.ip_protocol,
        "PortRange": rule.port_range, "Policy": rule.policy.capitalize(), "Priority": rule.priority,
        "Description": rule.description,
        "SourceCidrIp": (rule.cidr_ip or "") if ingress else "", "SourceGroupId": (rule.peer_group_id or "") if ingress else "",
        "DestCidrIp": "" if ingress else (rule.cidr_ip or ""), "DestGroupId": "" if ingress else (rule.peer_group_id or ""),
        "CreateTime": format_time(rule.created_at),
    }


# --- rule validation -----------------------------------------------------------------------


def check_protocol(value: str) -> str:
    protocol = value.upper()
    if protocol not in PROTOCOLS:
        raise invalid_parameter("IpProtocol", f"The protocol {value!r} is invalid; valid values: {', '.join(PROTOCOLS)}.")
    return protocol


def check_port_range(protocol: str, value: str | None) -> str:
    """TCP/UDP take ``start/end`` within 1-65535 with start <= end; ICMP, GRE and ALL take ``-1/-1``."""
    if protocol in PORTLESS:
        if value not in (None, "", "-1/-1"):
            raise invalid_parameter("PortRange", f"The port range {value!r} is invalid for protocol {protocol}: it must be -1/-1.")
        return "-1/-1"
    if not value:
        raise invalid_parameter("PortRange", f"A port range such as 22/22 is required for protocol {protocol}.")
    start_text, sep, end_text = value.partition("/")
    try:
        start, end = int(start_text), int(end_text)
    except ValueError:
        start = end = 0
    if not sep or not (1 <= start <= 65535 and 1 <= end <= 65535):
        raise invalid_parameter("PortRange", f"The port range {value!r} is invalid for protocol {protocol}: "
                                             "use start/end with ports from 1 to 65535, for example 22/22 or 8000/9000.")
    if start > end:
        raise invalid_parameter("PortRange", f"The port range {value!r} is invalid: the start port must not exceed the end port.")
    return f"{start}/{end}"


def check_cidr(field: str, value: str) -> str:
    try:
        return str(ipaddress.ip_network(value, strict=False))
    except ValueError:
        raise invalid_parameter(field, f"The {field} {value!r} is not a valid IPv4 or IPv6 CIDR block such as 0.0.0.0/0.") from None


def check_policy(value: str) -> str:
    policy = value.lower()
    if policy not in ("accept", "drop"):
        raise invalid_parameter("Policy", f"The policy {value!r} is invalid; valid values: accept, drop.")
    return policy


def _peer(ctx: CallContext, group: SecurityGroup, field: str, cidr: str | None, peer_group_id: str | None,
          cidr_field: str) -> tuple[str | None, str | None]:
    """The rule's authorization object: exactly one of a CIDR block or a group of the same VPC."""
    if cidr and peer_group_id:
        raise invalid_parameter(field, f"Specify either {cidr_field} or {field}, not both.")
    if not cidr and not peer_group_id:
        raise invalid_parameter(cidr_field, f"An authorization object is required: {cidr_field} or {field}.")
    if cidr:
        return check_cidr(cidr_field, cidr), None
    if group.group_type == "enterprise":
        raise invalid_parameter(field, "Enterprise security groups cannot authorize other security groups; use a CIDR block.")
    peer = ctx.db.get(SecurityGroup, peer_group_id)
    if peer is None or peer.account_id != ctx.principal.account_id or peer.region_id != ctx.region:
        raise not_found("security group", str(peer_group_id))
    if peer.vpc_id != group.vpc_id:
        raise invalid_parameter(field, f"The security group {peer.id} belongs to VPC {peer.vpc_id}, not to {group.vpc_id}; "
                                       "only groups of the same VPC can be authorized.")
    ctx.reference(SECURITY_GROUP_TYPE.type_name, peer.id)
    return None, peer.id


class RuleFields(ApiRequest):
    """What makes a rule: shared by authorize, revoke-by-fields and modify."""

    SecurityGroupId: str = Field(min_length=1)
    IpProtocol: str | None = None
    PortRange: str | None = None
    Policy: str = "accept"
    Priority: int = Field(1, ge=1, le=100)
    Description: str | None = Field(None, max_length=512)


class IngressFields(RuleFields):
    SourceCidrIp: str | None = None
    SourceGroupId: str | None = None


class EgressFields(RuleFields):
    DestCidrIp: str | None = None
    DestGroupId: str | None = None


def _rule_key(ctx: CallContext, group: SecurityGroup, direction: Direction, req: RuleFields) -> dict[str, Any]:
    if not req.IpProtocol:
        raise invalid_parameter("IpProtocol", "The parameter IpProtocol is required: TCP, UDP, ICMP, GRE or ALL.")
    protocol = check_protocol(req.IpProtocol)
    port_range = check_port_range(protocol, req.PortRange)
    if direction == "ingress":
        cidr, peer = _peer(ctx, group, "SourceGroupId", req.SourceCidrIp, req.SourceGroupId, "SourceCidrIp")  # type: ignore[attr-defined]
    else:
        cidr, peer = _peer(ctx, group, "DestGroupId", req.DestCidrIp, req.DestGroupId, "DestCidrIp")  # type: ignore[attr-defined]
    return {"direction": direction, "ip_protocol": protocol, "port_range": port_range, "cidr_ip": cidr,
            "peer_group_id": peer, "policy": check_policy(req.Policy)}


def _rules(ctx: CallContext, group_id: str, direction: str | None = None) -> list[SecurityGroupRule]:
    stmt = ctx.scoped(SecurityGroupRule).where(SecurityGroupRule.security_group_id == group_id)
    if direction:
        stmt = stmt.where(SecurityGroupRule.direction == direction)
    stmt = stmt.order_by(SecurityGroupRule.priority, SecurityGroupRule.created_at, SecurityGroupRule.id)
    return list(ctx.db.execute(stmt).scalars())


def _find_same(ctx: CallContext, group_id: str, key: dict[str, Any], exclude: str | None = None) -> SecurityGroupRule | None:
    for rule in _rules(ctx, group_id, key["direction"]):
        if rule.id != exclude and all(getattr(rule, k) == v for k, v in key.items()):
            return rule
    return None


def _authorize(ctx: CallContext, direction: Direction, req: RuleFields) -> dict[str, Any]:
    group = get_security_group(ctx, req.SecurityGroupId)
    key = _rule_key(ctx, group, direction, req)
    existing = _find_same(ctx, group.id, key)
    if existing is not None:
        raise invalid_parameter("Permission", f"The specified rule already exists in security group {group.id} "
                                              f"as {existing.id} (same protocol, port range, authorization object and policy).")
    ctx.check_quota("ecs.rules_per_security_group", _rule_count(ctx, group.id))
    rule = SecurityGroupRule(id=ctx.new_id("sgr"), account_id=ctx.principal.account_id, region_id=ctx.region,
                             security_group_id=group.id, priority=req.Priority, description=check_description(req.Description),
                             created_at=ctx.now, **key)
    ctx.db.add(rule)
    ctx.reference(SECURITY_GROUP_RULE_TYPE.type_name, rule.id)
    return {"SecurityGroupRuleId": rule.id}


class RevokeIngressRequest(IngressFields):
    SecurityGroupRuleId: list[str] | str | None = None


class RevokeEgressRequest(EgressFields):
    SecurityGroupRuleId: list[str] | str | None = None


def _revoke(ctx: CallContext, direction: Direction, req: RuleFields) -> dict[str, Any]:
    """By rule ids (``SecurityGroupRuleId``) or by the fields that define the rule."""
    group = get_security_group(ctx, req.SecurityGroupId)
    ids = id_list("SecurityGroupRuleId", req.SecurityGroupRuleId)  # type: ignore[attr-defined]
    if ids:
        rules = []
        for rule_id in ids:
            rule = ctx.get(SecurityGroupRule, rule_id)
            if rule.security_group_id != group.id or rule.direction != direction:
                raise not_found(f"{direction} rule of security group {group.id}", rule_id)
            rules.append(rule)
    else:
        rule = _find_same(ctx, group.id, _rule_key(ctx, group, direction, req))
        if rule is None:
            raise not_found("security group rule", f"{group.id} {direction} {req.IpProtocol} {req.PortRange}")
        rules = [rule]
    for rule in rules:
        ctx.reference(SECURITY_GROUP_RULE_TYPE.type_name, rule.id)
        ctx.db.delete(rule)
    return {}


class ModifyIngressRequest(IngressFields):
    SecurityGroupRuleId: str = Field(min_length=1)
    Policy: str | None = None  # type: ignore[assignment]
    Priority: int | None = Field(None, ge=1, le=100)  # type: ignore[assignment]


class ModifyEgressRequest(EgressFields):
    SecurityGroupRuleId: str = Field(min_length=1)
    Policy: str | None = None  # type: ignore[assignment]
    Priority: int | None = Field(None, ge=1, le=100)  # type: ignore[assignment]


def _modify(ctx: CallContext, direction: Direction, req: Any) -> dict[str, Any]:
    """Change a rule in place: unspecified fields keep their values."""
    group = get_security_group(ctx, req.SecurityGroupId)
    rule = ctx.get(SecurityGroupRule, req.SecurityGroupRuleId)
    if rule.security_group_id != group.id or rule.direction != direction:
        raise not_found(f"{direction} rule of security group {group.id}", req.SecurityGroupRuleId)
    merged = req.model_copy(update={
        "IpProtocol": req.IpProtocol or rule.ip_protocol,
        "PortRange": req.PortRange if req.PortRange is not None else (None if req.IpProtocol else rule.port_range),
        "Policy": req.Policy or rule.policy,
    })
    peer_fields = ("SourceCidrIp", "SourceGroupId") if direction == "ingress" else ("DestCidrIp", "DestGroupId")
    if not any(getattr(req, f) for f in peer_fields):
        merged = merged.model_copy(update={peer_fields[0]: rule.cidr_ip, peer_fields[1]: rule.peer_group_id})
    key = _rule_key(ctx, group, direction, merged)
    existing = _find_same(ctx, group.id, key, exclude=rule.id)
    if existing is not None:
        raise invalid_parameter("Permission", f"The modified rule would duplicate the existing rule {existing.id}.")
    for name, value in key.items():
        setattr(rule, name, value)
    if req.Priority is not None:
        rule.priority = req.Priority
    if req.Description is not None:
        rule.description = check_description(req.Description)
    return {}


# --- group actions -------------------------------------------------------------------------


class CreateSecurityGroupRequest(CreateRequest):
    VpcId: str = Field(min_length=1)
    SecurityGroupName: str | None = None
    Description: str | None = Field(None, max_length=256)
    SecurityGroupType: Literal["normal", "enterprise"] = "normal"


@action("ecs", "CreateSecurityGroup", rw="Write", request=CreateSecurityGroupRequest)
def create_security_group(ctx: CallContext, req: CreateSecurityGroupRequest) -> dict[str, Any]:
    """Create a security group in an Available VPC. It starts without rules."""
    vpc = ctx.get(Vpc, req.VpcId)
    if vpc.status != "Available":
        raise incorrect_status("VPC", vpc.id, vpc.status, "Available")
    name = check_name("SecurityGroupName", req.SecurityGroupName)
    ctx.check_quota("ecs.security_groups", ctx.count(SecurityGroup))
    group = SecurityGroup(id=ctx.new_id("sg"), account_id=ctx.principal.account_id, region_id=ctx.region, name=name,
                          description=check_description(req.Description), vpc_id=vpc.id, group_type=req.SecurityGroupType,
                          created_at=ctx.now)
    ctx.db.add(group)
    ctx.reference(SECURITY_GROUP_TYPE.type_name, group.id)
    return {"SecurityGroupId": group.id}


class DescribeSecurityGroupsRequest(ListRequest):
    VpcId: str | None = None
    SecurityGroupIds: list[str] | str | None = None
    SecurityGroupId: str | None = None
    SecurityGroupName: str | None = None
    SecurityGroupType: Literal["normal", "enterprise"] | None = None
    Keyword: str | None = Field(None, max_length=128)


@action("ecs", "DescribeSecurityGroups", rw="Read", request=DescribeSecurityGroupsRequest)
def describe_security_groups(ctx: CallContext, req: DescribeSecurityGroupsRequest) -> dict[str, Any]:
    """Security groups of this region with their instance and rule counts, filtered by VPC, ids, name or keyword."""
    stmt = ctx.scoped(SecurityGroup)
    ids = id_list("SecurityGroupIds", req.SecurityGroupIds)
    if ids is not None:
        stmt = stmt.where(SecurityGroup.id.in_(ids))
    if req.SecurityGroupId:
        stmt = stmt.where(SecurityGroup.id == req.SecurityGroupId)
    if req.VpcId:
        stmt = stmt.where(SecurityGroup.vpc_id == req.VpcId)
    if req.SecurityGroupName:
        stmt = stmt.where(SecurityGroup.name == req.SecurityGroupName)
    if req.SecurityGroupType:
        stmt = stmt.where(SecurityGroup.group_type == req.SecurityGroupType)
    if req.Keyword:
        stmt = stmt.where(or_(SecurityGroup.id.contains(req.Keyword), SecurityGroup.name.contains(req.Keyword)))
    total = ctx.db.execute(select(func.count()).select_from(stmt.subquery())).scalar_one()
    stmt = stmt.order_by(SecurityGroup.created_at.desc(), SecurityGroup.id)
    stmt = stmt.offset((req.PageNumber - 1) * req.PageSize).limit(req.PageSize)
    groups = [group_view(ctx, g) for g in ctx.db.execute(stmt).scalars()]
    return {"TotalCount": total, "PageNumber": req.PageNumber, "PageSize": req.PageSize, "SecurityGroups": groups}


class DescribeSecurityGroupAttributeRequest(ApiRequest):
    SecurityGroupId: str = Field(min_length=1)
    Direction: Literal["ingress", "egress", "all"] = "all"


@action("ecs", "DescribeSecurityGroupAttribute", rw="Read", request=DescribeSecurityGroupAttributeRequest)
def describe_security_group_attribute(ctx: CallContext, req: DescribeSecurityGroupAttributeRequest) -> dict[str, Any]:
    """A security group with its rules (ordered by priority), optionally of one direction."""
    group = get_security_group(ctx, req.SecurityGroupId)
    rules = _rules(ctx, group.id, None if req.Direction == "all" else req.Direction)
    enterprise = group.group_type == "enterprise"
    return {
        **group_view(ctx, group),
        "InnerAccessPolicy": "Drop" if enterprise else "Accept",
        "DefaultIngressPolicy": "Drop",
        "DefaultEgressPolicy": "Drop" if enterprise else "Accept",
        "Permissions": [rule_view(rule) for rule in rules],
    }


class ModifySecurityGroupAttributeRequest(ApiRequest):
    SecurityGroupId: str = Field(min_length=1)
    SecurityGroupName: str | None = None
    Description: str | None = Field(None, max_length=256)


@action("ecs", "ModifySecurityGroupAttribute", rw="Write", request=ModifySecurityGroupAttributeRequest)
def modify_security_group_attribute(ctx: CallContext, req: ModifySecurityGroupAttributeRequest) -> dict[str, Any]:
    """Rename a security group or change its description."""
    group = get_security_group(ctx, req.SecurityGroupId)
    if req.SecurityGroupName is not None:
        group.name = check_name("SecurityGroupName", req.SecurityGroupName)
    if req.Description is not None:
        group.description = check_description(req.Description)
    return {}


class DeleteSecurityGroupRequest(ApiRequest):
    SecurityGroupId: str = Field(min_length=1)


@action("ecs", "DeleteSecurityGroup", rw="Write", request=DeleteSecurityGroupRequest)
def delete_security_group(ctx: CallContext, req: DeleteSecurityGroupRequest) -> dict[str, Any]:
    """Delete a security group with its rules; not while instances use it or other groups' rules reference it."""
    group = get_security_group(ctx, req.SecurityGroupId)
    ensure_no_dependents(ctx, SECURITY_GROUP_TYPE.type_name, group.id, "security group")
    referencing = _referencing_groups(ctx, group.id)
    if referencing:
        raise dependency_violation(f"The security group {group.id} cannot be deleted while rules of these security groups "
                                   f"reference it: {', '.join(referencing)}.")
    for rule in _rules(ctx, group.id):
        ctx.db.delete(rule)
    ctx.db.flush()
    ctx.db.delete(group)
    return {}


# --- rule actions --------------------------------------------------------------------------


@action("ecs", "AuthorizeSecurityGroup", rw="Write", request=IngressFields)
def authorize_security_group(ctx: CallContext, req: IngressFields) -> dict[str, Any]:
    """Add an inbound rule: protocol, port range, source CIDR or group, policy and priority."""
    return _authorize(ctx, "ingress", req)


@action("ecs", "AuthorizeSecurityGroupEgress", rw="Write", request=EgressFields)
def authorize_security_group_egress(ctx: CallContext, req: EgressFields) -> dict[str, Any]:
    """Add an outbound rule: protocol, port range, destination CIDR or group, policy and priority."""
    return _authorize(ctx, "egress", req)


@action("ecs", "RevokeSecurityGroup", rw="Write", request=RevokeIngressRequest)
def revoke_security_group(ctx: CallContext, req: RevokeIngressRequest) -> dict[str, Any]:
    """Delete inbound rules, by rule id or by the fields that define the rule."""
    return _revoke(ctx, "ingress", req)


@action("ecs", "RevokeSecurityGroupEgress", rw="Write", request=RevokeEgressRequest)
def revoke_security_group_egress(ctx: CallContext, req: RevokeEgressRequest) -> dict[str, Any]:
    """Delete outbound rules, by rule id or by the fields that define the rule."""
    return _revoke(ctx, "egress", req)


@action("ecs", "ModifySecurityGroupRule", rw="Write", request=ModifyIngressRequest)
def modify_security_group_rule(ctx: CallContext, req: ModifyIngressRequest) -> dict[str, Any]:
    """Change an inbound rule identified by its SecurityGroupRuleId."""
    return _modify(ctx, "ingress", req)


@action("ecs", "ModifySecurityGroupEgressRule", rw="Write", request=ModifyEgressRequest)
def modify_security_group_egress_rule(ctx: CallContext, req: ModifyEgressRequest) -> dict[str, Any]:
    """Change an outbound rule identified by its SecurityGroupRuleId."""
    return _modify(ctx, "egress", req)


# --- membership ----------------------------------------------------------------------------


class MembershipRequest(ApiRequest):
    InstanceId: str = Field(min_length=1)
    SecurityGroupId: str = Field(min_length=1)


def _groups_of(ctx: CallContext, instance_id: str) -> list[InstanceSecurityGroup]:
    stmt = ctx.scoped(InstanceSecurityGroup, regional=False).where(InstanceSecurityGroup.instance_id == instance_id)
    return list(ctx.db.execute(stmt).scalars())


def _membership_target(ctx: CallContext, req: MembershipRequest) -> tuple[Instance, SecurityGroup]:
    instance = ctx.get(Instance, req.InstanceId)
    group = get_security_group(ctx, req.SecurityGroupId)
    if instance.status not in ("Running", "Stopped"):
        raise incorrect_status("instance", instance.id, instance.status, "Running or Stopped")
    return instance, group


@action("ecs", "JoinSecurityGroup", rw="Write", request=MembershipRequest)
def join_security_group(ctx: CallContext, req: MembershipRequest) -> dict[str, Any]:
    """Add an instance to a security group of its VPC (at most 5 groups, all of one type)."""
    instance, group = _membership_target(ctx, req)
    if group.vpc_id != instance.vpc_id:
        raise invalid_parameter("SecurityGroupId", f"The security group {group.id} belongs to VPC {group.vpc_id} and the "
                                                   f"instance {instance.id} to {instance.vpc_id}; they must be in the same VPC.")
    memberships = _groups_of(ctx, instance.id)
    if any(m.security_group_id == group.id for m in memberships):
        raise invalid_parameter("SecurityGroupId", f"The instance {instance.id} is already in security group {group.id}.")
    if len(memberships) >= MAX_GROUPS_PER_INSTANCE:
        raise invalid_parameter("SecurityGroupId", f"The instance {instance.id} is already in {MAX_GROUPS_PER_INSTANCE} "
                                                   "security groups, the maximum.")
    current_types = {ctx.db.get(SecurityGroup, m.security_group_id).group_type for m in memberships}  # type: ignore[union-attr]
    if current_types and group.group_type not in current_types:
        raise invalid_parameter("SecurityGroupId", "An instance cannot be in basic and enterprise security groups at the same time.")
    ctx.db.add(InstanceSecurityGroup(account_id=ctx.principal.account_id, instance_id=instance.id, security_group_id=group.id))
    return {}


@action("ecs", "LeaveSecurityGroup", rw="Write", request=MembershipRequest)
def leave_security_group(ctx: CallContext, req: MembershipRequest) -> dict[str, Any]:
    """Remove an instance from a security group; an instance always keeps at least one."""
    instance, group = _membership_target(ctx, req)
    memberships = _groups_of(ctx, instance.id)
    mine = next((m for m in memberships if m.security_group_id == group.id), None)
    if mine is None:
        raise invalid_parameter("SecurityGroupId", f"The instance {instance.id} is not in security group {group.id}.")
    if len(memberships) == 1:
        raise invalid_parameter("SecurityGroupId", f"The instance {instance.id} must stay in at least one security group; "
                                                   "join another group before leaving this one.")
    ctx.db.delete(mine)
    return {}
