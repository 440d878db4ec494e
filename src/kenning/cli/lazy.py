"""A click group that imports a command's module only when that command runs.

`kenning --help` and shell completion list commands from a table of names, one-line
summaries and ``module:attribute`` targets (:mod:`kenning.cli.tree`), so they never import
the core, the store or the MCP SDK. click has no lazy group of its own; its documentation
suggests exactly this subclass ("Lazily loading subcommands").
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Sequence
from dataclasses import dataclass

import click
from click.shell_completion import CompletionItem


@dataclass(frozen=True)
class Entry:
    """One command of a group: where it is defined and what ``--help`` says of it."""

    name: str
    target: str  # "package.module:attribute", or "" for a nested LazyGroup given as ``group``
    summary: str
    section: str = ""
    # An old name kept for one release: hidden, and it says where the command lives now.
    moved_to: str = ""
    group: LazyGroup | None = None

    @property
    def hidden(self) -> bool:
        return bool(self.moved_to)


def load(target: str) -> click.Command:
    """Import ``module:attribute`` and return the click command it names."""
    module_name, _, attribute = target.partition(":")
    command = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


class LazyGroup(click.Group):
    """A group whose commands come from a table of :class:`Entry`, imported on first use."""

    def __init__(self, *args: object, entries: Sequence[Entry] = (), **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.entries = {e.name: e for e in entries}

    def list_commands(self, ctx: click.Context) -> list[str]:
        listed = [name for name, e in self.entries.items() if not e.hidden]
        return listed + sorted(n for n in self.commands if n not in self.entries)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self.entries.get(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        command = entry.group if entry.group is not None else load(entry.target)
        if not entry.moved_to:
            return command
        old = copy.copy(command)
        old.name, old.hidden = cmd_name, True
        old.deprecated = f"It is now `kenning {entry.moved_to}`; the old name goes in the next release."
        return old

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Commands by section, from the table (nothing is imported to print help)."""
        shown = [e for e in self.entries.values() if not e.hidden]
        width = max((len(e.name) for e in shown), default=0)
        sections: dict[str, list[tuple[str, str]]] = {}
        for e in shown:
            # Padded to one width, so the sections line up as one table.
            sections.setdefault(e.section or "Commands", []).append((e.name.ljust(width), e.summary))
        for title, rows in sections.items():
            with formatter.section(title):
                formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Complete command names from the table (no command module is imported)."""
        items = [CompletionItem(name, help=e.summary) for name, e in self.entries.items()
                 if not e.hidden and name.startswith(incomplete)]  # fmt: skip
        return items + click.Command.shell_complete(self, ctx, incomplete)
