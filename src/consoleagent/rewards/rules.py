"""The reward rule language: what the audit log must (and must not) show for a task to count as done.

    reward:
      outcome: complete                 # the agent's ending: complete | unachievable
      expect:
        - name: create                  # a label for `order` and for explanations
          event: CreateVpc              # or {regex: "^(Create|Allocate)"}
          service: vpc
          user_agent: {regex: "pgAdmin 4 - DB:.*"}  # the client (pgAdmin: only its Object Explorer)
          params:                       # constraints on requestParameters
            VpcName: web-vpc            # a bare value means equals
            CidrBlock: {in: [10.0.0.0/8, 172.16.0.0/12]}
            Bandwidth: {min: 1, max: 10}
            Description: {regex: "^Created"}
            VpcId: "${net.vpc_id}"      # an output of a provisioned resource
            InstanceIds: {contains: "${web.instance_id}"}
      order: [create, attach]           # these expectations' records happened in this order
      forbid:                           # no successful write of the agent may match these
        - event: {regex: "^Delete"}
      allow: []                         # destructive writes the task tolerates although not expected
      state:                            # final-state checks through the SDK
        - call: vpc.DescribeVpcs
          params: {VpcId: "${net.vpc_id}"}
          path: Vpcs.0.Description
          equals: updated
      require_discrepancy: false        # an 'unachievable' answer must come with a discrepancy report
      deadline_s: 15                    # how long to wait for late audit delivery

Only the agent's own successful console calls count (``actor: console``, no error code, the
episode's session and account); calls by the provisioner, by the system, by an SDK key, failed
calls and calls in another account never satisfy an expectation. Any successful destructive
write (Delete*, Release*, Stop*, ...) that no expectation or ``allow`` entry matches fails the
task: collateral damage is never rewarded.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DESTRUCTIVE_PREFIXES = ("Delete", "Release", "Remove", "Revoke", "Detach", "Unassociate", "Unbind",
                        "Reset", "Stop", "Reboot", "Deactivate", "Disable", "Cancel",
                        "DROP ", "TRUNCATE", "DELETE", "REVOKE")  # the last four: SQL command tags (pgaudit)
CONSTRAINT_KEYS = {"equals", "in", "regex", "min", "max", "contains", "absent", "present"}


class Constraint(BaseModel):
    """One test of a value. Several keys in one constraint must all hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    equals: Any = None
    in_: list[Any] | None = Field(default=None, alias="in")
    regex: str | None = None
    min: float | None = None
    max: float | None = None
    contains: Any = None
    absent: bool = False
    present: bool = False

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, dict) and value and set(value) <= CONSTRAINT_KEYS:
            return value
        if isinstance(value, dict):
            unknown = sorted(set(value) - CONSTRAINT_KEYS)
            raise ValueError(f"unknown constraint key(s) {', '.join(unknown)}; use {', '.join(sorted(CONSTRAINT_KEYS))}"
                             if unknown else "an empty constraint")
        return {"equals": value}  # a bare value (string, number, list) means equals

    @field_validator("regex")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
        return value

    def describe(self) -> str:
        parts = []
        if self.equals is not None:
            parts.append(f"= {self.equals!r}")
        if self.in_ is not None:
            parts.append(f"in {self.in_!r}")
        if self.regex is not None:
            parts.append(f"matches /{self.regex}/")
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        if self.contains is not None:
            parts.append(f"contains {self.contains!r}")
        if self.absent:
            parts.append("absent")
        if self.present:
            parts.append("present")
        return " and ".join(parts)


class NamePattern(BaseModel):
    model_config = ConfigDict(extra="forbid")
    regex: str

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return value


class EventPattern(BaseModel):
    """Audit records this pattern matches: event name, service, and constraints on the request."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    event: str | NamePattern
    service: str | None = None
    params: dict[str, Constraint] = Field(default_factory=dict)
    response: dict[str, Constraint] = Field(default_factory=dict)
    user_agent: Constraint | None = None  # the client that made the call (pgAdmin: its connection's application_name)
    count: int = Field(default=1, ge=1)  # at least this many matching records

    @property
    def label(self) -> str:
        return self.name or (self.event if isinstance(self.event, str) else f"/{self.event.regex}/")

    def name_matches(self, event_name: str) -> bool:
        if isinstance(self.event, str):
            return event_name == self.event
        return re.search(self.event.regex, event_name) is not None


class StateCheck(Constraint):
    """A read through the SDK after the episode; ``path`` walks the response (``Vpcs.0.VpcName``)."""

    call: str  # product.Action
    params: dict[str, Any] = Field(default_factory=dict)
    path: str

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("a state check is a mapping: call, params, path and a constraint")
        constraint = {k: v for k, v in value.items() if k in CONSTRAINT_KEYS}
        if not constraint:
            raise ValueError(f"a state check needs a constraint ({', '.join(sorted(CONSTRAINT_KEYS))})")
        return value

    @field_validator("call")
    @classmethod
    def _call(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*", value):
            raise ValueError("must be product.Action, e.g. vpc.DescribeVpcs")
        return value


class RewardRule(BaseModel):
    model_config = ConfigDict(extra="forbid")
    outcome: Literal["complete", "unachievable"] = "complete"
    expect: list[EventPattern] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)
    forbid: list[EventPattern] = Field(default_factory=list)
    allow: list[EventPattern] = Field(default_factory=list)
    state: list[StateCheck] = Field(default_factory=list)
    require_discrepancy: bool = False
    deadline_s: float = Field(default=15.0, ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> "RewardRule":
        if self.outcome == "complete" and not self.expect and not self.state:
            raise ValueError("expect: a task to complete needs at least one expected event or state check "
                             "(otherwise doing nothing would be rewarded)")
        labels = [e.label for e in self.expect]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if self.order and duplicates:
            raise ValueError(f"expect: names used by order must be unique (repeated: {', '.join(duplicates)})")
        unknown = [name for name in self.order if name not in labels]
        if unknown:
            raise ValueError(f"order: {', '.join(unknown)} is not the name of an expectation")
        return self
