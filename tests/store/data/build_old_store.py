"""How ``store-b405fc8.db.gz`` was made: kenning as it was at commit b405fc8 (before the one door
into storage, issue 11) ran its real hooks and capture on a Claude Code session, and the
database it left was copied (``VACUUM INTO``) and gzipped. Kept so the fixture can be checked and
remade; the tests only read the copy (a clean clone has no old code to run). A SQL dump would be
easier to read but does not load back: its full-text tables are written into ``sqlite_master``
directly, which Python's SQLite refuses.

Run once, from a checkout with the old code unpacked (``git archive b405fc8 src | tar -x -C
/tmp/old``)::

    PYTHONPATH=/tmp/old/src .venv/bin/python tests/store/data/build_old_store.py tests/store/data/store-b405fc8.db.gz

The secrets are fake, made for this fixture, in the providers' shapes; ``SECRETS`` lists them for
the test. Where each ended up raw in the old store: a piece of the prompt's token in
``hook_sessions.opening`` and of the reply's key in ``last_message`` (the hooks stored the first
prompt and the last reply as typed, cut at 300 characters), the tool output's token cut in a
captured turn (capture cut tool output at 2,000 characters before redacting, leaving a piece),
and the Sentry DSN key and the Azure SAS signature in captured turns (rules the old set missed).
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "security"))
from transcript import Transcript  # noqa: E402

SESSION = "5e0c2a7e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
SECRETS = {
    "prompt": "ghp_Vq7Lx2Rk9Tz4Wm8Pn3Hs6Jd1Fb5Yc0Ga2Ne",
    "reply": "sk_live_51Hq8Zr2Lm4Vx7Kp9Tw3Ny6Bc0Df5Gj",
    "tool": "sk-ant-api03-Rm4Tq8Vz2Lx6Kp0Wn3Hs7Jd1Fb5Yc9Ga2Ne4Qt8Vz2Lx6Kp0Wn3Hs7Jd1Fb5Yc9Ga2Ne4Qt8Vz2Lx6Kp0Wn3AA",
    "dsn": "8f3c2b1a9e7d4c6b5a0f1e2d3c4b5a69",
    "sas": "Xq7Lm2Rk9Tz4Wm8Pn3Hs6Jd1Fb5Yc0Ga2NeQt8Vz2Lx",
}


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        home, user_home, repo = tmp / "kenning-home", tmp / "home", tmp / "src" / "shop"
        repo.mkdir(parents=True)
        (tmp / "gitconfig").write_text("[user]\n\tname = A\n\temail = a@example.com\n")
        env = {**os.environ, "KENNING_HOME": str(home), "HOME": str(user_home),
               "GIT_CONFIG_GLOBAL": str(tmp / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
               "KENNING_NOW": "2026-03-02T10:30:00Z", "KENNING_HOLDOUT": "off", "KENNING_BACKGROUND": "off"}  # fmt: skip
        for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "git@github.com:acme/shop.git"]):
            subprocess.run(["git", *args], cwd=repo, check=True, env=env)

        # The prompt's and the reply's tokens straddle the 300 characters the hooks kept; the
        # tool output's, the 2,000 capture kept of it.
        filler = ("Deploy the shop to staging and check the health page after it. " * 5)[:270]
        prompt = f"{filler} use token {SECRETS['prompt']} for the push"
        tool_output = "x" * 1970 + f" {SECRETS['tool']}\nok"
        reply = (f"{filler[:273]} STRIPE_KEY={SECRETS['reply']}; errors go to "
                 f"https://{SECRETS['dsn']}@o450211.ingest.sentry.io/42 and the upload URL is "
                 f"https://shop.blob.core.windows.net/c/f.zip?sv=2022-11-02&sp=r&sig={SECRETS['sas']}%3D")
        transcript = Transcript(SESSION, repo)
        transcript.user(prompt)
        transcript.bash("./deploy.sh --dry-run", tool_output)
        transcript.assistant(reply)
        path = transcript.write(user_home)

        def hook(event: str, **fields: object) -> None:
            payload = {"session_id": SESSION, "transcript_path": str(path), "cwd": str(repo),
                       "hook_event_name": event, **fields}  # fmt: skip
            subprocess.run([sys.executable, "-m", "kenning.hooks.main", "claude-code", event],
                           input=json.dumps(payload).encode(), env=env, check=True, capture_output=True)  # fmt: skip

        hook("SessionStart", source="startup", model="claude-opus-5-5")
        hook("UserPromptSubmit", prompt=prompt, permission_mode="default")
        hook("Stop", stop_hook_active=False, last_assistant_message=reply)
        subprocess.run([sys.executable, "-m", "kenning.cli", "sync", "--quiet"], cwd=repo, env=env,
                       check=True, capture_output=True)  # fmt: skip
        conn = sqlite3.connect(home / "kenning.db")
        conn.execute("VACUUM INTO ?", (str(tmp / "copy.db"),))
        conn.close()
        out.write_bytes(gzip.compress((tmp / "copy.db").read_bytes(), mtime=0))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
