"""Policies: what decides the next action from an observation."""

from consoleagent.policies.base import Decision, Policy

__all__ = ["Decision", "Policy"]
