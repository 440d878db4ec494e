"""Result files that several benchmarks share (bench/results/hooks.md, capture.md): each bench
writes its own ``## `` section and keeps the others'."""

from __future__ import annotations

from pathlib import Path


def write_section(path: Path, heading: str, body: str, *, title: str) -> None:
    """Replace (or add) the section under ``heading`` in ``path``, keeping every other section;
    a new file starts with ``title``. ``body`` begins with the heading line itself."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else f"{title}\n\n"
    # The whole heading line, so "## Capture throughput" does not match "## Capture throughput (--quick)".
    marker = heading + "\n"
    if marker in old:
        start = old.index(marker)
        nxt = old.find("\n## ", start + len(heading))
        old = old[:start] + old[nxt + 1 :] if nxt >= 0 else old[:start]
    path.write_text(old.rstrip() + "\n\n" + body.rstrip() + "\n", encoding="utf-8")
