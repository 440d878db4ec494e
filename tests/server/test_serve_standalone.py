"""`kenning serve` as a person first runs it: alone, on a fresh data folder (the embedded
PostgreSQL, no --database), managed with `kenning server …` while it runs, joined with a device
code, logging one JSON object a line, and stopping gracefully on SIGTERM in the middle of a
request — the request still gets its answer and what it wrote is kept across a restart.

Also the per-token rate limit as a client sees it (real HTTP on loopback, real PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverkit import free_port, running_server, team

from kenning.server.app import Limits
from kenning.server.auth import new_token, token_hash
from kenning.sync import wire

KENNING = [sys.executable, "-m", "kenning.cli"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "KENNING_HOME": str(home), "KENNING_WORKSPACE": "acme", **extra}


def _kenning(home: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*KENNING, *args], env=_env(home), capture_output=True, text=True, timeout=180)
    if ok:
        assert done.returncode == 0, (args, done.stderr)
    return done


class Serve:
    """`kenning serve` with no --database: its own embedded PostgreSQL in ``home``."""

    def __init__(self, home: Path, port: int, log: Path) -> None:
        self.home, self.url, self.log_path = home, f"http://127.0.0.1:{port}", log
        self.signalled = False
        self.log = log.open("ab")
        self.proc = subprocess.Popen([*KENNING, "serve", "--port", str(port)], env=_env(home),
                                     stdout=self.log, stderr=self.log)  # fmt: skip
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"kenning serve exited: {log.read_text()}"
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        raise AssertionError(f"kenning serve never became ready: {log.read_text()}")

    def stop(self) -> int:
        """SIGTERM, once (see ``terminate``), and the exit code."""
        self.terminate()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()
        return int(self.proc.returncode)

    def terminate(self) -> None:
        if not self.signalled and self.proc.poll() is None:
            self.signalled = True
            self.proc.send_signal(signal.SIGTERM)


def _review(key: str) -> dict[str, Any]:
    body = {"kind": "contradiction", "scope": "github.com/acme/shop", "payload": {"text": f"note {key}"}}
    return {"kind": "review", "key": key, "op": "put", "digest": wire.digest(body), "body": body}


def _postmaster_running(home: Path) -> bool:
    return (home / "server" / "postgres" / "postmaster.pid").exists()


@pytest.mark.timeout(900)
def test_serve_alone_on_a_fresh_folder_logs_json_and_stops_gracefully_mid_request(tmp_path: Path) -> None:
    server_home, laptop, desk = tmp_path / "server-home", tmp_path / "laptop", tmp_path / "desk"
    port = free_port()
    log = tmp_path / "serve.log"
    serve = Serve(server_home, port, log)
    try:
        assert httpx.get(serve.url + "/healthz").json() == {"ok": True}
        assert _postmaster_running(server_home)
        # The admin commands reach the same embedded database while the server runs.
        _kenning(server_home, "server", "add-user", "alice")
        added = json.loads(_kenning(server_home, "server", "workspace-add", "acme", "--owner", "alice", "--json").stdout)
        assert added == {"workspace": "acme", "name": "acme", "owner": "alice"}
        twice = _kenning(server_home, "server", "workspace-add", "acme", "--owner", "alice", ok=False)
        assert twice.returncode == 1 and "a workspace 'acme' exists" in twice.stderr and "Traceback" not in twice.stderr
        _kenning(server_home, "server", "add-user", "vera")
        role = json.loads(_kenning(server_home, "server", "member", "acme", "vera", "--role", "viewer", "--json").stdout)
        assert role == {"workspace": "acme", "account": "vera", "role": "viewer"}
        users = {u["name"]: u for u in json.loads(_kenning(server_home, "server", "users", "--json").stdout)}
        assert users["alice"]["roles"] == {"acme": "owner"} and users["vera"]["roles"] == {"acme": "viewer"}
        invite = json.loads(_kenning(server_home, "server", "invite", "alice", "--workspace", "acme", "--json").stdout)
        _kenning(laptop, "login", serve.url, "--invite", invite["invite"], "--label", "laptop")
        _kenning(laptop, "remember", "The shop's invoices round half to even", "--kind", "fact")
        assert json.loads(_kenning(laptop, "sync", "--json").stdout)["workspaces"][0]["pushed"] == 1

        # A device code: the new machine shows it, a logged-in machine approves it.
        waiting = subprocess.Popen([*KENNING, "login", serve.url, "--label", "desk", "--json"], env=_env(desk),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert waiting.stderr is not None
        line = waiting.stderr.readline()
        assert line.startswith("code: "), line
        code = line.split()[1]
        wrong = _kenning(laptop, "login", "--approve", "ZZZZ-ZZZZ", ok=False)
        assert wrong.returncode == 1 and "no waiting login has the code" in wrong.stderr
        _kenning(laptop, "login", "--approve", code)
        out, _err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0 and json.loads(out)["workspaces"] == ["acme"]
        assert json.loads(_kenning(desk, "sync", "--json").stdout)["workspaces"][0]["pulled"] == 1
        assert "round half to even" in _kenning(desk, "recall", "how do invoices round").stdout
        devices = json.loads(_kenning(server_home, "server", "devices", "--json").stdout)
        assert sorted(d["label"] for d in devices) == ["desk", "laptop"]
        desk_id = next(d["id"] for d in devices if d["label"] == "desk")
        revoked = json.loads(_kenning(server_home, "server", "revoke", desk_id, "--json").stdout)
        assert revoked == {"device": desk_id, "revoked": True, "already": False}
        again = _kenning(desk, "sync", ok=False)
        assert again.returncode == 1 and "revoked" in again.stderr

        # SIGTERM while a push is half sent: the server stops taking connections, lets the
        # request finish, answers it, then exits 0 and stops its PostgreSQL.
        token = json.loads((laptop / "server.json").read_text())["token"]
        raw = json.dumps({"workspace": "acme", "batch": "batch-during-stop", "items": [_review("r-stop")]}).encode()
        half_sent, go_on = threading.Event(), threading.Event()

        def body() -> Iterator[bytes]:
            yield raw[:20]
            half_sent.set()
            go_on.wait(60)
            yield raw[20:]

        answer: dict[str, Any] = {}

        def push() -> None:
            with httpx.Client(timeout=120) as http:
                r = http.post(serve.url + "/api/v1/sync/push", content=body(),
                              headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})  # fmt: skip
                answer.update(status=r.status_code, json=r.json())

        pusher = threading.Thread(target=push)
        pusher.start()
        assert half_sent.wait(60)
        time.sleep(0.5)  # the server has read the first bytes and is waiting for the rest
        serve.terminate()
        refused = False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not refused:  # the listening socket closes first
            try:
                httpx.get(serve.url + "/healthz", timeout=1)
                time.sleep(0.1)
            except httpx.TransportError:
                refused = True
        assert refused, "the server still took new connections after SIGTERM"
        assert serve.proc.poll() is None, "the server did not wait for the running request"
        go_on.set()
        pusher.join(120)
        assert answer.get("status") == 200, answer
        assert answer["json"]["results"][0]["status"] == "stored", answer
        assert serve.stop() == 0
        assert not _postmaster_running(server_home), "the embedded PostgreSQL outlived the server"
    finally:
        serve.stop()

    # Structured logs: after the one plain banner line, one JSON object a line, with the
    # request's fields and never a token.
    lines = [x for x in log.read_text().splitlines() if x.strip()]
    assert lines[0].startswith("kenning team server on http://127.0.0.1:")
    events = [json.loads(x) for x in lines[1:]]
    requests = [e for e in events if e["event"] == "request"]
    assert all({"time", "level", "method", "path", "status", "ms"} <= set(e) for e in requests)
    assert any(e["path"] == "/api/v1/sync/push" and e["status"] == 200 and e["workspace"] == "acme" for e in requests)
    assert events[-1]["event"] == "stopped"
    assert token not in log.read_text() and invite["invite"] not in log.read_text()

    # The same folder serves again, with what the interrupted request wrote.
    serve = Serve(server_home, port, log)
    try:
        pulled = httpx.post(serve.url + "/api/v1/sync/pull", json={"workspace": "acme"},
                            headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
        assert "r-stop" in {c["key"] for c in pulled["changes"]}
    finally:
        assert serve.stop() == 0


def test_each_token_is_rate_limited_with_a_retry_after_it_can_trust(server_dsn: str) -> None:
    with running_server(server_dsn, limits=Limits(rate=1.0, burst=3)) as srv:
        ids = team(srv.store)
        now = srv.store.accounts()[0].created_at
        tokens = {}
        for name in ("alice", "bob"):
            tokens[name] = new_token()
            srv.store.add_device(ids[name], name, ["acme"], token_hash(tokens[name]), now)
        with httpx.Client(base_url=srv.url, timeout=30) as http:

            def pull(who: str) -> httpx.Response:
                return http.post("/api/v1/sync/pull", json={"workspace": "acme"},
                                 headers={"Authorization": f"Bearer {tokens[who]}"})  # fmt: skip

            answers = [pull("alice") for _ in range(6)]
            codes = [r.status_code for r in answers]
            assert codes[:3] == [200, 200, 200] and 429 in codes[3:], codes
            limited = next(r for r in answers if r.status_code == 429)
            body = limited.json()
            wait = int(limited.headers["Retry-After"])
            assert wait >= 1 and body["error"] == "rate_limited" and f"retry after {wait} s" in body["message"], body
            assert "changes" not in body
            # Another token has its own bucket ...
            assert pull("bob").status_code == 200
            # ... and waiting what Retry-After says is enough.
            time.sleep(wait)
            assert pull("alice").status_code == 200
            # A bad token is refused as unknown, never counted against a good one.
            bad = http.post("/api/v1/sync/pull", json={"workspace": "acme"}, headers={"Authorization": "Bearer kdev_nope"})
            assert bad.status_code == 401


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*KENNING, "serve", "--port", str(port)], env=_env(tmp_path / "h"), capture_output=True,
                              text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert not (tmp_path / "h" / "server" / "postgres").exists()  # no database started for nothing
