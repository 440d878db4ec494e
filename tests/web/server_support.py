"""The team server's pages for the tests: a real server app (API and pages, one ASGI
application) under uvicorn on loopback (tests/live_server.py), over a real PostgreSQL database
of its own that holds both the server's tables and the memory store (tests/server/pgserver.py,
the team server tests' own databases), with a team:

- ``acme``: alice (owner) and bob (viewer);
- ``globex``: carol (owner) and alice (member).

Each workspace holds memories written by their authors' devices through the REST API (a
one-item push: a sync record of the author, materialized into the workspace's memory store),
and each holds one text the other must never show. ``Team.core`` reads the memory store as
the schema's owner (no row-level security), to check what the pages did.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

sys.path.append(str(Path(__file__).resolve().parents[1] / "server"))  # tests/server, for pgserver

import pgserver  # noqa: E402

from kenning.clock import FixedClock  # noqa: E402
from kenning.config import Settings  # noqa: E402
from kenning.core.service import Core  # noqa: E402
from kenning.server.app import PagesConfig, create_server_app  # noqa: E402
from kenning.server.auth import new_token, token_hash  # noqa: E402
from kenning.store.postgres.schema import open_database  # noqa: E402
from kenning.store.postgres.stores import PostgresStores  # noqa: E402
from kenning.store.server.postgres import PostgresServerStore  # noqa: E402
from kenning.store.server.protocol import Role  # noqa: E402
from kenning.web.app import LOCAL_HOSTS  # noqa: E402
from live_server import serving  # noqa: E402

PROJECT = "github.com/acme/shop"
ACME_TEXT = "Deploys of the shop go out from the release branch only"
ACME_SCRIPT = "<script>document.title='pwned'</script> stays text on the server too"
GLOBEX_TEXT = "Globex keeps its invoices in the ledger service, never in the shop"


@dataclass
class Team:
    url: str
    store: PostgresServerStore
    clock: FixedClock
    stores: Any
    accounts: dict[str, str]
    tokens: dict[str, str] = field(default_factory=dict)  # device tokens by account name
    refs: dict[str, str] = field(default_factory=dict)  # memory refs by name

    def core(self, workspace: str) -> Core:
        return Core(self.stores, self.clock, Settings(home=Path("/nonexistent"), workspace=workspace))

    def remember(self, who: str, workspace: str, text: str) -> str:
        """A memory of ``who``'s, written from their device (REST remember: a one-item push)."""
        answer = httpx.post(f"{self.url}/api/v1/memories", timeout=30,
                            json={"workspace": workspace, "text": text, "kind": "fact", "project": PROJECT,
                                  "origin": "person", "source": "cli"},
                            headers={"Authorization": f"Bearer {self.tokens[who]}"})  # fmt: skip
        assert answer.status_code == 200, answer.text
        return str(answer.json()["ref"])

    def link(self, who: str, workspaces: list[str] | None = None) -> str:
        """A fresh sign-in link for ``who``, asked for with their device token (as
        `kenning ui --server` does): the whole URL."""
        body = {} if workspaces is None else {"workspaces": workspaces}
        answer = httpx.post(f"{self.url}/api/v1/web/link", json=body, timeout=30,
                            headers={"Authorization": f"Bearer {self.tokens[who]}"})  # fmt: skip
        assert answer.status_code == 200, answer.text
        return self.url + answer.json()["path"]

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, follow_redirects=False, timeout=30,
                            headers={"Origin": self.url})  # fmt: skip

    def signed_in(self, who: str, workspaces: list[str] | None = None) -> httpx.Client:
        """An HTTP client holding ``who``'s browser session (it posted the link like the page does)."""
        client = self.client()
        answer = client.post("/signin", data={"link": link_of(self.link(who, workspaces))})
        assert answer.status_code == 303 and answer.headers["location"] == "/memory", answer.text
        return client


def link_of(url: str) -> str:
    """The one-time token in a sign-in URL."""
    return httpx.URL(url).params["link"]


def csrf_of(client: httpx.Client, path: str = "/memory") -> str:
    page = client.get(path).text
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found, f"no csrf field on {path}"
    return found.group(1)


@contextmanager
def team_server(*, signin_rate: float = 50.0, signin_burst: int = 200, secure: bool = False) -> Iterator[Team]:
    """The whole server (API and pages) under uvicorn on 127.0.0.1, with the team above."""
    dsn = pgserver.fresh_database()
    clock = FixedClock(datetime.now(UTC))
    store = PostgresServerStore.open(dsn, max_size=6)
    stores = PostgresStores(open_database(dsn, max_size=4))
    try:
        now = clock.now()
        acc = {name: store.add_account(name, now).id for name in ("alice", "bob", "carol")}
        store.add_workspace("acme", "Acme", acc["alice"], now)
        store.set_member("acme", acc["bob"], Role.VIEWER)
        store.add_workspace("globex", "Globex", acc["carol"], now)
        store.set_member("globex", acc["alice"], Role.MEMBER)
        scopes = {"alice": ["acme", "globex"], "bob": ["acme"], "carol": ["globex"]}
        pages = PagesConfig(hosts=tuple(LOCAL_HOSTS), signin_rate=signin_rate, signin_burst=signin_burst, secure=secure)
        with serving(create_server_app(store, clock=clock, pages=pages)) as url:
            team = Team(url, store, clock, stores, acc)
            for name, workspaces in scopes.items():
                token = new_token()
                store.add_device(acc[name], f"{name}-laptop", workspaces, token_hash(token), now)
                team.tokens[name] = token
            team.refs["acme"] = team.remember("alice", "acme", ACME_TEXT)
            team.refs["script"] = team.remember("alice", "acme", ACME_SCRIPT)
            team.refs["globex"] = team.remember("carol", "globex", GLOBEX_TEXT)
            yield team
    finally:
        stores.close()
        store.close()
        pgserver.drop(dsn)
