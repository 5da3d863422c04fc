"""Records shared by the pool, the template engine, ResourceCoder and the rollout lifecycle."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from consoleagent.adapters.base import Credentials


class ProvisioningError(Exception):
    """Provisioning failed. The episode it was for ends as ``env_error``, never as the agent's failure."""

    def __init__(self, message: str, *, template: str | None = None, phase: str | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.phase = phase  # plan | create | verify | destroy | lease | restore | script


@dataclass
class PooledAccount:
    """One account of a console that episodes can run in.

    ``sdk_key`` acts as the tenant (the agent's own SDK calls, rarely used); ``provisioner_key``
    is what templates use, so their audit records carry actor ``provisioner`` and never count as
    the agent's work.
    """

    account_id: str
    login_name: str
    password: str
    console: str  # base URL
    sdk_key: tuple[str, str] | None = None  # (access key id, secret)
    provisioner_key: tuple[str, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def credentials(self) -> Credentials:
        extra = {"account_id": self.account_id, **self.extra}
        if self.sdk_key:
            extra.update(access_key_id=self.sdk_key[0], access_key_secret=self.sdk_key[1])
        if self.provisioner_key:
            extra.update(provisioner_key_id=self.provisioner_key[0], provisioner_key_secret=self.provisioner_key[1])
        return Credentials(self.login_name, self.password, extra=extra)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PooledAccount":
        data = dict(data)
        for key in ("sdk_key", "provisioner_key"):
            if data.get(key) is not None:
                data[key] = tuple(data[key])
        return cls(**data)


@dataclass
class Lease:
    lease_id: str
    account: PooledAccount
    worker: str
    expires_at: float  # epoch seconds


@dataclass
class Requirement:
    """One ``requires:`` entry of a task: a template, its parameters, and the name its outputs go by."""

    name: str  # referred to as ${name.output}
    template: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceReport:
    """What provisioning produced, as the agent is told (and the trajectory records)."""

    resources: list[dict[str, Any]]  # [{"name", "template", "outputs": {...}}]
    source: str  # "template" | "resourcecoder-template" | "resourcecoder-script" | "snapshot"
    notes: str = ""

    def text(self) -> str:
        lines = []
        for item in self.resources:
            outputs = ", ".join(f"{k}={v}" for k, v in item.get("outputs", {}).items())
            lines.append(f"- {item.get('name')} ({item.get('template')}): {outputs}")
        return "\n".join(lines) + (f"\n{self.notes}" if self.notes else "")
