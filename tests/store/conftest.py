"""The ``stores`` fixture every contract suite runs on: a fresh bundle on each backend of
``backends.BACKENDS`` in turn (every backend has every store)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backends import BACKENDS


@pytest.fixture(params=sorted(BACKENDS))
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    opened, close = BACKENDS[request.param](tmp_path)
    try:
        yield opened
    finally:
        close()
