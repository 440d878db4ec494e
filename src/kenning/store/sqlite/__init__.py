"""The embedded SQLite backend (the default)."""
