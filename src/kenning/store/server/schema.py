"""The server's tables on PostgreSQL, as numbered migrations, and the row-level security that
binds every data-plane transaction to one request's token and workspace.

Control-plane tables (accounts, workspaces, members, devices, invites, device codes) are not
granted to the application role at all: a request's transaction (run as ``kenning_app``)
cannot read a token hash even through a bug. Data-plane tables (records and their bodies,
the sequence counters, batches) are under policies that ask three SECURITY DEFINER
functions, each reading the transaction's ``kenning.token`` (a token's SHA-256, hex) and
``kenning.workspace`` settings:

- ``kenning_request_account()``: the account whose device token that is, when the token is
  not revoked or expired, lists the workspace, and its account is a member of it; else NULL;
- ``kenning_request_workspace()``: the workspace, under the same conditions; else NULL;
- ``kenning_request_writer()``: whether that member's role may write.

The server reaches these tables only as ``kenning_app`` (``SET LOCAL ROLE`` in every
data-plane transaction), which owns nothing and is no superuser, so the policies bind it; the
schema's owner (migrations, creating a workspace's counter) is exempt as PostgreSQL exempts
owners.

A row is visible when its workspace is ``kenning_request_workspace()``; a private record's body
only when its owner is ``kenning_request_account()``; writes need a writer and change only
the writer's own rows.
"""

from __future__ import annotations

from typing import Any

import psycopg

APP_ROLE = "kenning_app"
TOKEN_SETTING = "kenning.token"
WORKSPACE_SETTING = "kenning.workspace"
# pg_advisory_lock key of the migrations: "kenning" in ASCII (the same lock the store's own
# PostgreSQL migrations take, so the two never interleave).
MIGRATION_LOCK = int.from_bytes(b"kenning", "big")
SET_NAME = "server"

_LEDGER = (
    "CREATE TABLE IF NOT EXISTS _migrations ("
    " migration_set TEXT COLLATE \"C\" NOT NULL, name TEXT COLLATE \"C\" NOT NULL,"
    " applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    " PRIMARY KEY (migration_set, name))"
)

_ROLE = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'kenning needs the role {APP_ROLE}: as a superuser run CREATE ROLE {APP_ROLE} NOLOGIN; GRANT {APP_ROLE} TO <the server''s login role>';
END
$$;
DO $$
BEGIN
    IF NOT pg_has_role(current_user, '{APP_ROLE}', 'MEMBER') THEN
        EXECUTE format('GRANT {APP_ROLE} TO %I', current_user);
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the server''s login role must be a member of {APP_ROLE}: as a superuser run GRANT {APP_ROLE} TO %', current_user;
END
$$;
"""

_CONTROL = """
CREATE TABLE accounts (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE workspaces (
    slug TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE members (
    workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces (slug) ON DELETE CASCADE,
    account TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'member', 'viewer')),
    PRIMARY KEY (workspace, account)
);
CREATE TABLE devices (
    id TEXT COLLATE "C" PRIMARY KEY,
    account TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    label TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'device' CHECK (kind IN ('device', 'web')),
    token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
    workspaces TEXT[] COLLATE "C" NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ,
    last_seen_at TIMESTAMPTZ
);
CREATE INDEX devices_account ON devices (account);
CREATE TABLE invites (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    account TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    workspaces TEXT[] COLLATE "C" NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ
);
CREATE TABLE device_codes (
    code_hash TEXT COLLATE "C" PRIMARY KEY,
    user_code TEXT COLLATE "C" NOT NULL UNIQUE,
    label TEXT NOT NULL DEFAULT '',
    requested_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    account TEXT COLLATE "C" REFERENCES accounts (id) ON DELETE CASCADE,
    workspaces TEXT[] COLLATE "C" NOT NULL DEFAULT '{}',
    confirmed_at TIMESTAMPTZ,
    claimed_at TIMESTAMPTZ
);
"""

_DATA = f"""
CREATE TABLE workspace_seq (
    workspace TEXT COLLATE "C" PRIMARY KEY REFERENCES workspaces (slug) ON DELETE CASCADE,
    last BIGINT NOT NULL DEFAULT 0
);
-- The envelope every member of the workspace may see (so a teammate learns that a record it
-- holds was removed or hidden, and nothing more).
CREATE TABLE records (
    workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces (slug) ON DELETE CASCADE,
    kind TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    owner TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    digest TEXT NOT NULL,
    deleted BOOLEAN NOT NULL DEFAULT false,
    private BOOLEAN NOT NULL DEFAULT false,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace, kind, key)
);
CREATE UNIQUE INDEX records_seq ON records (workspace, seq);
-- The content, readable by the workspace's members, a private one by its owner only.
CREATE TABLE record_bodies (
    workspace TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    owner TEXT COLLATE "C" NOT NULL,
    private BOOLEAN NOT NULL DEFAULT false,
    scope TEXT COLLATE "C" NOT NULL DEFAULT '',
    subject TEXT COLLATE "C" NOT NULL DEFAULT '',
    live BOOLEAN NOT NULL DEFAULT true,
    terms TEXT[] COLLATE "C" NOT NULL DEFAULT '{{}}',
    body JSONB NOT NULL,
    PRIMARY KEY (workspace, kind, key),
    FOREIGN KEY (workspace, kind, key) REFERENCES records (workspace, kind, key) ON DELETE CASCADE
);
CREATE INDEX record_bodies_terms ON record_bodies USING gin (terms) WHERE kind = 'memory' AND live;
CREATE INDEX record_bodies_slot ON record_bodies (workspace, scope, subject) WHERE kind = 'memory' AND subject <> '';
CREATE TABLE batches (
    workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces (slug) ON DELETE CASCADE,
    batch_id TEXT COLLATE "C" NOT NULL,
    account TEXT COLLATE "C" NOT NULL,
    digest TEXT NOT NULL,
    result JSONB NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace, batch_id)
);

-- Who the request is, from its token: SECURITY DEFINER so that the application role needs no
-- access to the devices and members tables at all.
CREATE FUNCTION kenning_request_account() RETURNS TEXT
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
    SELECT d.account FROM devices d
    JOIN members m ON m.account = d.account AND m.workspace = current_setting('{WORKSPACE_SETTING}', true)
    WHERE d.token_hash = current_setting('{TOKEN_SETTING}', true)
      AND d.revoked_at IS NULL AND (d.expires_at IS NULL OR d.expires_at > clock_timestamp())
      AND current_setting('{WORKSPACE_SETTING}', true) = ANY (d.workspaces)
$fn$;
CREATE FUNCTION kenning_request_workspace() RETURNS TEXT
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
    SELECT CASE WHEN kenning_request_account() IS NOT NULL
                THEN current_setting('{WORKSPACE_SETTING}', true) END
$fn$;
CREATE FUNCTION kenning_request_writer() RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
    SELECT coalesce((SELECT m.role IN ('owner', 'member') FROM members m
                     WHERE m.workspace = current_setting('{WORKSPACE_SETTING}', true)
                       AND m.account = kenning_request_account()), false)
$fn$;
REVOKE ALL ON FUNCTION kenning_request_account(), kenning_request_workspace(), kenning_request_writer() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION kenning_request_account(), kenning_request_workspace(), kenning_request_writer() TO {APP_ROLE};

ALTER TABLE workspace_seq ENABLE ROW LEVEL SECURITY;
CREATE POLICY seq_read ON workspace_seq FOR SELECT USING (workspace = kenning_request_workspace());
CREATE POLICY seq_write ON workspace_seq FOR UPDATE
    USING (workspace = kenning_request_workspace() AND kenning_request_writer())
    WITH CHECK (workspace = kenning_request_workspace());
GRANT SELECT, UPDATE ON workspace_seq TO {APP_ROLE};

ALTER TABLE records ENABLE ROW LEVEL SECURITY;
CREATE POLICY records_read ON records FOR SELECT USING (workspace = kenning_request_workspace());
CREATE POLICY records_insert ON records FOR INSERT
    WITH CHECK (workspace = kenning_request_workspace() AND kenning_request_writer() AND owner = kenning_request_account());
CREATE POLICY records_update ON records FOR UPDATE
    USING (workspace = kenning_request_workspace() AND kenning_request_writer() AND owner = kenning_request_account())
    WITH CHECK (workspace = kenning_request_workspace() AND owner = kenning_request_account());
GRANT SELECT, INSERT, UPDATE ON records TO {APP_ROLE};

ALTER TABLE record_bodies ENABLE ROW LEVEL SECURITY;
CREATE POLICY bodies_read ON record_bodies FOR SELECT
    USING (workspace = kenning_request_workspace() AND (NOT private OR owner = kenning_request_account()));
CREATE POLICY bodies_insert ON record_bodies FOR INSERT
    WITH CHECK (workspace = kenning_request_workspace() AND kenning_request_writer() AND owner = kenning_request_account());
CREATE POLICY bodies_update ON record_bodies FOR UPDATE
    USING (workspace = kenning_request_workspace() AND kenning_request_writer() AND owner = kenning_request_account())
    WITH CHECK (workspace = kenning_request_workspace() AND owner = kenning_request_account());
CREATE POLICY bodies_delete ON record_bodies FOR DELETE
    USING (workspace = kenning_request_workspace() AND kenning_request_writer() AND owner = kenning_request_account());
GRANT SELECT, INSERT, UPDATE, DELETE ON record_bodies TO {APP_ROLE};

ALTER TABLE batches ENABLE ROW LEVEL SECURITY;
CREATE POLICY batches_read ON batches FOR SELECT USING (workspace = kenning_request_workspace());
CREATE POLICY batches_insert ON batches FOR INSERT
    WITH CHECK (workspace = kenning_request_workspace() AND kenning_request_writer() AND account = kenning_request_account());
GRANT SELECT, INSERT ON batches TO {APP_ROLE};
"""

# The memory store's tables (kenning.store.postgres, migrated first into the same database)
# admit a row when its workspace is kenning_workspace(): on a server that is the request's
# workspace only while its token is good for it (the same test as the records'), so the
# materialized memories are bound to the request exactly as the records are. Every table a
# store set adds later is bound the same way, as its policy asks the same function. The
# subqueries make PostgreSQL evaluate each once per statement (an InitPlan), not per row.
_SERVED_STORE = """
CREATE OR REPLACE FUNCTION kenning_workspace() RETURNS TEXT LANGUAGE sql STABLE AS $fn$
    SELECT coalesce(
        (SELECT b.workspace FROM kenning_role_workspaces b WHERE b.role_name = current_user),
        (SELECT kenning_request_workspace())
    )
$fn$;
"""

# Browser sign-in (kenning.server.web_login): a one-time link a signed-in machine asks for,
# which a browser trades for a session (a devices row of kind 'web'). Control plane: the
# application role is granted nothing of it.
_WEB_LINKS = """
CREATE TABLE web_links (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    account TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    device TEXT COLLATE "C" NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    workspaces TEXT[] COLLATE "C" NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ,
    session TEXT COLLATE "C" REFERENCES devices (id) ON DELETE SET NULL
);
CREATE INDEX web_links_device ON web_links (device);
"""

# A new memory's near-duplicate and contradiction candidates come from the materialized
# memory store's own search (what a machine's remember asks of its store), so the records'
# word lists and their GIN index, which every put had to maintain, go.
_NO_RECORD_TERMS = """
DROP INDEX IF EXISTS record_bodies_terms;
ALTER TABLE record_bodies DROP COLUMN IF EXISTS terms;
"""

# Fact records keyed by the fact they state (protocol.fact_slot: the SHA-256 of subject,
# predicate, object and area joined by U+001F, in the subject column) and live while current,
# so the server finds every member's record of one fact: the fact stays current while any of
# them still asserts it (kenning.sync.apply).
FACT_SLOT_SQL = ("encode(sha256(convert_to(concat_ws(chr(31), body->>'subject', body->>'predicate', body->>'object',"
                 " body->>'area'), 'UTF8')), 'hex')")  # fmt: skip
_FACT_SLOTS = f"""
UPDATE record_bodies SET subject = {FACT_SLOT_SQL}, live = (body->>'valid_to') IS NULL WHERE kind = 'fact';
CREATE INDEX record_bodies_fact ON record_bodies (workspace, subject) WHERE kind = 'fact' AND live;
"""

STEPS: list[tuple[str, str]] = [
    ("s001_app_role", _ROLE),
    ("s002_control_plane", _CONTROL),
    ("s003_data_plane", _DATA),
    ("s004_served_store", _SERVED_STORE),
    ("s005_web_links", _WEB_LINKS),
    ("s006_no_record_terms", _NO_RECORD_TERMS),
    ("s007_fact_slots", _FACT_SLOTS),
]


def migrate(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply what is pending of :data:`STEPS`, each in one transaction with its ledger row,
    under the migrations' advisory lock (servers starting together take turns); the names
    applied. ``conn`` is in autocommit mode, connected as the schema's owner.

    The ledger is the one the store's PostgreSQL migrations keep (same table, its own set
    name), so one database holds both.
    """
    if not conn.autocommit:
        raise ValueError("migrate needs a connection in autocommit mode")
    if not pending(conn):
        return []
    done: list[str] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute(_LEDGER)
        for name, script in STEPS:
            with conn.transaction():
                seen = conn.execute(
                    "SELECT 1 FROM _migrations WHERE migration_set = %s AND name = %s", (SET_NAME, name)
                ).fetchone()
                if seen is None:
                    conn.execute(script.encode())
                    conn.execute("INSERT INTO _migrations (migration_set, name) VALUES (%s, %s)", (SET_NAME, name))
                    done.append(f"{SET_NAME}/{name}")
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    return done


def pending(conn: psycopg.Connection[Any]) -> list[str]:
    """Names of the steps not applied yet (read without the lock)."""
    row = conn.execute("SELECT to_regclass('_migrations') IS NOT NULL").fetchone()
    if not row or not _first(row):
        return [name for name, _ in STEPS]
    have = {_first(r) for r in conn.execute(
        "SELECT name FROM _migrations WHERE migration_set = %s", (SET_NAME,)).fetchall()}  # fmt: skip
    return [name for name, _ in STEPS if name not in have]


def _first(row: Any) -> Any:
    return next(iter(row.values())) if isinstance(row, dict) else row[0]
