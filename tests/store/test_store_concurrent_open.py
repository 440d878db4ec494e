"""Right after an install, hooks, the MCP server and the CLI open a fresh data folder at the
same moment. Twenty real processes do that here, released together: every one of them opens
the store, and the store ends with each migration applied exactly once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kenning.store.sqlite.schema import all_sets, open_database

OPENERS = 20

OPEN_WHEN_RELEASED = textwrap.dedent(
    """
    import os, sys, time
    from kenning.store.sqlite.schema import open_database
    go = sys.argv[2]
    open(go + ".ready." + str(os.getpid()), "w").close()  # imports done: waiting at the line
    while not os.path.exists(go):
        time.sleep(0.001)
    db = open_database(sys.argv[1])
    db.execute("INSERT INTO meta (key, value) VALUES (?, 'opened')", ("opener." + str(os.getpid()),))
    db.close()
    """
)


def test_twenty_processes_open_a_fresh_folder_at_once(tmp_path: Path) -> None:
    home = tmp_path / "fresh-home"  # does not exist yet: the first opener makes it
    db_path = home / "kenning.db"
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", OPEN_WHEN_RELEASED, str(db_path), str(go)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        for _ in range(OPENERS)
    ]
    # Released only once every interpreter is up and polling, so all twenty open at once.
    while len(list(tmp_path.glob("go.ready.*"))) < OPENERS:
        assert all(p.poll() is None for p in procs), "an opener died before the release"
        time.sleep(0.01)
    assert not home.exists(), "the data folder is made by the openers, not before"
    go.touch()
    failures = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            failures.append(err.decode()[-800:])
    assert failures == []
    db = open_database(db_path)
    try:
        ledger = [tuple(r) for r in db.query("SELECT migration_set, name FROM _migrations")]
        assert sorted(ledger) == sorted({(s.name, n) for s in all_sets() for n, _ in s.steps})
        assert len(ledger) == len(set(ledger))
        assert db.one("SELECT count(*) FROM meta WHERE key LIKE 'opener.%'")[0] == OPENERS  # type: ignore[index]
    finally:
        db.close()
