"""stratus, the sandbox cloud this project ships: the first console backend and the default one."""

from consoleagent.consoles.stratus.backend import StratusBackend

BACKEND = StratusBackend

__all__ = ["BACKEND", "StratusBackend"]
