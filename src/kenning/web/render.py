"""Jinja2 with autoescape on for every template: memory text, session text and anything else
from the store reaches the page only escaped. Filters for times and short labels."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from kenning.web import charts, highlight


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def day(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d") if value else ""


def ago(value: datetime | None, now: datetime) -> str:
    """A short relative time: 5 min ago, 3 h ago, 12 days ago."""
    if value is None:
        return "never"
    seconds = (now - value).total_seconds()
    if seconds < 0:
        return "just now"
    for size, unit in ((86400 * 365, "y"), (86400 * 30, "mo"), (86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


class Pages:
    """The template set, loaded once per app."""

    def __init__(self) -> None:
        self.env = Environment(
            loader=PackageLoader("kenning.web", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(when=when, day=day, plural=plural)
        self.env.globals.update(ago=ago, charts=charts, highlight=highlight)

    def render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(**context)
