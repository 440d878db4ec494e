"""The context tests use the graph tests' fixture sessions."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "graph"))

from graph_sessions import shop  # noqa: E402, F401
