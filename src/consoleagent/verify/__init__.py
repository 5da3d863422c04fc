"""Documentation verification: ``consoleagent verify``.

A documented procedure is parsed into steps (``consoleagent.documents``), performed by an agent in the
console through the rollout system, judged from the audit log, aligned step by step with what the
agent did, and every disagreement is classified and given a proposed fix. The canonical result is
one JSON report (``model.VerifyReport``); HTML, JUnit XML, Markdown and the review page are derived
from it.
"""
