"""Provisioning: the account pool, Resource META templates, snapshot reset and ResourceCoder —
the machinery that makes every episode start from a known, correct state."""

from consoleagent.provisioning.types import Lease, PooledAccount, ProvisioningError, Requirement, ResourceReport

__all__ = ["Lease", "PooledAccount", "ProvisioningError", "Requirement", "ResourceReport"]
