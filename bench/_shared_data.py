"""Where benchmarks find the project's shared data sets (LoCoMo, the recall evaluation), which
live outside the repository: `$KENNING_SHARED`, else a `shared` folder beside the clone.

Only benchmarks use them; tests never do. A benchmark whose data is absent says so and exits 0,
so `make bench` on a bare clone still runs everything else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared data folder (it may not exist)."""
    return Path(os.environ.get("KENNING_SHARED") or ROOT.parent / "shared")


def need(relative: str, what: str) -> Path:
    """The folder ``relative`` inside the shared data, or a skip message and exit 0."""
    path = shared_dir() / relative
    if not path.is_dir() or not any(path.iterdir()):
        print(f"skipped: {what} needs {path}, which is absent. Set KENNING_SHARED to the folder "
              f"holding {relative}/ (the project's shared data) to run it.")
        sys.exit(0)
    return path
