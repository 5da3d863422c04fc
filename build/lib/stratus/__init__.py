"""stratus: a self-hosted sandbox cloud with a web console, a JSON API and an audit trail.

stratus is the environment consoleagent runs against. It knows nothing about agents: it never
imports consoleagent.
"""

__version__ = "0.1.0"
