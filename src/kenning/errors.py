"""kenning's errors. Every error carries a ``fix``: a sentence telling the caller how to
make the call succeed. Adapters translate them at their edge (exit code, MCP ``is_error``)."""

from __future__ import annotations


class KenningError(Exception):
    """Base of every error kenning raises on purpose."""

    def __init__(self, message: str, *, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message}. {self.fix}".strip() if self.fix else self.message


class Refused(KenningError):
    """A write that a rule refuses; nothing was stored."""


class Invalid(KenningError):
    """An argument that is malformed."""


class NotFound(KenningError):
    """A ref, session or name that matches nothing."""
