"""Fixtures shared by the agent's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from consoleagent import encoder


@pytest.fixture
def lexical(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The lexical fallback as the process's encoder (what the package alone, without torch, runs with)."""
    monkeypatch.setenv(encoder.BACKEND_ENV, "lexical")
    encoder.reset_shared()
    yield
    encoder.reset_shared()
