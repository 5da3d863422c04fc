"""Console adapters: how to reach a console and sign in. stratus is the first; any web console
plugs in through the same interface."""

from consoleagent.adapters.base import ConsoleAdapter, Credentials, FormLogin

__all__ = ["ConsoleAdapter", "Credentials", "FormLogin"]
