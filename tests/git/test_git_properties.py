"""Properties: cited lines survive edits elsewhere; parked states stay one per slot as git
and the clock move."""

from __future__ import annotations

import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gitrepo_helper import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core import parked
from kenning.core.citations import Checker
from kenning.core.service import Core
from kenning.domain.lifecycle import in_recall_pool
from kenning.model import Citation, Kind, Status
from kenning.store.sqlite.stores import open_sqlite

line = st.text(alphabet="abcdefgh =()+:", min_size=1, max_size=12).map(lambda s: s.strip() or "x")
unique_lines = st.lists(line, min_size=6, max_size=30, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=unique_lines,
    data=st.data(),
    above=st.lists(line, max_size=5),
    below=st.lists(line, max_size=5),
)
def test_edits_outside_the_cited_lines_keep_them_same(
    lines: list[str], data: st.DataObject, above: list[str], below: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = data.draw(st.integers(1, len(lines)))
        end = data.draw(st.integers(start, min(len(lines), start + 4)))
        ref = f"f.txt:{start}-{end}"
        (root / "f.txt").write_text("\n".join(lines) + "\n")
        digest = Checker(root).fingerprint(ref)
        # New lines are new text: a copy of a cited line elsewhere would rightly read as "moved".
        above = [x for x in above if x not in lines]
        below = [x for x in below if x not in lines]
        cut = data.draw(st.integers(0, start - 1))
        tail = data.draw(st.integers(end, len(lines)))
        edited = [*lines[:cut], *above, *lines[cut:tail], *below, *lines[tail:]]
        (root / "f.txt").write_text("\n".join(edited) + "\n")
        assert Checker(root).check(ref, digest) is Citation.SAME
        # Replacing a cited line with text found nowhere in the file is a change.
        changed = list(edited)
        changed[edited.index(lines[start - 1])] = "zzz not there before"
        (root / "f.txt").write_text("\n".join(changed) + "\n")
        assert Checker(root).check(ref, digest) is Citation.CHANGED


steps = st.lists(
    st.sampled_from(["edit", "commit", "branch", "merge", "delete", "days", "days", "refresh"]), min_size=3, max_size=12
)


@settings(max_examples=15, deadline=None)
@given(steps=steps)
def test_parked_states_stay_one_per_slot(steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "r"
        root.mkdir()
        subprocess.run(["git", "-c", "init.defaultBranch=main", "init", "-q", str(root)], check=True)
        repo = Repo(root)
        repo.commit("init", a="0\n")
        clock = FixedClock(datetime(2026, 3, 1, tzinfo=UTC))
        home = Settings(home=Path(tmp) / "home")
        core = Core(open_sqlite(home.db_path), clock, home)
        for n, step in enumerate(steps, start=1):
            current = repo.git("rev-parse", "--abbrev-ref", "HEAD")
            if step == "edit":
                repo.write("a", f"{n}\n")
            elif step == "commit":
                repo.commit(f"c{n}")
            elif step == "branch":
                repo.git("checkout", "-q", "-b", f"topic/{n}")
            elif step == "merge" and current != "main":
                repo.commit(f"c{n}")
                repo.git("checkout", "-q", "main")
                repo.git("merge", "-q", "--no-ff", "-m", f"Merge branch '{current}'", current)
            elif step == "delete" and current != "main":
                repo.commit(f"c{n}")
                repo.git("checkout", "-q", "main")
                repo.git("branch", "-D", current)
            elif step == "days":
                clock.advance(days=5)
            parked.refresh(core, root)
            place = core.place(root)
            active = [m for m in core.list_memories(place) if m.kind is Kind.STATE]
            slots = [m.subject for m in active]
            assert len(slots) == len(set(slots))  # one state per branch
            dirty = repo.git("status", "--porcelain")
            branch = repo.git("rev-parse", "--abbrev-ref", "HEAD")
            slot = f"branch.r.{branch}.state"
            if dirty:
                live = [m for m in active if m.subject == slot]
                assert len(live) == 1
                # Fresh work is in the pool; work left unchanged for 14 days has faded.
                fresh = clock.now() - live[0].confirmed_at <= timedelta(days=14)
                assert in_recall_pool(live[0], clock.now()) is fresh
            elif branch == "main":
                assert slot not in slots  # committed on main: retired
            for memory in core.list_memories(place, include_inactive=True):
                if memory.kind is Kind.STATE and memory.status is Status.RETIRED:
                    assert memory.status_note  # says why
        core.close()
