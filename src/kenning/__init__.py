"""kenning: memory for AI coding agents.

The core library lives in :mod:`kenning.core` (remember, recall, ... over the stores of
:mod:`kenning.store.protocol`), applying the pure rules of :mod:`kenning.domain`; the CLI, MCP
server, hooks and team server are thin adapters.
"""

__version__ = "0.1.0"
