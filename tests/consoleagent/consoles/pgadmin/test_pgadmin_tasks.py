"""The pgAdmin task files: valid, on the pinned release, following only the allowed documentation pages,
and judged so that only pgAdmin's own UI earns the reward (no console needed)."""

from __future__ import annotations

from consoleagent.consoles import backend_class, backend_names
from consoleagent.consoles.pgadmin import PgAdminBackend
from consoleagent.consoles.pgadmin.audit import OBJECT_BROWSER_PATTERN
from consoleagent.suite.backend_tasks import load_backend_tasks, suite_problems

# The pages the pgAdmin tasks may follow; every other pgAdmin page is the held-out evaluation.
ALLOWED_PAGES = {f"{name}_dialog.rst" for name in (
    "cast", "collation", "event_trigger", "exclusion_constraint", "foreign_data_wrapper", "foreign_server",
    "user_mapping", "language", "fts_configuration", "fts_dictionary", "fts_parser", "fts_template", "publication",
    "subscription", "rule", "server", "server_group", "maintenance", "backup", "restore")} | {"import_export_data.rst"}


def test_the_registry_finds_the_pgadmin_package() -> None:
    assert "pgadmin" in backend_names()
    assert backend_class("pgadmin") is PgAdminBackend
    assert PgAdminBackend.release == "9.18"


def test_pgadmin_tasks_are_valid_and_there_are_at_least_twenty() -> None:
    problems, count = suite_problems(PgAdminBackend)
    assert problems == []
    assert count >= 20


def test_documents_are_only_the_allowed_pages() -> None:
    backend = PgAdminBackend()
    shipped = {p.name for p in backend.documents_root.glob("*.rst")}
    assert shipped <= ALLOWED_PAGES, sorted(shipped - ALLOWED_PAGES)
    used = {t.spec.document for t in load_backend_tasks(backend)}
    assert used <= ALLOWED_PAGES and len(used) >= 15


def test_every_sql_expectation_requires_the_object_explorer_connection() -> None:
    for item in load_backend_tasks(PgAdminBackend()):
        rule = item.spec.reward
        assert rule.expect or rule.state, item.spec.id
        for pattern in rule.expect:
            if pattern.service == "postgresql":
                assert pattern.user_agent is not None and pattern.user_agent.regex == OBJECT_BROWSER_PATTERN, item.spec.id
            else:  # a pgAdmin utility job (Backup, Restore, Maintenance, Import/Export)
                assert pattern.service == "pgadmin" and str(pattern.event).startswith("RUN "), item.spec.id


def test_a_task_for_an_unknown_console_is_refused() -> None:
    import pytest

    from consoleagent.suite.validation import plan_requires
    from consoleagent.tasks.spec import TaskSpec

    spec = TaskSpec.model_validate({"id": "x-task", "console": "nosuch", "product": "p", "difficulty": "standard",
                                    "split": "train", "document": "d.md", "release": "1", "goal": "do something useful",
                                    "requires": [{"name": "a", "template": "table", "params": {"name": "t"}}],
                                    "reward": {"expect": [{"event": "X"}]}, "oracle": [{"task_complete": "done"}]})
    with pytest.raises(ValueError, match="unknown console 'nosuch'"):
        plan_requires(spec)  # its requires: plan against the console's templates (as every suite file loads)
