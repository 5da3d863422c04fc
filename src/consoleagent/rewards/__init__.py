"""Audit-log rewards: the rule language, the engine that explains its verdicts, the rollout judge."""

from consoleagent.rewards.engine import Check, Verdict, evaluate
from consoleagent.rewards.rules import RewardRule

__all__ = ["Check", "RewardRule", "Verdict", "evaluate"]
