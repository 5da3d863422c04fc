"""Task suites: ``catalog`` finds and selects tasks, ``families`` renders task files from families,
``validation`` checks a suite (documents, discrepancies, splits, changelog coverage) and
``backend_tasks`` a console backend's own task files.

The default suite is stratus's, which its backend ships as data (``consoles/stratus/suite``); its
folders are named here for the commands that default to it.
"""

from consoleagent.consoles.stratus.suite import DOCUMENTS_ROOT, FAMILIES_ROOT, SUITE_ROOT, TASKS_ROOT

__all__ = ["DOCUMENTS_ROOT", "FAMILIES_ROOT", "SUITE_ROOT", "TASKS_ROOT"]
