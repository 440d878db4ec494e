"""Tool modules of the MCP server: one per area, each with ``register(server)``."""
