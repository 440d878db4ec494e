"""The ``stores`` fixture every contract suite runs on: a fresh bundle on each backend of
``backends.BACKENDS`` in turn. A store the backend has no implementation of yet skips the
test that asks for it (with the backend's own message) instead of failing it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backends import BACKENDS


class _Bundle:
    """The backend's bundle, with a store it lacks turned into a skip."""

    def __init__(self, stores: Any) -> None:
        self._stores = stores

    def __getattr__(self, name: str) -> Any:
        try:
            return getattr(self._stores, name)
        except NotImplementedError as exc:
            pytest.skip(str(exc))


@pytest.fixture(params=sorted(BACKENDS))
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    opened, close = BACKENDS[request.param](tmp_path)
    try:
        yield _Bundle(opened)
    finally:
        close()
