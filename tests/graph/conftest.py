"""Fixtures of the graph tests (shared with tests/context through graph_sessions)."""

from graph_sessions import shop  # noqa: F401
