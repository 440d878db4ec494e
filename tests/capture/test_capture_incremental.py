"""Property: however a transcript grows (lines cut at any byte, syncs at any moment), the
store ends with exactly the turns of one sync of the finished file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.capture_job import sync_all
from kenning.core.service import Core


def _line(i: int, text: str) -> bytes:
    role = "user" if i % 2 == 0 else "assistant"
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    rec = {"type": role, "uuid": f"u-{i}", "sessionId": "s1", "cwd": "/nowhere/app",
           "timestamp": f"2026-08-10T12:00:{i % 60:02d}.000Z", "message": {"role": role, "content": content}}
    return json.dumps(rec, ensure_ascii=False).encode() + b"\n"


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(str.strip)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, min_size=1, max_size=12), st.lists(st.integers(min_value=1, max_value=400), max_size=12))
def test_any_growth_pattern_gives_the_same_turns(lines: list[str], cuts: list[int]) -> None:
    data = b"".join(_line(i, t) for i, t in enumerate(lines))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        path = home / ".claude" / "projects" / "-nowhere-app" / "s1.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
        core = Core.open(Settings(home=root / "kenning"), FixedClock())
        try:
            written = 0
            for cut in cuts:
                # Append the next piece, which may end in the middle of a line or a UTF-8 character.
                piece = data[written:written + cut]
                with path.open("ab") as fh:
                    fh.write(piece)
                written += len(piece)
                sync_all(core, home, import_memory_files=False)
            with path.open("ab") as fh:
                fh.write(data[written:])
            sync_all(core, home, import_memory_files=False)
            got = [(t.uid, str(t.text)) for s in core.stores.capture.sessions(core.workspace)
                   for t in core.stores.capture.turns(core.workspace, s.id)]
        finally:
            core.close()
    from kenning.redact import redact

    want = [(f"u-{i}", redact(t.strip())) for i, t in enumerate(lines)]
    assert sorted(got) == sorted(want)
