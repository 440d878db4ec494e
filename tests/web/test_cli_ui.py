"""`kenning ui` as a person runs it: a real process on loopback that prints its address with
the token, serves the pages to a client that opened it, refuses one that did not, and stops
cleanly on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from kenning.web.auth import LOCAL_COOKIE

KENNING = [sys.executable, "-m", "kenning.cli"]


def _start(home: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "KENNING_HOME": str(home), "BROWSER": "true"}
    proc = subprocess.Popen([*KENNING, "ui", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=[\w-]+)", line)
    assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, found.group(1)


def test_kenning_ui_serves_with_the_token_and_stops_on_ctrl_c(kenning_home: Path) -> None:
    proc, url = _start(kenning_home, "--no-open")
    try:
        base = url.split("/?", 1)[0]
        deadline = time.monotonic() + 20
        while True:
            try:
                refused = httpx.get(base + "/memory")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "kenning ui never answered"
                time.sleep(0.1)
        assert refused.status_code == 403
        with httpx.Client() as client:
            opened = client.get(url, follow_redirects=False)
            assert opened.status_code == 303 and opened.headers["location"] == "/"
            assert LOCAL_COOKIE in client.cookies
            page = client.get(base + "/memory")
            assert page.status_code == 200 and "<h1>Memory</h1>" in page.text
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "kenning ui stopped" in out


def test_kenning_ui_on_a_port_in_use_says_so(kenning_home: Path) -> None:
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        env = {**os.environ, "KENNING_HOME": str(kenning_home)}
        proc = subprocess.run([*KENNING, "ui", "--no-open", "--port", str(port)], env=env, capture_output=True,
                              text=True, timeout=60)  # fmt: skip
    finally:
        taken.close()
    assert proc.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr and "fix:" in proc.stderr


def test_kenning_ui_help_has_an_example() -> None:
    proc = subprocess.run([*KENNING, "ui", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Example:" in proc.stdout and "kenning ui --no-open --port 8765" in proc.stdout and "--no-open" in proc.stdout
