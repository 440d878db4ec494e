"""``kenning mcp --remote URL``: the official MCP client drives a real ``kenning mcp --remote``
subprocess over stdio, on a machine with no store of its own, against a real team server on
loopback over a real PostgreSQL; a teammate's machine syncs what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from serverkit import Machine, invite, running_server, team

from kenning.model import Kind

pytestmark = pytest.mark.anyio

KENNING = Path(sys.executable).parent / "kenning"
SHOP = "github.com/acme/shop"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text if result.content else result  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


def _git_project(root: Path) -> Path:
    root.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/shop.git"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def _login(home: Path, url: str, token: str) -> None:
    env = {**os.environ, "KENNING_HOME": str(home)}
    done = subprocess.run([str(KENNING), "login", url, "--invite", token, "--json"], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr


async def test_the_memory_tools_answer_from_the_team_server(server_dsn: str, tmp_path: Path) -> None:
    with running_server(server_dsn) as srv:
        team(srv.store)
        bob = Machine(tmp_path, "bob", srv.url, invite(srv.store, "bob", ["acme"]))
        home = tmp_path / "thin-client"
        _login(home, srv.url, invite(srv.store, "alice", ["acme"]))
        project = _git_project(tmp_path / "shop")
        try:
            known = bob.remember("The shop deploys from the release branch every Tuesday", kind=Kind.FACT).memory
            assert known is not None
            bob.sync()
            # alice's own hidden memory (from her laptop): the server shows it to her by ref, a session never.
            laptop = Machine(tmp_path, "alice-laptop", srv.url, invite(srv.store, "alice", ["acme"]))
            kept = laptop.remember("The staging box keeps nightly database dumps for a week", kind=Kind.FACT).memory
            assert kept is not None
            laptop.core.hide(kept.ref)
            laptop.sync()
            laptop.close()
            env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "KENNING_HOME": str(home),
                   "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
            params = StdioServerParameters(command=str(KENNING), args=["mcp", "--remote", srv.url], env=env)
            async with Client(params) as client:
                listed = {t.name for t in (await client.list_tools()).tools}
                assert listed == {"recall", "recall_workspaces", "remember", "record_decision", "get_memory", "list_memories",
                                  "propose_memory_change", "memory_health"}  # fmt: skip
                found = _data(await client.call_tool("recall", {"query": "when does the shop deploy"}))
                assert [r["ref"] for r in found["results"]] == [known.ref]
                assert _data(await client.call_tool("recall", {"query": "kubernetes helm rollout"}))["results"] == []
                wrote = _data(await client.call_tool("remember", {
                    "text": "Invoices are rendered by the pdf worker on the batch queue", "kind": "fact"}))  # fmt: skip
                assert wrote["outcome"] == "stored" and wrote["memory"]["scope"] == SHOP
                got = _data(await client.call_tool("get_memory", {"refs": [wrote["ref"], "m:00000000", kept.ref]}))
                assert [m["ref"] for m in got["memories"]] == [wrote["ref"]] and got["unknown"] == ["m:00000000", kept.ref]
                page = _data(await client.call_tool("list_memories", {}))
                assert {m["ref"] for m in page["memories"]} == {known.ref, wrote["ref"]} and page["total"] == 2
                across = _data(await client.call_tool("recall_workspaces", {"query": "pdf worker invoices"}))
                assert [(r["workspace"], r["ref"]) for r in across["results"]] == [("acme", wrote["ref"])]
                health = _data(await client.call_tool("memory_health", {}))
                assert health["checked"] == 2
                # Refusals are error results that say why: a workspace the token does not list, bad arguments.
                refused = await client.call_tool("recall_workspaces", {"query": "deploy", "workspaces": ["beta"]})
                assert refused.is_error and "beta" in refused.content[0].text  # type: ignore[union-attr]
                bad = await client.call_tool("remember", {"text": "Staging is down", "kind": "state"})
                assert bad.is_error and "subject" in bad.content[0].text  # type: ignore[union-attr]
                assert (await client.call_tool("recall", {"query": 5})).is_error

                # Writes as alice's own records: a decision with its doc, a replacement of her own
                # memory, a proposal on bob's (which reaches his Needs review), never an edit of his.
                decided = _data(await client.call_tool("record_decision", {
                    "title": "We render invoices with WeasyPrint", "reasoning": "it keeps the CSS we already have",
                    "alternatives": ["wkhtmltopdf"]}))  # fmt: skip
                assert decided["outcome"] == "stored" and "WeasyPrint" in decided["decision_doc"]["text"]
                moved = _data(await client.call_tool("remember", {
                    "text": "Invoices are rendered by the pdf service since the queue was retired", "kind": "fact",
                    "replaces": [wrote["ref"]], "used": [known.ref]}))  # fmt: skip
                assert moved["retired"] == [wrote["ref"]]
                theirs = await client.call_tool("remember", {"text": "The shop deploys on Wednesdays now", "kind": "fact",
                                                             "replaces": [known.ref]})  # fmt: skip
                assert theirs.is_error and "teammate" in theirs.content[0].text  # type: ignore[union-attr]
                proposed = _data(await client.call_tool("propose_memory_change", {
                    "type": "retire", "refs": [known.ref], "why": "we deploy on Wednesdays since October"}))  # fmt: skip
                assert proposed["authors"] == ["bob"] and proposed["refs"] == [known.ref]
                bad = await client.call_tool("propose_memory_change", {"type": "merge", "refs": [known.ref], "text": "x"})
                assert bad.is_error and "two refs" in bad.content[0].text  # type: ignore[union-attr]
            # A teammate's machine pulls what the thin client wrote, as alice's, and the proposal.
            bob.sync()
            pulled = bob.core.store.get("acme", wrote["ref"])
            assert pulled is not None and "pdf worker" in pulled.text and pulled.status.value == "superseded"
            doc = bob.core.store.decision_doc("acme", SHOP, "We render invoices with WeasyPrint", "alice/mcp")
            assert doc is not None and "wkhtmltopdf" in doc.rejected
            waiting = bob.core.store.reviews("acme", [SHOP])
            assert [(w.kind, w.refs) for w in waiting] == [("retire", (known.ref,))]
            assert bob.core.store.get("acme", known.ref).status.value == "active"  # type: ignore[union-attr]
            assert not (home / "kenning.db").exists(), "the thin client keeps no store"
        finally:
            bob.close()


def test_mcp_remote_refuses_a_server_it_is_not_logged_in_to(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "KENNING_HOME": str(home)}
    done = subprocess.run([str(KENNING), "mcp", "--remote", "http://127.0.0.1:9"], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode != 0 and "kenning login" in done.stderr
    (home / "server.json").write_text(json.dumps({"server": "http://127.0.0.1:8470", "account": "acc_x", "account_name": "a",
                                                  "device": "dev_x", "workspaces": ["acme"], "token": "kdev_x"}))  # fmt: skip
    done = subprocess.run([str(KENNING), "mcp", "--remote", "http://127.0.0.1:9"], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode != 0 and "http://127.0.0.1:8470" in done.stderr
