"""The test suite mirrors the source tree: tests/stratus/... and tests/consoleagent/...; shared fixtures
live in tests/conftest.py, shared helpers (agents, estate, isolation examples, verify fixtures) beside it."""

import signal
from pathlib import Path

TESTS = Path(__file__).parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"


def sigint_as_default() -> None:
    """``preexec_fn`` of a child a test sends Ctrl-C: SIGINT back to its default, however the suite was started.
    A job a non-interactive shell starts with ``&`` ignores SIGINT, its children inherit that, and Python then
    installs no KeyboardInterrupt handler (measured: both Ctrl-C tests failed only when the suite ran so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
