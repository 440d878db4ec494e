"""kenning: memory for AI coding agents.

The core library lives in :mod:`kenning.core` (remember, recall, lifecycle) over a
:class:`kenning.store.protocol.Store`; the CLI, MCP server and hooks are thin adapters.
"""

__version__ = "0.1.0"
