"""The web app: see, review and correct memory in a browser (``kenning ui``; later mounted by
``kenning serve``). An interface like the CLI and the MCP server: it calls the core and
context modules and never another interface. Importing this package pulls in FastAPI and
Jinja2, so only the commands that serve it import it."""
