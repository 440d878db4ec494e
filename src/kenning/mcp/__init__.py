"""kenning's MCP server."""
