"""The agent's environment: a Gymnasium-style ConsoleEnv over Playwright and Chromium."""

from consoleagent.env.console_env import ConsoleEnv, EnvConfig
from consoleagent.env.faults import EnvironmentFault

__all__ = ["ConsoleEnv", "EnvConfig", "EnvironmentFault"]
