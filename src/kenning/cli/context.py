"""What every CLI command receives: settings (built once by the entry point) and a lazily
opened core over the stores they name."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from kenning.clock import Clock, FixedClock, SystemClock, from_iso
from kenning.config import Settings
from kenning.errors import Invalid, KenningError

if TYPE_CHECKING:
    from kenning.core.service import Core


@dataclass
class CliContext:
    settings: Settings
    # The process environment, read once by the entry point (cli.main) and passed down.
    env: Mapping[str, str] = field(default_factory=dict)
    # The system clock, or a fixed time from --now / $KENNING_NOW (to try the time rules).
    clock: Clock = field(default_factory=SystemClock)
    _core: Core | None = field(default=None, repr=False)

    @property
    def core(self) -> Core:
        """The core over the stores the settings name, opened on first use (once per command)."""
        if self._core is None:
            from kenning import store
            from kenning.core.service import Core  # here: `kenning --help` never pays for the core
            from kenning.errors import Refused

            try:
                self._core = Core.open(self.settings, self.clock)
            except Exception as exc:
                if not (isinstance(exc, OSError) or store.unusable(exc, opening=True)):
                    raise
                raise Refused(f"the store {self.settings.db_path} cannot be opened ({exc})",
                              fix="run kenning doctor: it says whether the store is locked, corrupt or unreadable") from exc  # fmt: skip
        return self._core

    def close(self) -> None:
        if self._core is not None:
            self._core.close()
            self._core = None


pass_ctx = click.make_pass_decorator(CliContext)


def clock_from(now: str | None) -> Clock:
    """The clock for ``--now TIME`` (a fixed ISO time), or the system clock without one."""
    if not now or not now.strip():
        return SystemClock()
    try:
        return FixedClock(from_iso(now.strip()))
    except ValueError as exc:
        raise Invalid(f"--now {now!r} is not an ISO time",
                      fix="give a time like 2026-03-20T09:00:00Z (also accepted from $KENNING_NOW)") from exc


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def fail(error: KenningError) -> None:
    """Report a kenning error the CLI way: message and fix on stderr, exit code 1."""
    click.echo(f"error: {error.message}", err=True)
    if error.fix:
        click.echo(f"  fix: {error.fix}", err=True)
    sys.exit(1)
