"""The task suite shipped with consoleagent: documented procedures for stratus, task families and
the task files generated from them. ``catalog`` finds and selects tasks; ``families`` renders them."""

from pathlib import Path

SUITE_ROOT = Path(__file__).parent
DOCUMENTS_ROOT = SUITE_ROOT / "documents"
TASKS_ROOT = SUITE_ROOT / "tasks"
FAMILIES_ROOT = SUITE_ROOT / "families"
