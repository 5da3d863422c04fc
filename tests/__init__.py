"""The test suite mirrors the source tree: tests/stratus/... and tests/consoleagent/...; shared fixtures
live in tests/conftest.py, shared helpers (agents, estate, isolation examples, verify fixtures) beside it."""

from pathlib import Path

TESTS = Path(__file__).parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
