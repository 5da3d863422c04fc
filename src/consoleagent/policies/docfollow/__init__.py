"""The documentation follower's parts: what a step asks (``instructions``), how a document's label is
recognised when the console renamed it (``semantic``), and how the follower finds a place the document
does not say how to reach (``explore``). The policy itself is ``consoleagent.policies.docfollower``."""
