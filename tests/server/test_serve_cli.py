"""The team server from the command line: `kenning serve` as a real process, the admin commands,
`kenning login`, `kenning sync` and `kenning logout` as a person runs them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
from serverkit import ServerProcess

sys.path.insert(0, str(Path(__file__).parent.parent))
from cli_runner import run  # noqa: E402


def test_a_non_loopback_bind_without_tls_is_refused_and_says_why(tmp_path: Path) -> None:
    done = run(["serve", "--host", "0.0.0.0", "--database", "postgresql://x@nowhere/db"], tmp_path, tmp_path / "h", ok=False)
    assert done.returncode == 1
    assert "clear text" in done.stderr and "--behind-proxy" in done.stderr


def test_sync_without_login_says_how_to_log_in(tmp_path: Path) -> None:
    done = run(["sync"], tmp_path, tmp_path / "h", ok=False)
    assert done.returncode == 1 and "kenning login" in done.stderr


def test_serve_admin_login_sync_logout(server_dsn: str, tmp_path: Path) -> None:
    server_home = tmp_path / "server-home"
    server = ServerProcess(server_home, server_dsn)
    try:
        db = ["--database", server_dsn]
        run(["server", "add-user", "alice", *db], tmp_path, server_home)
        run(["server", "workspace-add", "acme", "--owner", "alice", *db], tmp_path, server_home)
        invites = [json.loads(run(["server", "invite", "alice", "--workspace", "acme", "--json", *db], tmp_path,
                                  server_home).stdout)["invite"] for _ in range(2)]  # fmt: skip
        laptop, desk = tmp_path / "laptop", tmp_path / "desk"

        def kenning(home: Path, *args: str, ok: bool = True) -> str:
            import os

            os.environ["KENNING_WORKSPACE"] = "acme"
            try:
                return run(list(args), tmp_path, home, ok=ok).stdout
            finally:
                del os.environ["KENNING_WORKSPACE"]

        kenning(laptop, "remember", "The shop's invoices round half to even", "--kind", "fact")
        joined = json.loads(kenning(laptop, "login", server.url, "--invite", invites[0], "--label", "laptop", "--json"))
        assert joined["workspaces"] == ["acme"] and (laptop / "server.json").stat().st_mode & 0o777 == 0o600
        pushed = json.loads(kenning(laptop, "sync", "--json"))["workspaces"][0]
        assert pushed["pushed"] == 1
        # An invite works once.
        again = run(["login", server.url, "--invite", invites[0]], tmp_path, desk, ok=False)
        assert again.returncode == 1 and "already used" in again.stderr
        kenning(desk, "login", server.url, "--invite", invites[1], "--label", "desk")
        assert json.loads(kenning(desk, "sync", "--json"))["workspaces"][0]["pulled"] == 1
        assert "round half to even" in kenning(desk, "recall", "how do invoices round")

        devices = json.loads(run(["server", "devices", "--json", *db], tmp_path, server_home).stdout)
        assert {d["label"] for d in devices} == {"laptop", "desk"}
        token = json.loads((desk / "server.json").read_text())["token"]
        assert all(token not in json.dumps(d) for d in devices)
        kenning(desk, "logout")
        assert not (desk / "server.json").exists()
        refused = httpx.post(server.url + "/api/v1/sync/pull", json={"workspace": "acme"},
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        assert refused.status_code == 401 and "revoked" in refused.json()["message"]
        assert httpx.get(server.url + "/api/v1/openapi.json").json()["paths"]["/api/v1/sync/push"]
    finally:
        assert server.stop() == 0  # SIGTERM: a graceful stop
