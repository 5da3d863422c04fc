"""stratus's task suite, as data: the documented procedures (``documents/stratus/<product>/``, with
other writing styles under ``<product>/styles/``), the task families (``families/<product>/``, Jinja2
templates with variants) and the task files rendered from them (``tasks/<product>/``).

It belongs to the stratus backend like ``consoles/pgadmin/tasks`` to pgAdmin's; the code that loads,
selects and checks any console's suite is ``consoleagent.suite``.
"""

from pathlib import Path

SUITE_ROOT = Path(__file__).parent
DOCUMENTS_ROOT = SUITE_ROOT / "documents"
TASKS_ROOT = SUITE_ROOT / "tasks"
FAMILIES_ROOT = SUITE_ROOT / "families"
