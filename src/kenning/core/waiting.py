"""Pull requests and issues waiting on you, cached per project for the brief and the card.

A hook may not use the network, so ``gh`` is run by ``kenning refresh`` (and the hourly
outcomes check) and what it said is kept in ``meta`` under ``gh.waiting.<project key>`` with
the time it was read. A failed read keeps the previous list; a list older than 24 hours is
never shown.
"""

from __future__ import annotations

from kenning import isotime, jsonfast

TYPE_CHECKING = False  # typing is left unimported on purpose (start-up time); mypy reads True
if TYPE_CHECKING:
    from pathlib import Path

    from kenning import ghinfo
    from kenning.core.service import Core

MAX_AGE_SECONDS = 24 * 3600
KEPT = 60  # items cached per project (3 calls of up to 20); the brief shows a few
NOT_SIGNED_IN = "gh is not installed or not signed in"
FAILED = "gh failed; the previous list is kept"
# What most needs you first: a review asked of you, then your own work that came back.
RANK = {"review requested": 0, "changes requested": 1, "approved": 2, "": 3}


# Plain classes (a dataclass costs ~1.5 ms to define), the standard library's json and git and
# gh imported only to refresh: the start hook imports this module to read the cache.
class Cached:
    __slots__ = ("kind", "number", "title", "url", "why")

    def __init__(self, kind: str, number: int, title: str, url: str, why: str) -> None:
        self.kind, self.number, self.title, self.url, self.why = kind, number, title, url, why  # kind: PR or issue

    @property
    def line(self) -> str:
        # A title is text other people wrote: it reaches a session quoted, never as instructions.
        from kenning.quoting import neutral, quote

        title = quote(self.title[:80] + ("…" if len(self.title) > 80 else ""))
        return f"{neutral(self.kind)} #{self.number} {title}" + (f" ({neutral(self.why)})" if self.why else "")


class WaitingReport:
    __slots__ = ("project", "items", "skipped")

    def __init__(self, project: str, items: list[ghinfo.Waiting], skipped: str) -> None:
        self.project, self.items, self.skipped = project, items, skipped  # skipped: why nothing was read


def cache_key(project: str) -> str:
    return f"gh.waiting.{project}"


def save(core: Core, project: str, items: list[ghinfo.Waiting]) -> None:
    import json

    from kenning.clock import to_iso
    from kenning.redact import redact  # on write only: secrets never reach storage

    rows = [{"kind": i.kind, "number": i.number, "title": redact(i.title), "url": i.url, "why": i.why}
            for i in items[:KEPT]]  # fmt: skip
    core.store.set_meta(core.workspace, cache_key(project), json.dumps({"read_at": to_iso(core.now()), "items": rows}))


def parse(raw: str | None, now: float) -> list[Cached]:
    """The cached list in ``raw`` (the meta value), or [] when there is none, it is unreadable
    or older than 24 hours at ``now`` (seconds since the epoch)."""
    if not raw:
        return []
    try:
        data = jsonfast.loads(raw)
        if not isinstance(data, dict) or now - isotime.parse(str(data["read_at"])) > MAX_AGE_SECONDS:
            return []
        return [Cached(str(r["kind"]), int(r["number"]), str(r["title"]), str(r.get("url") or ""),
                       str(r.get("why") or "")) for r in data["items"]]  # fmt: skip
    except (ValueError, TypeError, KeyError, AttributeError):
        return []


def lines(raw: str | None, now: float) -> list[str]:
    """The cached items as the brief and the card show them, what most needs you first."""
    return [i.line for i in sorted(parse(raw, now), key=lambda i: RANK.get(i.why, 4))]


def cached(core: Core, project: str) -> list[Cached]:
    """The cached list, or [] when there is none, it is unreadable or older than 24 hours."""
    return parse(core.store.get_meta(core.workspace, cache_key(project)), core.now().timestamp())


def refresh(core: Core, cwd: Path | str, *, gh: ghinfo.GhClient | None | bool = True) -> WaitingReport:
    """Ask ``gh`` what waits on you in the project at ``cwd`` and cache it. ``gh=True`` uses gh
    when it is installed and signed in; pass a client (tests), or None/False to skip."""
    from kenning import ghinfo, gitinfo

    info = gitinfo.project_for(cwd)
    if info.kind != "project" or info.root is None:
        return WaitingReport(info.key, [], "not a git repository")
    project = core.place(info.root).project
    client = ghinfo.GhClient.detect(info.root) if gh is True else (gh or None)
    if client is None:
        return WaitingReport(project, [], NOT_SIGNED_IN)
    items = client.waiting()
    if items is None:
        return WaitingReport(project, [], FAILED)
    save(core, project, items)
    return WaitingReport(project, items, "")
