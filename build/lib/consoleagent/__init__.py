"""consoleagent: verify console documentation with a web agent, and train that agent.

Talks to any console only through a browser, an audit-log source and a provisioner; the
embedded default console is stratus.
"""

__version__ = "0.1.0"
