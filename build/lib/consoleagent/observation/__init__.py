"""What the agent sees: Set-of-Mark marks, a compact text outline, a marked screenshot."""

from consoleagent.observation.types import HistoryEntry, Mark, Observation

__all__ = ["HistoryEntry", "Mark", "Observation"]
