"""The errors a route raises for the app's handlers to answer (:func:`kenning.server.app.create_server_app`
maps each to its status): a module of their own so the routes need not import the app that
mounts them."""

from __future__ import annotations

from kenning.errors import Refused


class TooLarge(Exception):
    """A batch over the server's limits (413)."""


class Conflict(Refused):
    """The request clashes with what the server already holds (409)."""
