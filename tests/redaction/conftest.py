"""Fixtures of the redaction tests."""

from __future__ import annotations

import pytest
from redaction_helpers import Tokens


@pytest.fixture
def tok() -> Tokens:
    """Random token bodies from a seeded RNG."""
    return Tokens(20261201)
