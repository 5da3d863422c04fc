"""Tasks: what an episode is asked to do."""

from consoleagent.tasks.task import Task

__all__ = ["Task"]
