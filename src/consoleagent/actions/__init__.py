"""The action language: a small whitelisted DSL of Python-style calls, parsed safely (never eval)."""

from consoleagent.actions.spec import ACTIONS, Action, ActionSpec, Param

__all__ = ["ACTIONS", "Action", "ActionSpec", "Param"]
